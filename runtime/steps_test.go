package runtime

import (
	"strings"
	"testing"
)

// spin runs steps of code as the language does, until stop says so: each
// budget StepBudget or StepsSpent gives is run and told to RanSteps, and
// StepsSpent follows. It returns the steps run (*ran, which stop may
// read) and the LimitError that ended it, if any.
func spin(g *G, ran *uint64, stop func() bool) *LimitError {
	left := g.StepBudget()
	for !stop() {
		g.RanSteps(left)
		*ran += left
		var le *LimitError
		if left, le = g.StepsSpent(); le != nil {
			return le
		}
	}
	return nil
}

// retake in steps: with steps that take no time and preemption on, a G
// that has run its P's SliceSteps is preempted to the global queue at the
// next step, and the G in runnext runs then, after exactly SliceSteps.
func TestStepSlicePreempts(t *testing.T) {
	var ran, ranBefore uint64
	stop := false
	_, res := run(t, Config{Procs: 1, SliceSteps: 100}, func(g *G, log func(string, ...any)) error {
		g.Go(func(g *G) error {
			ranBefore, stop = ran, true
			return nil
		}, "other")
		if le := spin(g, &ran, func() bool { return stop }); le != nil {
			return le
		}
		return nil
	})
	if res.Outcome != Exited || ranBefore != 100 {
		t.Errorf("outcome %v (%v), other ran after %d steps of G1; want exited, after 100", res.Outcome, res.Err, ranBefore)
	}
}

// Gs that hand the P to each other through runnext share the time slice
// (execute with inheritTime does not move schedtick): a G readied into
// runnext by one that ran 60 of 100 steps has 40 left.
func TestStepSliceSharedThroughRunnext(t *testing.T) {
	var budget uint64
	_, res := run(t, Config{Procs: 1, SliceSteps: 100}, func(g *G, log func(string, ...any)) error {
		c, _ := g.Machine().NewChan(0)
		g.RanSteps(60)
		g.Go(func(g *G) error {
			budget = g.StepBudget()
			return g.Send(c, nil)
		}, "child")
		g.Recv(c)
		return nil
	})
	if res.Outcome != Exited || budget != 40 {
		t.Errorf("outcome %v (%v), the child's budget %d; want exited, 40", res.Outcome, res.Err, budget)
	}
}

// With preemption off, the end of the slice only posts the request
// (preemptone: stackguard0 = stackPreempt): the G runs on until a call's
// stack check honours it (Morestack, newstack → gopreempt_m), and a G
// that runs WedgeSteps steps after the request without a call has wedged
// the cooperative scheduler.
func TestStepSliceRequestsWithPreemptOff(t *testing.T) {
	cfg := Config{Procs: 1, NoPreempt: true, SliceSteps: 100, WedgeSteps: 1000}
	var ran uint64
	otherRan := false
	out, res := run(t, cfg, func(g *G, log func(string, ...any)) error {
		g.Go(func(g *G) error {
			otherRan = true
			return nil
		}, "other")
		if le := spin(g, &ran, func() bool { return g.PreemptRequested() }); le != nil {
			return le
		}
		if ran != 100 || otherRan {
			log("requested after %d steps, other ran: %v; want 100, false", ran, otherRan)
		}
		if left := g.StepBudget(); left != 1000 {
			log("budget after the request %d, want the wedge's 1000", left)
		}
		if !g.Morestack() || !otherRan {
			log("the stack check did not preempt G1 for other")
		}
		return nil
	})
	if res.Outcome != Exited || out != "" {
		t.Errorf("outcome %v (%v), want exited\n%s", res.Outcome, res.Err, out)
	}

	ran = 0
	_, res = run(t, cfg, func(g *G, log func(string, ...any)) error {
		g.Go(func(g *G) error { return nil }, "other")
		return spin(g, &ran, func() bool { return false })
	})
	if res.Outcome != Limit || ran != 1100 || !strings.Contains(res.Err.Error(), "goroutine 1 ran 1000 steps without a scheduling point") {
		t.Errorf("outcome %v (%v) after %d steps; want G1 wedged after 1100", res.Outcome, res.Err, ran)
	}
}
