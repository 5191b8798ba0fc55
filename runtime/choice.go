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
//     the same P at once: the same schedule, counted twice. Nor is it
//     asked when only the runtime's own goroutines wait (startup.go):
//     they park at once and touch nothing of the program's, so running
//     them first gives the program's schedule again.
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
//   - ChoiceStall, only with Config.ChooseStalls, at a safe point where
//     the G runs on (neither preempted nor interleaved) and something of
//     the process other than sysmon is due later (a timer, another P's
//     G, a thread's wake-up, the world outside): 0 goes on; 1 makes the
//     G's thread lose its CPU until then, and until what is due then has
//     run, the G still on its P and its M, as the OS can deschedule a
//     thread for any time. A longer stall is several: each one lasts to
//     the next event. The time passes
//     for that thread alone: timers fire and other Ps run meanwhile,
//     and sysmon goes on ticking (and may ask for a preemption). It is
//     the one choice that moves the clock: without it a preempted G
//     resumes at the same instant when nothing else can run, so a bug
//     that needs a goroutine late by more than a sleep is out of reach.
//     It counts as a preemption for a bound.
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
//
// A Chooser that is also a Tracker is told, besides, what each stretch of
// a goroutine between two choice points touches (channels, mutexes, wait
// groups, conds, semaphores, the release of a spawned or woken
// goroutine), and who a preemption would run: the footprints that
// schedlab check's partial-order reduction compares (internal/check,
// dpor.go). Recording them changes no schedule.

package runtime

import "fmt"

// A ChoiceKind names a kind of choice point.
type ChoiceKind uint8

// The choice points.
const (
	ChoicePreempt    ChoiceKind = iota // at a safe point: 0 runs on, 1 preempts
	ChoiceSelect                       // a select's winner among its ready cases
	ChoiceInterleave                   // at a safe point: 0 runs on, 1 lets what else is due now go first
	ChoiceStall                        // at a safe point: 0 runs on, 1 loses the CPU until the next action of the process is due
)

