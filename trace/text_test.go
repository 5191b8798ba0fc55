// Tests of the text trace: the golden scenario, every column and kind,
// the shared appenders (times, durations, quoting), error reporting, and
// the throughput benchmark.

package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/runtime"
)

func TestTextGolden(t *testing.T) {
	var buf bytes.Buffer
	tw := NewText(&buf, testHeader)
	run(tw, scenario())
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	golden(t, "scenario.txt", buf.Bytes())
}

func TestTextHeader(t *testing.T) {
	for _, test := range []struct {
		h    Header
		want string
	}{
		{Header{}, "# schedlab trace v1\n"},
		{Header{Version: 7}, "# schedlab trace v7\n"},
		{Header{Settings: []KV{{"procs", "4"}, {"seed", "1"}, {"preempt", "on"}}}, "# schedlab trace v1 procs=4 seed=1 preempt=on\n"},
		{Header{Settings: []KV{{"z", "1"}, {"a", "x y"}, {"e", ""}}}, "# schedlab trace v1 z=1 a=\"x y\" e=\"\"\n"},
	} {
		if got := string(appendTextHeader(nil, test.h)); got != test.want {
			t.Errorf("header %v = %q, want %q", test.h, got, test.want)
		}
	}
}

// TestEveryKindHasText checks that every kind of runtime.EventKinds() has
// its own rendering, not the fallback, and is listed in kindFields.
func TestEveryKindHasText(t *testing.T) {
	for _, k := range runtime.EventKinds() {
		if !kindListed(k) {
			t.Errorf("%v is missing from kindFields", k)
		}
		ev := runtime.Event{Seq: 1, Time: 1500, P: 0, M: 0, G: 1, Kind: k, G2: 2, P2: 1, Arg: 1, Reason: "chan receive"}
		if fieldsOf(k)&useG2 == 0 {
			ev.G2 = 0
		}
		if fieldsOf(k)&useP2 == 0 {
			ev.P2 = -1
		}
		if fieldsOf(k)&useArg == 0 {
			ev.Arg = 0
		}
		if fieldsOf(k)&useReason == 0 {
			ev.Reason = ""
		}
		if _, ok := appendTextDetails(nil, &ev); !ok {
			t.Errorf("%v has no text rendering of its own", k)
		}
		line := string(AppendText(nil, &ev))
		if k == runtime.EvPrint {
			if line != "chan receive\n" {
				t.Errorf("Print renders as %q, want the text itself", line)
			}
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 5 || fields[4] != k.String() {
			t.Errorf("%v renders as %q: want the kind's name in the fifth column", k, line)
		}
		for _, extra := range []string{"g2=", "p2=", "arg="} {
			if strings.Contains(line, extra) {
				t.Errorf("%v renders as %q: contains the generic field %s", k, line, extra)
			}
		}
	}
}

func TestTextLines(t *testing.T) {
	for _, test := range []struct {
		ev   runtime.Event
		want string
	}{
		{runtime.Event{Time: 0, P: 0, M: 0, G: 1, Kind: runtime.EvGoCreate, G2: 5, P2: -1, Arg: 1, Reason: "worker"},
			"      0.000µs P0  M0  G1    GoCreate       new=G5 fn=worker to=runnext\n"},
		{runtime.Event{Time: 12345, P: 3, M: 12, G: 12345, Kind: runtime.EvGoBlock, P2: -1, Reason: "chan receive"},
			"     12.345µs P3  M12 G12345 GoBlock        reason=\"chan receive\"\n"},
		{runtime.Event{Time: 10_000_000_000_001, P: -1, M: -1, Kind: runtime.EvMStop, P2: -1},
			"10000000000.001µs -   -   -     MStop\n"},
		{runtime.Event{Time: 7, P: 1, M: 1, G: 3, Kind: runtime.EvGoUnblock, G2: 9, P2: -1, Arg: 2},
			"      0.007µs P1  M1  G3    GoUnblock      g=G9 to=global\n"},
		{runtime.Event{Time: 7, P: 1, M: 1, G: 3, Kind: runtime.EvGoUnblock, G2: 9, P2: -1, Arg: 9},
			"      0.007µs P1  M1  G3    GoUnblock      g=G9 to=9\n"},
		{runtime.Event{Time: 2000, P: 1, M: 1, Kind: runtime.EvRunqSteal, G2: 7, P2: 2, Arg: 3},
			"      2.000µs P1  M1  -     RunqSteal      from=P2 n=3 g=G7\n"},
		{runtime.Event{Time: 2000, P: 1, M: 1, G: 2, Kind: runtime.EvGoSyscallBegin, P2: -1, Arg: 5_000_000},
			"      2.000µs P1  M1  G2    GoSyscallBegin dur=5ms\n"},
		{runtime.Event{Time: 2000, P: 1, M: 1, G: 2, Kind: runtime.EvGoSleep, P2: -1, Arg: 1_502_000},
			"      2.000µs P1  M1  G2    GoSleep        dur=1.5ms until=1502.000µs\n"},
		{runtime.Event{Time: 0, P: -1, M: 0, G: 1, Kind: runtime.EvProcResize, P2: 4, Arg: 2},
			"      0.000µs -   M0  G1    ProcResize     from=2 to=4\n"},
		// fields a kind does not use are shown, not hidden
		{runtime.Event{Time: 0, P: 0, M: 0, G: 1, Kind: runtime.EvGoSched, P2: -1, Arg: 1},
			"      0.000µs P0  M0  G1    GoSched        to=runq\n"},
		{runtime.Event{Time: 0, P: 0, M: 0, Kind: runtime.EvTimerFire, G2: 4, P2: -1, Arg: 99, Reason: "sleep"},
			"      0.000µs P0  M0  -     TimerFire      timer=sleep g=G4 when=0.099µs\n"},
		// a kind this package does not know
		{runtime.Event{Time: 0, P: 0, M: 0, G: 1, Kind: 200, G2: 2, P2: 3, Arg: 4, Reason: "x y"},
			"      0.000µs P0  M0  G1    EventKind(200) g2=G2 p2=P3 arg=4 reason=\"x y\"\n"},
		{runtime.Event{Time: 0, P: 0, M: 0, G: 1, Kind: 200, P2: -1},
			"      0.000µs P0  M0  G1    EventKind(200)\n"},
		// the program's output, as printed
		{runtime.Event{Kind: runtime.EvPrint, G: 1, Reason: "hello"}, "hello\n"},
		{runtime.Event{Kind: runtime.EvPrint, G: 1, Reason: "two\nlines\n"}, "two\nlines\n"},
		{runtime.Event{Kind: runtime.EvPrint, G: 1, Reason: ""}, "\n"},
	} {
		if got := string(AppendText(nil, &test.ev)); got != test.want {
			t.Errorf("AppendText(%+v)\n got %q\nwant %q", test.ev, got, test.want)
		}
	}
}

func TestAppendDuration(t *testing.T) {
	ds := []int64{0, 1, 999, 1000, 1001, 1500, 20000, 999999, 1000000, 1500000, 10000000, 999999999,
		1e9, 1e9 + 1, 61e9, 3600e9, 3661e9 + 5e8, -1, -1500000, 1<<63 - 1, -1 << 63}
	for i := int64(1); i < 1e15; i = i*7 + 3 {
		ds = append(ds, i, -i)
	}
	for _, d := range ds {
		if got, want := string(appendDuration(nil, d)), time.Duration(d).String(); got != want {
			t.Errorf("appendDuration(%d) = %q, want %q", d, got, want)
		}
	}
}

func TestAppendMicros(t *testing.T) {
	for _, test := range []struct {
		ns   int64
		want string
	}{
		{0, "0.000"}, {1, "0.001"}, {999, "0.999"}, {1000, "1.000"}, {12345, "12.345"},
		{10_000_000, "10000.000"}, {-1500, "-1.500"}, {-1 << 63, "-9223372036854775.808"},
	} {
		if got := string(appendMicros(nil, test.ns)); got != test.want {
			t.Errorf("appendMicros(%d) = %q, want %q", test.ns, got, test.want)
		}
	}
	b := padLeft(appendMicros([]byte("x"), 12345), 1, 11)
	if string(b) != "x     12.345" {
		t.Errorf("padLeft gave %q", b)
	}
}

func TestAppendWord(t *testing.T) {
	for _, test := range []struct{ s, want string }{
		{"worker", "worker"}, {"main.loop", "main.loop"}, {"a/b:c-d_e@f+g", "a/b:c-d_e@f+g"},
		{"", `""`}, {"chan receive", `"chan receive"`}, {"a=b", `"a=b"`}, {`q"`, `"q\""`},
		{"<lambda>", `"<lambda>"`}, {"ünï", `"ünï"`}, {"tab\t", `"tab\t"`},
	} {
		if got := string(appendWord(nil, test.s)); got != test.want {
			t.Errorf("appendWord(%q) = %s, want %s", test.s, got, test.want)
		}
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrors(t *testing.T) {
	evs := randomEvents(5000, 2, 1) // more than one buffer's worth
	tw := NewText(failWriter{}, testHeader)
	run(tw, evs)
	if err := tw.Flush(); err == nil || err.Error() != "disk full" {
		t.Errorf("Text.Flush = %v, want disk full", err)
	}
	jw := NewJSON(failWriter{}, testHeader)
	run(jw, evs)
	if err := jw.Flush(); err == nil {
		t.Errorf("JSON.Flush = nil, want an error")
	}
	cw := NewChrome(failWriter{}, testHeader)
	run(cw, evs)
	if err := cw.Close(); err == nil {
		t.Errorf("Chrome.Close = nil, want an error")
	}
	tl := NewTimeline(failWriter{}, testHeader)
	run(tl, evs)
	if err := tl.Close(); err == nil {
		t.Errorf("Timeline.Close = nil, want an error")
	}
}

// TestTextDeterministic writes a large random run twice, through different
// buffer boundaries, and compares the bytes with a line-by-line rendering.
func TestTextDeterministic(t *testing.T) {
	evs := randomEvents(50000, 4, 3)
	var a bytes.Buffer
	tw := NewText(&a, testHeader)
	run(tw, evs)
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	want := appendTextHeader(nil, testHeader)
	for i := range evs {
		want = AppendText(want, &evs[i])
	}
	if !bytes.Equal(a.Bytes(), want) {
		t.Fatal("Text output differs from AppendText's")
	}
}

func BenchmarkText(b *testing.B) {
	evs := randomEvents(100000, 4, 1)
	f, err := os.Create(filepath.Join(b.TempDir(), "trace.txt"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	tw := NewText(f, testHeader)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tw.Event(&evs[i%len(evs)])
	}
	if err := tw.Flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestTextFoldStartup: with FoldStartup the events before MainStart are
// replaced by one comment line, and those after it are written as usual;
// a Flush in between (a line on stderr) writes none of the held ones.
// Without MainStart, Close writes them all as they are; without
// FoldStartup, MainStart changes nothing.
func TestTextFoldStartup(t *testing.T) {
	evs := scenario()
	const k = 9 // the start-up: up to P1's steal of G2, with G1's two spawns
	var whole bytes.Buffer
	tw := NewText(&whole, testHeader)
	run(tw, evs)
	tw.Flush()
	header, _, _ := strings.Cut(whole.String(), "\n")
	var rest []byte
	for i := k; i < len(evs); i++ {
		rest = AppendText(rest, &evs[i])
	}

	var folded bytes.Buffer
	tw = NewText(&folded, testHeader)
	tw.FoldStartup()
	run(tw, evs[:k])
	tw.Flush()
	if got := folded.String(); got != header+"\n" {
		t.Errorf("a Flush during the start-up wrote %q, want only the header", got)
	}
	tw.MainStart(2000, 0, 0)
	run(tw, evs[k:])
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	want := header + "\n" +
		"# start-up: 9 events folded (--trace-startup shows them); runtime.main spawned G2 G3 and called main.main at 2.000µs on P0 M0\n" +
		string(rest)
	if got := folded.String(); got != want {
		t.Errorf("folded trace:\n%s\nwant\n%s", got, want)
	}
	if n := tw.Folded(); n != 9 {
		t.Errorf("Folded() = %d, want the 9 events of the line", n)
	}

	// main.main never began: nothing is hidden.
	var cut bytes.Buffer
	tw = NewText(&cut, testHeader)
	tw.FoldStartup()
	run(tw, evs)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if cut.String() != whole.String() {
		t.Errorf("a start-up that never reached main.main was written as\n%s\nwant every event:\n%s", cut.String(), whole.String())
	}
	if n := tw.Folded(); n != 0 {
		t.Errorf("Folded() = %d for a start-up that never reached main.main, want 0", n)
	}

	// Not folding: MainStart writes nothing.
	var plain bytes.Buffer
	tw = NewText(&plain, testHeader)
	run(tw, evs[:k])
	tw.MainStart(2000, 0, 0)
	run(tw, evs[k:])
	tw.Close()
	if plain.String() != whole.String() {
		t.Errorf("MainStart without FoldStartup changed the trace:\n%s", plain.String())
	}
}
