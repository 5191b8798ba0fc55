// The time slice in steps: sysmon's preemption for code that takes no time.
//
// sysmon's retake preempts a G whose P has run the same time slice (the
// same schedtick) for 10ms (forcePreemptNS): "a single long-running
// goroutine or a sequence of goroutines run via runnext, which share a
// single schedtick time slice". When the steps of a goroutine's code take
// virtual time (a costs profile, clock.go) the engine does just that: the
// steps move the P's clock and sysmon sees the slice end on it (retake,
// proc.go). When they take none (the zero profile), the clock stands
// still while code runs and sysmon could never see a slice end, so the
// slice is counted in steps instead: a P whose goroutines have run
// Config.SliceSteps steps since its schedtick last moved ends the slice
// at the next step, as retake does at 10ms:
//
//   - with preemption on, the G is preempted and goes to the global queue
//     (retake → preemptone → asynchronous preemption → gopreempt_m →
//     goschedImpl), through G.Preempt;
//   - with preemption off (Go before 1.14, GODEBUG=asyncpreemptoff=1),
//     the request is only posted (preemptone: gp.preempt, stackguard0 =
//     stackPreempt), through G.RequestPreempt, and the next call's stack
//     check honours it (G.Morestack, newstack).
//
// Gs that hand the P to each other through runnext share the slice, as
// in Go: execute with inheritTime does not move schedtick.
//
// With preemption off, a G whose request is pending and that runs
// Config.WedgeSteps more steps without reaching a call (a loop without
// calls, which Go before 1.14 never preempts) has wedged the cooperative
// scheduler, and the run ends with a LimitError. This holds whether steps
// take time or not: with a profile, the request is sysmon's at 10ms of
// the clock.
//
// The language tells the engine about its steps through three methods of
// the G, and decides none of this itself:
//
//   - RanSteps (clock.go): the steps run since it last said so, at every
//     builtin call and whenever a budget runs out; they are charged to
//     the P's clock and counted here, in the G's and its P's slice;
//   - StepBudget: how many steps the G may run before it must say so
//     again: the quantum (clock.go), the rest of the P's slice, or the
//     rest of the G's steps before the wedge;
//   - StepsSpent: at the end of a budget, the rules above, then the next
//     budget.
//
// The counts are kept as sysmon keeps its sysmontick: against the P's
// schedtick and the G's dispatches as they were last seen, so a new slice
// or a new dispatch restarts them when the G next counts, and execute
// need not know about steps.

package runtime

import "fmt"

// Default step budgets, when Config.SliceSteps or Config.WedgeSteps is 0.
const (
	// DefaultSliceSteps is the number of steps that stand for Go's 10ms
	// time slice (forcePreemptNS) when steps take no time. A step is
	// about one bytecode instruction of Starlark (a `while i < n: i += 1`
	// loop takes 9 per turn); a million of them take go.starlark.net
	// 10-30ms on current hardware.
	DefaultSliceSteps = 1_000_000

	// DefaultWedgeSteps is how many steps a G may run, when preemption is
	// off, after its preemption was requested without reaching a call (a
	// loop without calls), before the run is declared wedged.
	DefaultWedgeSteps = 10_000_000
)

// A stepSlice counts the steps run on a P in its current time slice: the
// slice that began when the P's schedtick became schedtick. It is
// sysmontick's schedtick and schedwhen, with steps for the time.
type stepSlice struct {
	schedtick uint32
	steps     uint64
}

// gSteps is what the step-counted rules know of a G.
type gSteps struct {
	dispatches uint64 // the G's dispatches when sinceStart was last reset
	sinceStart uint64 // steps since the G was last put on a CPU
	requested  bool   // preemption off: a request is pending, seen by StepBudget when sinceStart was requestAt
	requestAt  uint64
}

// initSteps takes the step budgets of the Config.
func (m *Machine) initSteps() {
	m.sliceSteps = m.cfg.SliceSteps
	if m.sliceSteps == 0 {
		m.sliceSteps = DefaultSliceSteps
	}
	m.wedgeSteps = m.cfg.WedgeSteps
	if m.wedgeSteps == 0 {
		m.wedgeSteps = DefaultWedgeSteps
	}
}

