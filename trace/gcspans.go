// GC spans: the garbage collector's intervals, from its point events.
//
// The engine reports a GC cycle as pairs of events (runtime/event.go):
// GCBegin and GCEnd around a cycle (gcStart to gcMarkTermination),
// STWBegin and STWEnd around each stop-the-world pause
// (stopTheWorldWithSema to startTheWorldWithSema), GCWorkerStart and
// GCWorkerStop around the marking of one mark worker on its P
// (gcBgMarkWorker, with its mode), GCAssistBegin and GCAssistEnd around
// a goroutine's mark assist (gcAssistAlloc). gcTracker pairs them into
// spans for the timeline's GC band, for the mark workers' spans on the P
// lanes and for the assists on their goroutines' run spans, as go tool
// trace draws its "GC" and "STW" ranges, its "GC (dedicated)", "GC
// (fractional)" and "GC (idle)" goroutine slices and its "GC mark assist"
// ranges.
//
// A cycle and a pause are process-wide: at most one of each is open at a
// time. A worker's span belongs to its G, which marks on one P between its
// start and its stop. An assist's span belongs to its G too, but the G
// may leave its P in the middle (it yields when asked to, and parks on
// the assist queue while in debt): the page draws the assist only where
// the G runs. A span still open at the end of the stream is closed
// at the time of the last event, like the run spans (spans.go).
//
// Only runs with --gc-cycle=stw or mark have these events: under the
// instant model a cycle takes no time and emits none, and the
// timeline of a run without them is the same, byte for byte, as before
// the collector had a view.

package trace

import "github.com/schedlab/schedlab/runtime"

// gcSpanKind says what a GC span shows.
type gcSpanKind uint8

const (
	gcSpanCycle  gcSpanKind = iota // a cycle, GCBegin to GCEnd; arg = the cycle's number
	gcSpanSTW                      // a stop-the-world pause, STWBegin to STWEnd
	gcSpanWorker                   // a mark worker marking on its P; arg = its mode (gcModeDedicated, ...)
	gcSpanAssist                   // a G's mark assist, GCAssistBegin to GCAssistEnd; arg = the ns it marked (GCAssistEnd's Arg), 0 if cut by the end
)

// The modes of a mark worker, as a worker span's arg.
const (
	gcModeDedicated  = 1
	gcModeFractional = 2
	gcModeIdle       = 3
)

// gcMode returns the number of a worker mode's name, 0 for an unknown one.
func gcMode(name string) int64 {
	switch name {
	case "dedicated":
		return gcModeDedicated
	case "fractional":
		return gcModeFractional
	case "idle":
		return gcModeIdle
	}
	return 0
}

// A gcSpan is one GC interval.
type gcSpan struct {
	kind       gcSpanKind
	p          int32 // the P of a worker's span; for a cycle or pause the P of the G that began it
	g          int64 // the worker, or the G that began the cycle or pause
	start, end int64 // virtual ns
	arg        int64 // see gcSpanKind
	reason     string
	startIdx   int // index of the opening event in the stream
	endIdx     int // index of the closing event, -1 when closed at the end
}

// gcTracker pairs GC events into spans, handing each to emit when it
// closes. The *gcSpan passed to emit is only valid during the call.
type gcTracker struct {
	emit    func(s *gcSpan)
	cycle   gcSpan   // the cycle open now, when cycleOn
	stw     gcSpan   // the pause open now, when stwOn
	workers []gcSpan // the workers marking now, in the order they began
	assists []gcSpan // the Gs in a mark assist now, in the order they began
	cycleOn bool
	stwOn   bool
	last    int64 // time of the latest event
}

// event handles event number idx.
func (t *gcTracker) event(ev *runtime.Event, idx int) {
	t.last = max(t.last, ev.Time)
	open := gcSpan{p: ev.P, g: ev.G, start: ev.Time, arg: ev.Arg, reason: ev.Reason, startIdx: idx, endIdx: -1}
	switch ev.Kind {
	case runtime.EvGCBegin:
		t.closeCycle(ev, idx)
		open.kind = gcSpanCycle
		t.cycle, t.cycleOn = open, true
	case runtime.EvGCEnd:
		t.closeCycle(ev, idx)
	case runtime.EvSTWBegin:
		t.closeSTW(ev, idx)
		open.kind = gcSpanSTW
		t.stw, t.stwOn = open, true
	case runtime.EvSTWEnd:
		t.closeSTW(ev, idx)
	case runtime.EvGCWorkerStart:
		t.closeWorker(ev.G, ev, idx)
		open.kind, open.arg = gcSpanWorker, gcMode(ev.Reason)
		t.workers = append(t.workers, open)
	case runtime.EvGCWorkerStop:
		t.closeWorker(ev.G, ev, idx)
	case runtime.EvGCAssistBegin:
		t.closeG(&t.assists, ev.G, ev, idx)
		open.kind, open.arg = gcSpanAssist, 0
		t.assists = append(t.assists, open)
	case runtime.EvGCAssistEnd:
		t.closeG(&t.assists, ev.G, ev, idx)
	}
}

// close ends s at ev (nil: at the last event) and emits it.
func (t *gcTracker) close(s *gcSpan, ev *runtime.Event, idx int) {
	if ev != nil {
		s.end, s.endIdx = ev.Time, idx
	} else {
		s.end, s.endIdx = t.last, -1
	}
	s.end = max(s.end, s.start)
	t.emit(s)
}

// closeCycle closes the open cycle, if any.
func (t *gcTracker) closeCycle(ev *runtime.Event, idx int) {
	if t.cycleOn {
		t.cycleOn = false
		t.close(&t.cycle, ev, idx)
	}
}

// closeSTW closes the open pause, if any.
func (t *gcTracker) closeSTW(ev *runtime.Event, idx int) {
	if t.stwOn {
		t.stwOn = false
		t.close(&t.stw, ev, idx)
	}
}

// closeWorker closes the span of worker g, if it is marking.
func (t *gcTracker) closeWorker(g int64, ev *runtime.Event, idx int) {
	t.closeG(&t.workers, g, ev, idx)
}

// closeG closes the span of G g in open, if there is one; an assist
// ended by its GCAssistEnd takes the ns it marked.
func (t *gcTracker) closeG(open *[]gcSpan, g int64, ev *runtime.Event, idx int) {
	for i := range *open {
		if (*open)[i].g == g {
			s := (*open)[i]
			*open = append((*open)[:i], (*open)[i+1:]...)
			if s.kind == gcSpanAssist && ev != nil && ev.Kind == runtime.EvGCAssistEnd {
				s.arg = ev.Arg
			}
			t.close(&s, ev, idx)
			return
		}
	}
}

// finish closes every span still open at the time of the last event: the
// pause, the workers, then the assists, each in the order they began, then
// the cycle.
func (t *gcTracker) finish() {
	t.closeSTW(nil, -1)
	for _, open := range []*[]gcSpan{&t.workers, &t.assists} {
		for len(*open) > 0 {
			s := (*open)[0]
			*open = (*open)[1:]
			t.close(&s, nil, -1)
		}
	}
	t.closeCycle(nil, -1)
}
