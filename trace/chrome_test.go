// Tests of the Chrome export: the golden scenario, and validation against
// the Trace Event Format as this package uses it (tracetest.CheckChrome:
// every element has ph, ts, pid and tid; complete events have dur >= 0;
// processes and threads are named; every input event is carried; spans of
// a thread do not overlap).

package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/tracetest"
)

func TestChromeGolden(t *testing.T) {
	var buf bytes.Buffer
	cw := NewChrome(&buf, testHeader)
	run(cw, scenario())
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	golden(t, "scenario.chrome.json", buf.Bytes())
}

// checkChrome parses a Chrome trace, validates it against the Trace Event
// Format as this package uses it (tracetest.CheckChrome), and checks that
// it carries every event of evs.
func checkChrome(t *testing.T, data []byte, evs []runtime.Event) *tracetest.ChromeDoc {
	t.Helper()
	doc, err := tracetest.CheckChrome(data, evs)
	if doc == nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Error(err)
	}
	return doc
}

func TestChromeValid(t *testing.T) {
	for _, evs := range [][]runtime.Event{scenario(), randomEvents(30000, 4, 9)} {
		var buf bytes.Buffer
		cw := NewChrome(&buf, testHeader)
		run(cw, evs)
		if err := cw.Close(); err != nil {
			t.Fatal(err)
		}
		doc := checkChrome(t, buf.Bytes(), evs)
		if doc.OtherData["schedlab_trace"] != json.Number("1") {
			t.Errorf("otherData = %v", doc.OtherData)
		}
		// (CheckChrome also checks that the slices of a thread never overlap.)
	}
}

func TestChromeCloseTwice(t *testing.T) {
	var buf bytes.Buffer
	cw := NewChrome(&buf, Header{})
	run(cw, scenario()[:5])
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	n := buf.Len()
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	cw.Event(&scenario()[6])
	if buf.Len() != n {
		t.Errorf("Close or Event after Close wrote more")
	}
	if !json.Valid(buf.Bytes()) {
		t.Errorf("invalid JSON:\n%s", buf.Bytes())
	}
}

func TestChromeEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := NewChrome(&buf, Header{}).Close(); err != nil {
		t.Fatal(err)
	}
	checkChrome(t, buf.Bytes(), nil)
}

func BenchmarkChrome(b *testing.B) {
	evs := randomEvents(100000, 4, 1)
	f, err := os.Create(filepath.Join(b.TempDir(), "trace.json"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	cw := NewChrome(f, testHeader)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := evs[i%len(evs)]
		ev.Seq = uint64(i + 1)
		ev.Time += int64(i/len(evs)) * evs[len(evs)-1].Time
		cw.Event(&ev)
	}
	if err := cw.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