// syncSteps catches up with the dispatches since g's steps were last
// counted, as retake compares pd.schedtick with pp.schedtick: if g was put
// on a CPU again (execute), its steps since it started restart from zero
// and a request it saw is dropped (execute clears gp.preempt); if its P
// began a new time slice (its schedtick moved), the P's steps restart
// too. It returns the P's slice, or nil when g has no P. Only the G
// running on a P counts on the P's slice, and it syncs first, so the
// count never mixes two slices.
func (g *G) syncSteps() *stepSlice {
	if g.dispatches != g.steps.dispatches {
		g.steps = gSteps{dispatches: g.dispatches}
	}
	pp := g.curP()
	if pp == nil {
		return nil
	}
	s := &pp.stepSlice
	if s.schedtick != pp.schedtick {
		*s = stepSlice{schedtick: pp.schedtick}
	}
	return s
}

// used returns the steps of the slice, 0 for none.
func (s *stepSlice) used() uint64 {
	if s == nil {
		return 0
	}
	return s.steps
}

// countSteps adds n steps of g's code to g's count and its P's slice.
func (g *G) countSteps(n uint64) {
	s := g.syncSteps()
	g.steps.sinceStart += n
	if s != nil {
		s.steps += n
	}
}

// StepBudget returns how many steps g may run before it must call
// RanSteps and, at the end of the budget, StepsSpent: the first of
//
//   - the quantum, when steps take time, so that the other Ps' clocks can
//     catch up with g's own (Config.Quantum, or with
//     Perturb.QuantumJitter a number drawn from [1, 2*quantum-1], the
//     quantum on average);
//   - when steps take no time, the rest of the P's step-counted time
//     slice, at whose end sysmon would preempt g or, with preemption off,
//     post its request;
//   - with preemption off and a request pending, the rest of g's steps
//     before the wedge.
//
// With none of these it is math.MaxUint64. The language calls it whenever
// g (re)gains the processor.
func (g *G) StepBudget() uint64 {
	m := g.m
	s := g.syncSteps()
	left := g.quantum()
	switch {
	case m.cfg.NoPreempt:
		if g.preempt {
			if !g.steps.requested {
				g.steps.requested, g.steps.requestAt = true, g.steps.sinceStart
			}
			left = min(left, m.wedgeSteps-min(m.wedgeSteps, g.steps.sinceStart-g.steps.requestAt))
		} else if !m.stepCosts {
			// The step-counted slice, at whose end sysmon would post
			// its request (StepsSpent).
			left = min(left, m.sliceSteps-min(m.sliceSteps, s.used()))
		}
	case !m.stepCosts:
		left = min(left, m.sliceSteps-min(m.sliceSteps, s.used()))
	}
	return left
}

// StepsSpent is sysmon's look at g when g has run the budget StepBudget
// gave it (and told RanSteps so): with steps that take no time and g's P
// at the end of its step-counted slice, g is preempted to the global
// queue (preemption on) or its preemption is requested (off), as retake →
// preemptone does at 10ms; with preemption off, a G that ran WedgeSteps
// steps since its pending request was seen has wedged the cooperative
// scheduler, and StepsSpent returns the LimitError that ends the run.
// Otherwise it returns g's next budget (StepBudget). Mirrors retake's
// "Preempt G if it's running on the same schedtick for too long", in
// steps.
func (g *G) StepsSpent() (uint64, *LimitError) {
	m := g.m
	switch {
	case !m.cfg.NoPreempt && !m.stepCosts && g.syncSteps().used() >= m.sliceSteps:
		g.Preempt() // sysmon's preemption: to the global queue
	case m.cfg.NoPreempt && !m.stepCosts && !g.preempt && g.syncSteps().used() >= m.sliceSteps:
		// sysmon's request at the slice's end, as retake → preemptone
		// posts it under asyncpreemptoff; the next call honours it.
		g.RequestPreempt()
	case m.cfg.NoPreempt && g.steps.requested && g.steps.sinceStart-g.steps.requestAt >= m.wedgeSteps:
		return 0, &LimitError{What: "steps", Msg: fmt.Sprintf(
			"goroutine %d ran %d steps without a scheduling point; the cooperative scheduler is wedged; run with --preempt=on",
			g.goid, g.steps.sinceStart-g.steps.requestAt)}
	}
	return g.StepBudget(), nil
}