func (k ChoiceKind) String() string {
	switch k {
	case ChoicePreempt:
		return "preempt"
	case ChoiceSelect:
		return "select"
	case ChoiceInterleave:
		return "interleave"
	case ChoiceStall:
		return "stall"
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
	if pp.runnext == nil && pp.runqhead == pp.runqtail && m.runq.size == 0 || !m.programGQueued(pp) {
		return false
	}
	if m.tracker != nil {
		m.tracker.Alternative(m.alternative(gp, pp))
		if st, ok := m.tracker.(StateTracker); ok {
			st.Preempting(gp)
		}
	}
	return m.choose(ChoicePreempt, gp, 2) == 1
}

// programGQueued reports whether one of the program's goroutines, not only
// the runtime's own (G.system, startup.go), waits in pp's runnext, in its
// local run queue or in the global queue. A preemption that could run
// only the runtime's goroutines is not a choice: they park at once and
// touch nothing of the program's, so it would give the program's schedule
// again, counted twice.
func (m *Machine) programGQueued(pp *P) bool {
	if pp.runnext != nil && !pp.runnext.system {
		return true
	}
	for i := pp.runqhead; i != pp.runqtail; i++ {
		if !pp.runq[i%runqSize].system {
			return true
		}
	}
	for gp := m.runq.head; gp != nil; gp = gp.schedlink {
		if !gp.system {
			return true
		}
	}
	return false
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

// chooserStall returns how long gp's thread loses its CPU at this safe
// point: until the next action of the process other than sysmon's is
// due, if the Chooser says so, or 0. It is asked only with
// Config.ChooseStalls and when such an action is queued for later.
func (m *Machine) chooserStall(gp *G) int64 {
	if !m.cfg.ChooseStalls || gp.mp == nil || gp.mp.p == nil {
		return 0
	}
	next := int64(-1)
	for _, a := range m.actions {
		if a.kind != actSysmon && a.when > m.now && a.when != maxWhen && (next < 0 || a.when < next) {
			next = a.when
		}
	}
	if next < 0 || m.choose(ChoiceStall, gp, 2) == 0 {
		return 0
	}
	return next - m.now
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

// An Access is how a transition touched a shared object (Tracker.Touch).
type Access uint8

// The accesses. Two accesses of one object by two goroutines are
// dependent, their order telling, when one of them is AccessWrite. A
// Release and the Acquire after it order the two transitions (a
// happens-before edge) without being a race: a spawn or a wake-up and the
// goroutine's next run. Park and Exit say what became of a goroutine.
const (
	AccessRead    Access = iota // reads the object's state (a select that finds nothing ready, len)
	AccessWrite                 // changes the object or what its waiters see
	AccessRelease               // makes a goroutine runnable: its next run happens after this
	AccessAcquire               // the goroutine's run after a Release
	AccessPark                  // the goroutine blocks
	AccessExit                  // the goroutine ends
)

// A GKey is a goroutine as an object: a spawn and a wake-up release it
// (AccessRelease), a park parks it, an exit ends it.
type GKey int64

// A ParkKey is a goroutine's park/ready slot (G.Park, G.Ready): a ready of
// a goroutine not parked is an error, so the two are dependent.
type ParkKey int64

// A Tracker is told what each transition of a run does: the footprint
// that dynamic partial-order reduction (internal/check) compares. A
// transition is what one goroutine does from when it starts running (or
// goes on from a choice point) until it stops or meets the next choice
// point; what runs outside any goroutine (a timer firing, the world, the
// scheduler) is a transition of goroutine 0. The Machine uses the Chooser
// as its Tracker when the Chooser implements it; with none it records
// nothing, and a run is the same either way.
type Tracker interface {
	// Running says that g, or with g 0 no goroutine, runs from now on.
	Running(g int64)
	// Touch records an access of obj by the running transition. Objects
	// are compared by identity: a *Chan, *Mutex, *WaitGroup, *RWMutex,
	// *Cond, *Weighted, a GKey, a ParkKey, or a key of the caller's.
	Touch(obj any, a Access)
	// Alternative is called just before a ChoicePreempt is asked, with
	// the goroutine the P would run if the running one were preempted;
	// 0 when that is not known for sure (more than one P, a timer due).
	Alternative(g int64)
}

// touch records an access of obj when a Tracker is set.
func (m *Machine) touch(obj any, a Access) {
	if m.tracker != nil {
		m.tracker.Touch(obj, a)
	}
}

// touchG is touch of goroutine goid (GKey). The key is made into an
// interface only when a Tracker is set: a goid past 255 boxed for touch
// is a heap allocation, two on every goroutine's life and one on every
// park and ready, with no Tracker to see it.
func (m *Machine) touchG(goid int64, a Access) {
	if m.tracker != nil {
		m.tracker.Touch(GKey(goid), a)
	}
}

// touchPark is touchG of goroutine goid's park/ready slot (ParkKey).
func (m *Machine) touchPark(goid int64, a Access) {
	if m.tracker != nil {
		m.tracker.Touch(ParkKey(goid), a)
	}
}

// Touch records an access of obj by the running transition when the
// Chooser tracks footprints (Tracker); the language calls it for what the
// engine does not see: a builtin's own state, the output. Without a
// Tracker it does nothing.
func (m *Machine) Touch(obj any, a Access) { m.touch(obj, a) }

// Tracking reports whether the Machine records footprints, so that a
// caller can skip building what it would pass to Touch.
func (m *Machine) Tracking() bool { return m.tracker != nil }

// alternativeTimerSlack is how soon a timer due makes alternative unsure.
const alternativeTimerSlack = 100_000

// alternative returns the G that pp's M would run next if gp, running on
// it, were preempted now (goschedImpl, then findRunnable), or 0 when that
// is not sure: more than one P, or a timer due on pp that checkTimers
// would run first.
func (m *Machine) alternative(gp *G, pp *P) int64 {
	if m.gomaxprocs != 1 || m.gc.marking || m.cfg.Sched != (Policy{}) || len(m.actions) > 0 && m.actions[0].when <= m.now {
		return 0
	}
	if len(pp.timers) > 0 && pp.timers[0].when <= m.now+alternativeTimerSlack {
		return 0 // it may fire during the gosched's cost and ready a G first
	}
	if pp.schedtick%61 == 0 {
		// findRunnable's fairness check takes the global queue's head:
		// gp itself, at its tail, if the queue was empty.
		if h := m.runq.head; h != nil {
			if h.system {
				return 0 // it parks, and the P looks again
			}
			return h.goid
		}
		return gp.goid
	}
	// The runtime's own goroutines (startup.go) ahead of the program's
	// run first and park at once; then the P looks again, in the same
	// order, a schedtick later each time.
	skipped := uint32(0)
	var next *G
	take := func(g *G) bool {
		if g.system {
			skipped++
			return false
		}
		next = g
		return true
	}
	found := pp.runnext != nil && take(pp.runnext)
	for i := pp.runqhead; !found && i != pp.runqtail; i++ {
		found = take(pp.runq[i%runqSize])
	}
	for g := m.runq.head; !found && g != nil; g = g.schedlink {
		found = take(g)
	}
	if !found {
		return 0
	}
	for t := uint32(1); t <= skipped; t++ {
		if (pp.schedtick+t)%61 == 0 {
			return 0 // the fairness check may take the global queue's head first
		}
	}
	return next.goid
}
