package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/tracetest"
)

// gcTimelineScript allocates from four goroutines on 4 Ps under
// --gc-cycle=mark: cycles, each with its two pauses and a dedicated
// worker, mark assists by the allocating goroutines, idle workers at the
// end.
const gcTimelineScript = `# schedlab: --procs=4 --gc-cycle=mark
def busy(n):
    for i in range(n):
        alloc("256KiB")
        work("50us")
retain("3MiB")
for i in range(3):
    spawn(busy, 200)
busy(200)
`

// jsGCSpan is one GC span as window.__schedlab.gc() shows it.
type jsGCSpan struct {
	Kind   int    `json:"kind"`
	P      int    `json:"p"`
	G      int64  `json:"g"`
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	Arg    int64  `json:"arg"`
	Reason string `json:"reason"`
}

// TestTimelineGCInBrowser opens the timeline of a run with GC cycles: the
// page has the GC band, and its GC spans are the run's cycles, pauses,
// mark workers and assists (each paired from its events, the worker on
// its P with its mode, the assist with the ns it marked); hovering a
// cycle, a worker and an assist shows their details. A page of a run
// without GC events has none of it.
func TestTimelineGCInBrowser(t *testing.T) {
	browser := findBrowser(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "gc.star")
	if err := os.WriteFile(script, []byte(gcTimelineScript), 0o666); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "gc.html")
	jsonl, stderr, _ := schedlab(t, "run", "--trace", "--trace-format=json", "--timeline="+file, script)
	_, evs, err := tracetest.ReadJSON([]byte(jsonl))
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr)
	}
	// The spans the events make, in the order they close.
	var want []jsGCSpan
	begun := map[string]runtime.Event{}
	for _, ev := range evs {
		switch ev.Kind {
		case runtime.EvGCBegin:
			begun["cycle"] = ev
		case runtime.EvSTWBegin:
			begun["stw"] = ev
		case runtime.EvGCWorkerStart:
			begun[fmt.Sprint("G", ev.G)] = ev
		case runtime.EvGCEnd:
			b := begun["cycle"]
			delete(begun, "cycle")
			want = append(want, jsGCSpan{0, int(b.P), b.G, b.Time, ev.Time, b.Arg, b.Reason})
		case runtime.EvSTWEnd:
			b := begun["stw"]
			delete(begun, "stw")
			want = append(want, jsGCSpan{1, int(b.P), b.G, b.Time, ev.Time, b.Arg, b.Reason})
		case runtime.EvGCWorkerStop:
			b := begun[fmt.Sprint("G", ev.G)]
			delete(begun, fmt.Sprint("G", ev.G))
			mode := map[string]int64{"dedicated": 1, "fractional": 2, "idle": 3}[b.Reason]
			want = append(want, jsGCSpan{2, int(b.P), b.G, b.Time, ev.Time, mode, b.Reason})
		case runtime.EvGCAssistBegin:
			begun[fmt.Sprint("assist G", ev.G)] = ev
		case runtime.EvGCAssistEnd:
			b := begun[fmt.Sprint("assist G", ev.G)]
			delete(begun, fmt.Sprint("assist G", ev.G))
			want = append(want, jsGCSpan{3, int(b.P), b.G, b.Time, ev.Time, ev.Arg, ""})
		}
	}
	// Spans still open when the run ends close at its last event: the
	// pause, the workers, the assists, the cycle.
	var left []runtime.Event
	for _, ev := range begun {
		left = append(left, ev)
	}
	slices.SortFunc(left, func(a, b runtime.Event) int { return cmp.Compare(a.Seq, b.Seq) })
	last := evs[len(evs)-1].Time
	for _, kind := range []runtime.EventKind{runtime.EvSTWBegin, runtime.EvGCWorkerStart, runtime.EvGCAssistBegin, runtime.EvGCBegin} {
		for _, b := range left {
			if b.Kind == kind {
				k := map[runtime.EventKind]int{runtime.EvSTWBegin: 1, runtime.EvGCWorkerStart: 2, runtime.EvGCAssistBegin: 3, runtime.EvGCBegin: 0}[kind]
				arg := map[string]int64{"dedicated": 1, "fractional": 2, "idle": 3}[b.Reason]
				if kind == runtime.EvGCBegin {
					arg = b.Arg
				}
				want = append(want, jsGCSpan{k, int(b.P), b.G, b.Time, last, arg, b.Reason})
			}
		}
	}
	bctx := newBrowser(t, browser)
	p := open(t, bctx, file, 1280, 900)
	got := eval[[]jsGCSpan](t, p, `window.__schedlab.gc()`)
	if len(want) < 9 {
		t.Fatalf("the run has %d GC spans, want three cycles with their pauses and workers", len(want))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the page's GC spans:\n%v\nwant:\n%v", got, want)
	}
	if top, lane0 := eval[float64](t, p, `window.__schedlab.gcTop()`), eval[[]jsLane](t, p, `window.__schedlab.lanes()`)[0]; top <= 0 || lane0.Label != "P0" {
		t.Errorf("GC band at %v, first lane %q: want the band above P0", top, lane0.Label)
	}
	hover := func(kind int, head string) {
		t.Helper()
		for j, s := range got {
			if s.Kind != kind {
				continue
			}
			box := eval[*struct{ Left, Right, Top, Bottom float64 }](t, p, fmt.Sprintf(`window.__schedlab.gcBox(%d)`, j))
			if box == nil || box.Right-box.Left < 4 {
				continue // too narrow to point at
			}
			x, y := (box.Left+box.Right)/2, (box.Top+box.Bottom)/2
			if err := chromedp.Do(p.ctx, chromedp.MouseEvent(chromedp.MouseMoved, x, y)); err != nil {
				t.Fatal(err)
			}
			tip, err := chromedp.Run(p.ctx, chromedp.Poll[string](`window.__schedlab.tip() || null`, chromedp.WithPollingTimeout(5*time.Second)))
			if err != nil || !strings.HasPrefix(tip, head) {
				t.Errorf("tooltip over GC span %d (%v) = %q (%v), want it to begin %q", j, s, tip, err, head)
			}
			return
		}
		t.Errorf("no GC span of kind %d wide enough to hover", kind)
	}
	hover(0, "GC cycle 1 (the heap reached the trigger), begun by G20 busy\n")
	hover(2, "G")
	if tip := eval[string](t, p, `window.__schedlab.tip()`); !strings.Contains(tip, " mark worker, dedicated, marking on P") {
		t.Errorf("tooltip over a worker: %q", tip)
	}
	hover(3, "G")
	if tip := eval[string](t, p, `window.__schedlab.tip()`); !strings.Contains(tip, " busy in a mark assist (GC mark assist), marking ") {
		t.Errorf("tooltip over an assist: %q", tip)
	}
	if r := p.report(); r != "" {
		t.Errorf("the page reported problems:%s", r)
	}

	// The same script under the instant model has no GC events.
	plain := filepath.Join(dir, "plain.html")
	if _, stderr, code := schedlab(t, "run", "--gc-cycle=instant", "--timeline="+plain, script); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), "drawGC") || strings.Contains(string(page), `"gc":`) {
		t.Errorf("the page of a run without GC events has the GC's data or code")
	}
}
