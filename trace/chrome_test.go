// Tests of the Chrome export: the golden scenario, and a validator for the
// Trace Event Format as this package uses it (every element has ph, ts,
// pid and tid; complete events have dur >= 0; processes and threads are
// named; every input event is carried; spans of a thread do not overlap).

package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/runtime"
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

// chromeDoc is a parsed Chrome trace. Numbers stay json.Number so that ts
// can be checked for its exact decimal form.
type chromeDoc struct {
	DisplayTimeUnit string           `json:"displayTimeUnit"`
	OtherData       map[string]any   `json:"otherData"`
	TraceEvents     []map[string]any `json:"traceEvents"`
}

// checkChrome parses a Chrome trace, validates it against the Trace Event
// Format as this package uses it, and checks that it carries every event
// of evs.
func checkChrome(t *testing.T, data []byte, evs []runtime.Event) *chromeDoc {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc chromeDoc
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("chrome trace does not parse: %v", err)
	}
	if doc.DisplayTimeUnit != "ns" {
		t.Errorf("displayTimeUnit = %q, want ns", doc.DisplayTimeUnit)
	}
	carried := map[uint64]bool{}
	threadNamed := map[[2]int64]bool{}
	threadUsed := map[[2]int64]bool{}
	processNamed := map[int64]string{}
	num := func(e map[string]any, key string) float64 {
		n, ok := e[key].(json.Number)
		if !ok {
			t.Fatalf("event %v: %s is %T, want a number", e, key, e[key])
		}
		f, err := n.Float64()
		if err != nil {
			t.Fatalf("event %v: %s: %v", e, key, err)
		}
		return f
	}
	seqArg := func(e map[string]any, key string) {
		args, _ := e["args"].(map[string]any)
		if s, ok := args[key].(json.Number); ok {
			n, err := strconv.ParseUint(string(s), 10, 64)
			if err != nil {
				t.Fatalf("event %v: args.%s: %v", e, key, err)
			}
			carried[n] = true
		}
	}
	for _, e := range doc.TraceEvents {
		ph, _ := e["ph"].(string)
		for _, key := range []string{"ph", "ts", "pid", "tid"} {
			if _, ok := e[key]; !ok {
				t.Fatalf("event %v has no %s", e, key)
			}
		}
		if _, ok := e["name"].(string); !ok {
			t.Fatalf("event %v has no name", e)
		}
		ts := num(e, "ts")
		pid, tid := int64(num(e, "pid")), int64(num(e, "tid"))
		// ts has exactly three decimals (or is the metadata 0)
		if s := string(e["ts"].(json.Number)); ph != "M" && (len(s) < 5 || s[len(s)-4] != '.') {
			t.Errorf("event %v: ts %s is not microseconds with three decimals", e, s)
		}
		switch ph {
		case "M":
			args, _ := e["args"].(map[string]any)
			switch e["name"] {
			case "process_name":
				name, _ := args["name"].(string)
				processNamed[pid] = name
			case "thread_name":
				if name, _ := args["name"].(string); name == "" {
					t.Errorf("thread_name %v without a name", e)
				}
				threadNamed[[2]int64{pid, tid}] = true
			case "process_sort_index", "thread_sort_index":
				if _, ok := args["sort_index"].(json.Number); !ok {
					t.Errorf("%v without a sort_index", e)
				}
			default:
				t.Errorf("unknown metadata event %v", e)
			}
		case "X":
			if dur := num(e, "dur"); dur < 0 {
				t.Errorf("complete event %v has dur < 0", e)
			}
			threadUsed[[2]int64{pid, tid}] = true
			seqArg(e, "start_seq")
		case "i":
			if s, _ := e["s"].(string); s != "t" {
				t.Errorf("instant %v: scope %q, want t", e, s)
			}
			threadUsed[[2]int64{pid, tid}] = true
			seqArg(e, "seq")
		case "C":
			args, _ := e["args"].(map[string]any)
			if _, ok := args["global"].(json.Number); !ok {
				t.Errorf("counter %v has no global", e)
			}
		default:
			t.Errorf("event %v: unexpected ph %q", e, ph)
		}
		_ = ts
	}
	for pid, want := range map[int64]string{0: "Ps", 1: "Ms", 2: "Sched"} {
		if processNamed[pid] != want {
			t.Errorf("process %d is named %q, want %q", pid, processNamed[pid], want)
		}
	}
	for th := range threadUsed {
		if !threadNamed[th] {
			t.Errorf("thread %v has events but no thread_name", th)
		}
	}
	for _, ev := range evs {
		if !carried[ev.Seq] {
			t.Errorf("event %d (%v) is not in the chrome trace", ev.Seq, ev.Kind)
		}
	}
	return &doc
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
		// spans on one thread never overlap
		type th struct{ pid, tid string }
		last := map[th]float64{}
		type x struct {
			ts, dur float64
			th      th
		}
		var xs []x
		for _, e := range doc.TraceEvents {
			if e["ph"] == "X" {
				ts, _ := e["ts"].(json.Number).Float64()
				dur, _ := e["dur"].(json.Number).Float64()
				xs = append(xs, x{ts, dur, th{string(e["pid"].(json.Number)), string(e["tid"].(json.Number))}})
			}
		}
		byTh := map[th][]x{}
		for _, s := range xs {
			byTh[s.th] = append(byTh[s.th], s)
		}
		for k, ss := range byTh {
			// spans of a thread are written in end order, which is also
			// start order since they do not overlap
			for i, s := range ss {
				if i > 0 && s.ts+1e-9 < last[k] {
					t.Errorf("thread %v: span at %.3f starts before the previous one ends at %.3f", k, s.ts, last[k])
				}
				last[k] = s.ts + s.dur
			}
		}
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
