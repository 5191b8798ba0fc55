package trace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// TestGCSpans pairs the scenario's GC events: the first pause, G1's
// mark assist (with the ns it marked), the dedicated worker, the second
// pause, then the cycle, each with its times and the events that opened
// it; spans cut by the end of the run are closed at the last event.
func TestGCSpans(t *testing.T) {
	evs := scenario()
	var got []string
	tr := gcTracker{emit: func(s *gcSpan) {
		got = append(got, fmt.Sprintf("%d P%d G%d %d-%d arg=%d %q start=%s", s.kind, s.p, s.g, s.start, s.end, s.arg, s.reason, evs[s.startIdx].Kind))
	}}
	for i := range evs {
		tr.event(&evs[i], i)
	}
	tr.finish()
	want := []string{
		`1 P0 G1 12345779000-12345829000 arg=0 "GC sweep termination" start=STWBegin`,
		`3 P0 G1 12345829000-12345830000 arg=1000 "" start=GCAssistBegin`,
		`2 P0 G4 12345830000-12345831000 arg=1 "dedicated" start=GCWorkerStart`,
		`1 P0 G4 12345831000-12345835000 arg=0 "GC mark termination" start=STWBegin`,
		`0 P0 G1 12345779000-12345835000 arg=1 "forced" start=GCBegin`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("GC spans:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Cut the run after the worker started: its span, then the cycle's,
	// end at the last event.
	var cut []runtime.Event
	for _, ev := range evs {
		cut = append(cut, ev)
		if ev.Kind == runtime.EvGCWorkerStart {
			break
		}
	}
	got = nil
	tr = gcTracker{emit: tr.emit}
	for i := range cut {
		tr.event(&cut[i], i)
	}
	tr.finish()
	if len(got) != 4 || !strings.HasPrefix(got[2], "2 P0 G4 12345830000-12345830000") || !strings.HasPrefix(got[3], "0 P0 G1 12345779000-12345830000") {
		t.Errorf("GC spans of a cut run:\n%s", strings.Join(got, "\n"))
	}
}

// TestTimelineWithoutGC: the page of a run without GC events has neither
// the GC's data nor the code that draws it.
func TestTimelineWithoutGC(t *testing.T) {
	var evs []runtime.Event
	for _, ev := range scenario() {
		switch ev.Kind {
		case runtime.EvGCBegin, runtime.EvGCEnd, runtime.EvSTWBegin, runtime.EvSTWEnd, runtime.EvGCWorkerStart, runtime.EvGCWorkerStop,
			runtime.EvGCAssistBegin, runtime.EvGCAssistEnd:
		default:
			evs = append(evs, ev)
		}
	}
	page := string(renderTimeline(t, testHeader, evs))
	for _, s := range []string{`"gc":`, "drawGC", "gcHit", "GC:"} {
		if strings.Contains(page, s) {
			t.Errorf("the page of a run without GC events has %q", s)
		}
	}
	withGC := string(renderTimeline(t, testHeader, scenario()))
	for _, s := range []string{`"gc":`, "drawGC", "gcHit"} {
		if !strings.Contains(withGC, s) {
			t.Errorf("the page of a run with GC events lacks %q", s)
		}
	}
}
