// Tests of the JSON lines trace: the golden scenario, a lossless round
// trip through encoding/json, the key rules, string escaping, and the
// throughput benchmark.

package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/tracetest"
)

func TestJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	jw := NewJSON(&buf, testHeader)
	run(jw, scenario())
	if err := jw.Flush(); err != nil {
		t.Fatal(err)
	}
	golden(t, "scenario.jsonl", buf.Bytes())
}

// decodeJSONTrace parses a JSON trace and returns its header and events.
func decodeJSONTrace(t *testing.T, data []byte) (map[string]any, []runtime.Event) {
	t.Helper()
	header, evs, err := tracetest.ReadJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	return header, evs
}

// TestJSONRoundTrip checks that the JSON trace parses and carries every
// event exactly.
func TestJSONRoundTrip(t *testing.T) {
	for _, evs := range [][]runtime.Event{scenario(), randomEvents(20000, 3, 5)} {
		var buf bytes.Buffer
		jw := NewJSON(&buf, testHeader)
		run(jw, evs)
		if err := jw.Flush(); err != nil {
			t.Fatal(err)
		}
		header, got := decodeJSONTrace(t, buf.Bytes())
		wantHeader := map[string]any{"schedlab_trace": 1.0, "settings": map[string]any{
			"procs": "2", "seed": "1", "preempt": "on", "script": "demo one.star"}}
		if diff := cmp.Diff(wantHeader, header); diff != "" {
			t.Errorf("header (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(evs, got); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	}
}

func TestJSONFields(t *testing.T) {
	for _, test := range []struct {
		ev   runtime.Event
		want string
	}{
		{runtime.Event{Seq: 3, Time: 1000, P: 0, M: 0, G: 1, Kind: runtime.EvGoCreate, G2: 2, P2: -1, Arg: 1, Reason: "worker"},
			`{"seq":3,"t":1000,"p":0,"m":0,"g":1,"ev":"GoCreate","g2":2,"arg":1,"reason":"worker"}`},
		// used fields are written even when zero; unused ones only when set
		{runtime.Event{Seq: 4, Time: 0, P: 0, M: 0, G: 1, Kind: runtime.EvGoStart, P2: -1},
			`{"seq":4,"t":0,"p":0,"m":0,"g":1,"ev":"GoStart","arg":0}`},
		{runtime.Event{Seq: 5, Time: 0, P: -1, M: 2, Kind: runtime.EvMStop, P2: -1},
			`{"seq":5,"t":0,"m":2,"ev":"MStop"}`},
		{runtime.Event{Seq: 6, Time: 0, P: 0, M: 0, Kind: runtime.EvTimerFire, G2: 3, P2: -1, Arg: 9, Reason: "sleep"},
			`{"seq":6,"t":0,"p":0,"m":0,"ev":"TimerFire","g2":3,"arg":9,"reason":"sleep"}`},
		{runtime.Event{Seq: 7, Time: 0, P: 0, M: 0, G: 1, Kind: runtime.EvPrint, P2: -1, Reason: "a\"b\\c\n\x01\u2028<>&\xff"},
			`{"seq":7,"t":0,"p":0,"m":0,"g":1,"ev":"Print","reason":"a\"b\\c\n\u0001\u2028<>&\ufffd"}`},
		{runtime.Event{Seq: 8, Time: -5, P: 0, M: 0, G: 1, Kind: 200, P2: -1},
			`{"seq":8,"t":-5,"p":0,"m":0,"g":1,"ev":"EventKind(200)"}`},
	} {
		if got := string(AppendJSON(nil, &test.ev)); got != test.want {
			t.Errorf("AppendJSON(%+v)\n got %s\nwant %s", test.ev, got, test.want)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" backslash\\ nl\n cr\r tab\t", "\x00\x1f\x7f", "ünïcødé ✓ 𝄞",
		"\u2028\u2029", "bad \xff\xfe utf8", "</script><!--", strings.Repeat("x", 1000)} {
		for _, html := range []bool{false, true} {
			b := appendJSONString(nil, s, html)
			var got string
			if err := json.Unmarshal(b, &got); err != nil {
				t.Errorf("appendJSONString(%q, %v) = %s: %v", s, html, b, err)
				continue
			}
			want := string([]rune(s)) // each invalid byte becomes U+FFFD
			if got != want {
				t.Errorf("appendJSONString(%q, %v) decodes to %q", s, html, got)
			}
			if html && bytes.ContainsAny(b, "<>&") {
				t.Errorf("appendJSONString(%q, true) = %s: contains <, > or &", s, b)
			}
		}
	}
}

func BenchmarkJSON(b *testing.B) {
	evs := randomEvents(100000, 4, 1)
	f, err := os.Create(filepath.Join(b.TempDir(), "trace.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	jw := NewJSON(f, testHeader)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		jw.Event(&evs[i%len(evs)])
	}
	if err := jw.Flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
