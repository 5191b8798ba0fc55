package tracetest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	xtrace "golang.org/x/exp/trace"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/exectrace"
)

// A GCRange is one of the GC's ranges in a Go execution trace, as
// golang.org/x/exp/trace names them ("GC concurrent mark phase",
// "stop-the-world (GC sweep termination)", "GC mark assist"), or the GC
// label of a mark worker as it starts to run ("GC (dedicated)"; End is
// Start). G is the goroutine the range or label is on, 0 for the GC's
// own. Times are virtual ns: a trace's time less exectrace.Origin.
type GCRange struct {
	Name       string
	G          int64
	Start, End int64
}

func (r GCRange) String() string {
	return fmt.Sprintf("%s G%d %d-%d", r.Name, r.G, r.Start, r.End)
}

// GCRangesOfTrace returns the GC's ranges of a Go execution trace that
// end in it, in the order they end, and its mark workers' labels: the
// first label of each run of a worker, when it starts.
func GCRangesOfTrace(evs []xtrace.Event) []GCRange {
	var out []GCRange
	type key struct {
		name string
		g    int64
	}
	open := map[key]int64{}
	labelled := map[int64]bool{}
	virt := func(t xtrace.Time) int64 { return int64(t) - exectrace.Origin }
	for _, ev := range evs {
		switch ev.Kind() {
		case xtrace.EventRangeBegin, xtrace.EventRangeEnd:
			r := ev.Range()
			k := key{r.Name, 0}
			if r.Scope.Kind == xtrace.ResourceGoroutine {
				k.g = int64(r.Scope.Goroutine())
			}
			if ev.Kind() == xtrace.EventRangeBegin {
				open[k] = virt(ev.Time())
			} else if start, ok := open[k]; ok {
				out = append(out, GCRange{k.name, k.g, start, virt(ev.Time())})
				delete(open, k)
			}
		case xtrace.EventLabel:
			l := ev.Label()
			g := int64(l.Resource.Goroutine())
			if strings.HasPrefix(l.Label, "GC (") && !labelled[g] {
				labelled[g] = true
				out = append(out, GCRange{l.Label, g, virt(ev.Time()), virt(ev.Time())})
			}
		case xtrace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind == xtrace.ResourceGoroutine {
				if _, to := st.Goroutine(); to != xtrace.GoRunning {
					delete(labelled, int64(st.Resource.Goroutine()))
				}
			}
		}
	}
	return out
}

// GCRangesOfEvents returns the GC's ranges and labels that a Go execution
// trace of a run's events must hold (see package exectrace): a cycle from
// GCBegin to GCEnd, a pause from STWBegin to STWEnd on its G, an assist
// from GCAssistBegin to GCAssistEnd on its G, and a worker's label when
// it starts marking or, while it marks, starts to run again.
func GCRangesOfEvents(events []runtime.Event) []GCRange {
	var out []GCRange
	var cycle int64
	open := map[string]int64{}
	labelled := map[int64]bool{}
	mode := map[int64]string{}
	end := func(name string, g, t int64) {
		k := fmt.Sprint(name, g)
		if start, ok := open[k]; ok {
			out = append(out, GCRange{name, g, start, t})
			delete(open, k)
		}
	}
	for _, ev := range events {
		switch ev.Kind {
		case runtime.EvGCBegin:
			cycle = ev.Time
			open["cycle"] = ev.Time
		case runtime.EvGCEnd:
			if _, ok := open["cycle"]; ok {
				out = append(out, GCRange{"GC concurrent mark phase", 0, cycle, ev.Time})
				delete(open, "cycle")
			}
		case runtime.EvSTWBegin:
			open[fmt.Sprint("stop-the-world ("+ev.Reason+")", ev.G)] = ev.Time
		case runtime.EvSTWEnd:
			end("stop-the-world ("+ev.Reason+")", ev.G, ev.Time)
		case runtime.EvGCAssistBegin:
			open[fmt.Sprint("GC mark assist", ev.G)] = ev.Time
		case runtime.EvGCAssistEnd:
			end("GC mark assist", ev.G, ev.Time)
		case runtime.EvGCWorkerStart:
			mode[ev.G] = ev.Reason
			if !labelled[ev.G] {
				labelled[ev.G] = true
				out = append(out, GCRange{"GC (" + ev.Reason + ")", ev.G, ev.Time, ev.Time})
			}
		case runtime.EvGCWorkerStop:
			delete(mode, ev.G)
		case runtime.EvGoStart:
			if m, ok := mode[ev.G]; ok && !labelled[ev.G] {
				labelled[ev.G] = true
				out = append(out, GCRange{"GC (" + m + ")", ev.G, ev.Time, ev.Time})
			}
		case runtime.EvGoSched, runtime.EvGoPreempt, runtime.EvGoBlock, runtime.EvGoDestroy, runtime.EvGoSyscallBegin:
			delete(labelled, ev.G)
		}
	}
	return out
}

// CheckGoTraceGC reads the Go execution trace data of a run and checks its
// GC ranges and labels against the run's events (GCRangesOfTrace,
// GCRangesOfEvents): the same, in the same order, each time within slack
// ns of the run's (a thread's timestamps are strictly increasing, so
// events at one virtual time are a ns apart in the trace), each name and
// G's in time order.
func CheckGoTraceGC(data []byte, events []runtime.Event, slack int64) error {
	evs, err := ReadGoTrace(data)
	if err != nil {
		return fmt.Errorf("golang.org/x/exp/trace: %v", err)
	}
	got, want := GCRangesOfTrace(evs), GCRangesOfEvents(events)
	// Threads' events interleave in the trace by time, so ranges that end
	// together may come in another order: compare each name and G's in
	// time order.
	order := func(a, b GCRange) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.G, b.G), cmp.Compare(a.Start, b.Start))
	}
	slices.SortStableFunc(got, order)
	slices.SortStableFunc(want, order)
	var p problems
	if len(got) != len(want) {
		p.add("%d GC ranges and labels in the Go trace, want %d", len(got), len(want))
	}
	near := func(a, b int64) bool { return a-b <= slack && b-a <= slack }
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		if g.Name != w.Name || g.G != w.G || !near(g.Start, w.Start) || !near(g.End, w.End) {
			p.add("GC range %d is %v in the Go trace, want %v", i, g, w)
		}
	}
	return p.err()
}
