// Choice points: where the engine could go more than one way, asked of a
// Chooser.
//
// A run of the Machine is one schedule: the costs, the seed and Go's rules
// decide every step. Real Go meets other schedules because a signal can
// preempt a goroutine almost anywhere and because selectgo's poll order is
// random. A systematic tester (schedlab check, internal/check) wants to
// walk those schedules one by one rather than sample them by seed, as
// CHESS does (Musuvathi et al., "Finding and Reproducing Heisenbugs in
// Concurrent Programs", OSDI 2008): it needs every place where the run
// could branch to be a question it answers.
//
// With Config.Chooser set, these are the questions, each asked only when
// its answers lead to different states:
//
//   - ChoicePreempt, at a safe point (every builtin call of the language,
//     the start of G.Work): 0 goes on, 1 preempts the running G as an
//     asynchronous preemption does (goschedImpl to the global queue,
//     gopreempt_m). It is asked only when another G could run on the P
//     instead: its runnext, its local run queue or the global queue holds
//     one. A preemption with nothing else to run would put the G back on
//     the same P at once: the same schedule, counted twice.
//   - ChoiceInterleave, at a safe point where the G runs on (no
//     preemption), when something else is due at this very instant:
//     another P's G, a timer, the world outside. 0 goes on; 1 lets every
//     action due now run first, the G still on its P and its M, as a
//     thread that the OS paused for a moment does. This is how two Gs
//     running on two Ps interleave at their safe points: without it they
//     take turns only as the costs model's quanta of steps say. It counts
//     as a preemption for a bound: a switch away from a G that could
//     have gone on.
//   - ChoiceSelect, in a select with more than one case ready: which of
//     them wins, by its rank among the ready cases in case order. Go
//     decides by selectgo's random poll order (cheaprandn); every ready
//     case can win there, so every one is a schedule Go can produce.
//
// What a Chooser does not decide: which waiter a close or an unlock wakes
// (the queue's order, as in Go, which is FIFO), the order of actions due
// at one instant when no G is at a safe point (a timer and another P's
// wake-up: the queue's order), and the interleaving of two Ps' plain
// Starlark steps between safe points (a quantum of steps at a time,
// G.RanSteps). A program whose outcome turns on those is covered only as
// far as the costs model orders them.
//
// With Config.Chooser nil nothing is asked and the Machine runs exactly as
// before: the perturbations (perturb.go) and the PRNG decide.

package runtime

import "fmt"

// A ChoiceKind names a kind of choice point.
type ChoiceKind uint8

// The choice points.
const (
	ChoicePreempt    ChoiceKind = iota // at a safe point: 0 runs on, 1 preempts
	ChoiceSelect                       // a select's winner among its ready cases
	ChoiceInterleave                   // at a safe point: 0 runs on, 1 lets what else is due now go first
)

func (k ChoiceKind) String() string {
	switch k {
	case ChoicePreempt:
		return "preempt"
	case ChoiceSelect:
		return "select"
	case ChoiceInterleave:
		return "interleave"
	}
	return "choice?"
}

// A Chooser answers the Machine's choice points. Choose is called with the
// kind of choice, the running G's id and n ≥ 2 possible answers, and
// returns one of them, in [0, n). It is called on the Machine's goroutine,
// one call at a time.
type Chooser interface {
	Choose(kind ChoiceKind, g int64, n int) int
}

// choose asks the Chooser, checking its answer.
func (m *Machine) choose(kind ChoiceKind, gp *G, n int) int {
	k := m.cfg.Chooser.Choose(kind, gp.goid, n)
	if k < 0 || k >= n {
		throw(fmt.Sprintf("Chooser answered %d of %d for a %v choice", k, n, kind))
	}
	return k
}

// chooserPreempt reports whether the Chooser preempts gp at this safe
// point; it is asked only when another G could run on gp's P.
func (m *Machine) chooserPreempt(gp *G) bool {
	if gp.mp == nil || gp.mp.p == nil {
		return false
	}
	pp := gp.mp.p
	if pp.runnext == nil && pp.runqhead == pp.runqtail && m.runq.size == 0 {
		return false
	}
	return m.choose(ChoicePreempt, gp, 2) == 1
}

// chooserInterleave reports whether the Chooser lets the actions due now
// run before gp goes on from its safe point; it is asked only when one is
// due.
func (m *Machine) chooserInterleave(gp *G) bool {
	if len(m.actions) == 0 || m.actions[0].when > m.now {
		return false
	}
	return m.choose(ChoiceInterleave, gp, 2) == 1
}

// interleave lets every action due now run before gp goes on: gp yields
// with its resumption queued behind them, keeping its P and its M.
func (g *G) interleave() {
	g.m.after(0, action{kind: actResume, gp: g, gen: g.gen})
	g.co.yield()
}

// Replay is a Chooser that gives a schedule's answers in order, then 0
// after the last: the run they were recorded from, again (schedlab run
// --schedule, --choices).
type Replay struct {
	answers []int
	used    int
	err     error
}

// NewReplay returns a Replay of answers.
func NewReplay(answers []int) *Replay { return &Replay{answers: answers} }

// Choose gives the next answer.
func (r *Replay) Choose(kind ChoiceKind, g int64, n int) int {
	i := r.used
	if i >= len(r.answers) {
		return 0
	}
	r.used++
	a := r.answers[i]
	if a >= n && r.err == nil {
		r.err = fmt.Errorf("choice %d (a %v choice of G%d) has %d answers, the schedule gives %d", i+1, kind, g, n, a)
		return 0
	}
	return a
}

// Err reports a schedule that did not fit the run: an answer out of range,
// or answers left over when the run ended.
func (r *Replay) Err() error {
	if r.err != nil {
		return r.err
	}
	if r.used < len(r.answers) {
		return fmt.Errorf("the run met %d choice points, the schedule has %d answers", r.used, len(r.answers))
	}
	return nil
}
