package tracetest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	xtrace "golang.org/x/exp/trace"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/exectrace"
)

// ReadGoTrace reads a Go execution trace with golang.org/x/exp/trace's
// Reader, the parser `go tool trace` uses, which checks every transition
// of every P and G against Go's state machine, and returns its events.
func ReadGoTrace(data []byte) ([]xtrace.Event, error) {
	r, err := xtrace.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var evs []xtrace.Event
	for {
		ev, err := r.ReadEvent()
		if errors.Is(err, io.EOF) {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

// A GoStep is one state a goroutine enters, as a Go execution trace's
// reader reports it: the state's name (GoState.String: "Runnable",
// "Running", "Waiting", "Syscall", "NotExist") and, for a stop or a
// block, its reason.
type GoStep struct {
	State  string
	Reason string
}

// GoStepsOfTrace returns the states each goroutine of a Go execution
// trace enters, in order, leaving out the status events that open a
// generation (which repeat a state, or declare one).
func GoStepsOfTrace(evs []xtrace.Event) map[int64][]GoStep {
	steps := make(map[int64][]GoStep)
	for _, ev := range evs {
		if ev.Kind() != xtrace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != xtrace.ResourceGoroutine {
			continue
		}
		from, to := st.Goroutine()
		if from == to || from == xtrace.GoUndetermined {
			continue
		}
		g := int64(st.Resource.Goroutine())
		s := GoStep{State: to.String()}
		if to == xtrace.GoWaiting || (to == xtrace.GoRunnable && from == xtrace.GoRunning) {
			s.Reason = st.Reason
		}
		steps[g] = append(steps[g], s)
	}
	return steps
}

// GoStepsOfEvents returns the states each goroutine enters in a run's
// event stream, as a Go execution trace of it must show them (see
// package exectrace for the translation).
func GoStepsOfEvents(events []runtime.Event) map[int64][]GoStep {
	steps := make(map[int64][]GoStep)
	add := func(g int64, state, reason string) { steps[g] = append(steps[g], GoStep{state, reason}) }
	onP := make(map[int64]int32) // the P each running G runs on
	for _, ev := range events {
		switch ev.Kind {
		case runtime.EvGoStart, runtime.EvGoSyscallEnd:
			onP[ev.G] = ev.P
		}
		switch ev.Kind {
		case runtime.EvProcResize:
			if p, ok := onP[ev.G]; ok && ev.G != 0 && p >= ev.P2 {
				// The caller's P is cut off and it goes on on P0:
				// procresize traces it descheduled and scheduled
				// again (exectrace's ProcStart).
				add(ev.G, "Runnable", "runtime.Gosched")
				add(ev.G, "Running", "")
				onP[ev.G] = 0
			}
		case runtime.EvGoCreate:
			add(ev.G2, "Runnable", "")
		case runtime.EvGoStart:
			if ev.G == 1 && len(steps[1]) == 0 {
				add(1, "Runnable", "") // G1 has no GoCreate in the stream
			}
			add(ev.G, "Running", "")
		case runtime.EvGoSched:
			reason := "runtime.Gosched"
			if ev.Arg == 1 {
				reason = "preempted"
			}
			add(ev.G, "Runnable", reason)
		case runtime.EvGoPreempt:
			add(ev.G, "Runnable", "preempted")
		case runtime.EvGoBlock:
			add(ev.G, "Waiting", exectrace.BlockReason(ev.Reason))
		case runtime.EvGoUnblock:
			if ev.Arg == 3 && len(steps[ev.G2]) == 0 {
				// A GC mark worker, made parked with no GoCreate:
				// the trace creates it blocked (GoCreateBlocked).
				add(ev.G2, "Waiting", "")
			}
			add(ev.G2, "Runnable", "")
		case runtime.EvGoSyscallBegin:
			add(ev.G, "Syscall", "")
		case runtime.EvGoSyscallEnd:
			switch ev.Reason {
			case "fast":
				add(ev.G, "Running", "")
			case "idle p", "old p":
				add(ev.G, "Runnable", "")
				add(ev.G, "Running", "")
			default:
				add(ev.G, "Runnable", "")
			}
		case runtime.EvGoDestroy:
			add(ev.G, "NotExist", "")
		}
	}
	return steps
}

// CheckGoTrace reads the Go execution trace data of a run and checks it
// against the run's events: it must parse with no error, and every
// goroutine must pass through the same states, with the same reasons, in
// the same order.
func CheckGoTrace(data []byte, events []runtime.Event) error {
	evs, err := ReadGoTrace(data)
	if err != nil {
		return fmt.Errorf("golang.org/x/exp/trace: %v", err)
	}
	got, want := GoStepsOfTrace(evs), GoStepsOfEvents(events)
	var p problems
	ids := make([]int64, 0, len(want))
	for g := range want {
		ids = append(ids, g)
	}
	for g := range got {
		if _, ok := want[g]; !ok {
			ids = append(ids, g)
		}
	}
	slices.Sort(ids)
	for _, g := range ids {
		w, gt := want[g], got[g]
		if slices.Equal(w, gt) {
			continue
		}
		i := 0
		for i < len(w) && i < len(gt) && w[i] == gt[i] {
			i++
		}
		at := func(s []GoStep) string {
			if i < len(s) {
				return fmt.Sprintf("%v", s[i])
			}
			return "nothing"
		}
		p.add("G%d: step %d is %s in the Go trace, want %s (%d steps, want %d)", g, i, at(gt), at(w), len(gt), len(w))
	}
	return p.err()
}
