// Ps in parallel: code takes time on its P's clock.
//
// With a costs profile (costs.go), a goroutine's own code takes virtual
// time: the language tells the engine, through G.RanSteps, how many steps
// of code a G has run, and the G's P spends that many step costs. The
// runtime's own work is charged the same way: newproc to the spawning G,
// entersyscall and exitsyscall to the G in the call. Spending time is
// what G.Work does: the G stays _Grunning on its P, an action to resume it
// is queued at the end, and the baton goes back to the run loop, which
// performs every action due before it (another P's G resuming, an M
// woken by wakep, sysmon, a timer) first. So each P has its own clock,
// the time of its next action, and the run loop always moves the P whose
// clock is earliest, ties in the order the actions were queued. Two
// goroutines on two Ps running code then interleave on the clock as
// parallel code does, and a plain value that both update loses updates.
//
// The step is the atom: a step of one goroutine's code runs whole, never
// half on either side of another P's. Stopping after every step would
// make a switch of coroutines per step, so a goroutine runs a quantum of
// steps (Config.Quantum, DefaultQuantum) before the language charges them
// (G.StepBudget says how many), and the interleaving of two Ps running
// code is exact to a quantum: within it one G's steps take effect
// together, at the time the quantum starts. Builtin calls charge the steps
// before them, so what a goroutine does to the scheduler (a send, a
// print, a spawn) happens at its exact time. Perturb.QuantumJitter draws
// each quantum from the seed, so that exploring seeds moves the points
// where two Ps' code interleaves.
//
// Spending time is cheap when nothing else can happen meanwhile: when the
// earliest queued action is later than the end of the charge, the clock
// just moves on (runAhead), with no switch to the run loop, which is what
// the loop would have done next (up to a millisecond of code at a time, so
// that a host driving the Machine Step by Step sees a Step end). A run with one busy P therefore costs
// little more than one whose code is free.
//
// Which costs are preemptible: the goroutine's code is (sysmon preempts a
// G whose P has run the same time slice for 10ms in the middle of a
// charge, as asynchronous preemption stops Go code at almost any
// instruction); the runtime's own costs are not (newproc and the syscall
// paths run on the system stack in Go), so a preemption requested during
// one waits for the next safe point.

package runtime

import "math"

// DefaultQuantum is the number of steps a goroutine runs before the engine
// lets the other Ps catch up with its clock, when Config.Quantum is 0. It
// is chosen for speed: switching to the run loop and back costs about as
// much as 30 Starlark steps, so with 64 two Ps running code in parallel
// cost less than 1.5 times the same steps on one P (docs/performance.md),
// while a loop of a few statements is still cut at varying points.
const DefaultQuantum = 64

// initCosts takes the medians of the profile.
func (m *Machine) initCosts() {
	m.quantum = m.cfg.Quantum
	if m.quantum == 0 {
		m.quantum = DefaultQuantum
	}
	c := m.cfg.Costs
	if c == nil {
		return
	}
	for k := range m.cost {
		m.charged[k] = c.charged(CostKind(k))
		m.cost[k] = c.Dists[m.charged[k]].Median()
	}
	m.stepKinds = c.ByKind()
	for i, k := range fastPathCosts {
		m.fastPaths[i] = !c.Dists[k].IsZero()
	}
	m.timerFirst = !c.Dists[CostTimerFirst].IsZero()
	m.printPFirst = !c.Dists[CostPrintPFirst].IsZero()
	m.semaFirst = !c.Dists[CostSemaFirst].IsZero()
	if !c.Dists[CostStallEarly].IsZero() || !c.Dists[CostStallEarlyEvery].IsZero() {
		m.stallEarlyUntil = c.Dists[CostStallEarlyUntil].Median()
	}
	m.sysmonRanks = c.SysmonLateRank
	m.sysmonLate = !c.Dists[CostSysmonLate].IsZero() || len(m.sysmonRanks) > 0
	m.stepPs = !c.Dists[CostStepPs].IsZero() || m.stepKinds
	m.stepCosts = m.stepPs || !c.Dists[CostStep].IsZero()
	m.sampleCosts = m.cfg.Perturb.SampleCosts && !c.IsZero()
}

// costOf returns what cost k charges now: its median, or with
// Perturb.SampleCosts a value drawn from its distribution.
func (m *Machine) costOf(k CostKind) int64 {
	if m.sampleCosts {
		return m.cfg.Costs.Dists[m.charged[k]].Sample(m.rng)
	}
	return m.cost[k]
}

// Costs returns the profile the Machine charges (nil for the zero
// profile).
func (m *Machine) Costs() *Costs { return m.cfg.Costs }

// StepsTakeTime reports whether a step of a goroutine's code costs virtual
// time. When it does, the time slice is sysmon's 10ms of the P's clock, as
// in Go; when it does not, the language counts the slice in steps.
func (m *Machine) StepsTakeTime() bool { return m.stepCosts }

// quantum returns how many steps g may run before it must call RanSteps,
// so that the other Ps' clocks can catch up with its own: the quantum, or
// with Perturb.QuantumJitter a number drawn from [1, 2*quantum-1] (the
// quantum on average). When steps cost nothing there is no quantum
// (math.MaxUint64): the code runs in one instant. It is StepBudget's first
// budget (steps.go).
func (g *G) quantum() uint64 {
	m := g.m
	if !m.stepCosts {
		return math.MaxUint64
	}
	if m.cfg.Perturb.QuantumJitter && m.quantum > 1 {
		return 1 + m.rng.Uint64N(2*m.quantum-1)
	}
	return m.quantum
}

// RanSteps tells the engine that g has run n steps of its code since it
// last said so. They count in g's and its P's step-counted time slice
// (steps.go), and g's P spends n step costs of virtual time, during which
// the actions of other Ps due before the end run first. A preemption
// requested meanwhile (sysmon's, in the middle of the charge or at its
// end) happens here, before g runs more code. It reports whether g gave
// up the baton, so that a caller knows other goroutines ran meanwhile.
func (g *G) RanSteps(n uint64) bool {
	if n == 0 {
		return false
	}
	g.countSteps(n)
	m := g.m
	if !m.stepCosts {
		return false
	}
	yielded := g.spend(g.stepTime(n), true)
	if !yielded {
		// A thread can lose its CPU between any two steps: here at
		// the quantum's end as at a safe point (Perturb.Stalls).
		yielded = g.stall()
	}
	if g.preempt && !m.cfg.NoPreempt {
		g.preempt = false
		m.goschedImpl(g, true)
		g.co.yield()
		yielded = true
	}
	return yielded
}

// A StepKind is the kind of statement a goroutine's steps belong to, as
// calibrate times them (internal/calibrate, step.go): a profile may give
// each its own step cost (step_ps_plain, ...), which a step of that kind
// is charged instead of step_ps. The language says which kind its
// goroutine runs (G.SetStepKind); StepAny is step_ps itself.
type StepKind uint8

// The kinds of step.
const (
	StepAny    StepKind = iota // step_ps: the kinds pooled
	StepPlain                  // arithmetic on a variable: x = x + 1
	StepIndex                  // on a list element: a[i % 8] = a[i % 8] + 1
	StepMap                    // a map update: d["k"] = d["k"] + 1
	StepAppend                 // an append: s.append(i)
	StepCall                   // a call of the program's own function: x = inc(x)
	StepFormat                 // a string formatted: t = "n%d" % i
	StepCell                   // a cell, a one-element list standing for a Go variable: c[0] = c[0] + 1
	numStepKinds
)

// stepKindCosts is the cost of each kind of step.
var stepKindCosts = [numStepKinds]CostKind{CostStepPs, CostStepPsPlain, CostStepPsIndex, CostStepPsMap, CostStepPsAppend, CostStepPsCall, CostStepPsFormat, CostStepPsCell}

// ByKind reports whether c charges a step by its kind of statement: it
// gives one of step_ps_plain, step_ps_index, ... (a nil c does not).
func (c *Costs) ByKind() bool {
	if c == nil {
		return false
	}
	for _, k := range stepKindCosts[1:] {
		if !c.Dists[k].IsZero() {
			return true
		}
	}
	return false
}

// Cost returns the cost that charges a step of kind k: step_ps for
// StepAny, step_ps_plain for StepPlain, and so on.
func (k StepKind) Cost() CostKind {
	if k >= numStepKinds {
		return CostStepPs
	}
	return stepKindCosts[k]
}

// StepsByKind reports whether the profile charges steps by their kind
// (it has step_ps_plain or another): only then need the language say
// which kind a goroutine runs.
func (m *Machine) StepsByKind() bool { return m.stepKinds }

// SetStepKind says that g's steps from now on, until it says otherwise,
// are of kind k: the next RanSteps charges them at k's cost.
func (g *G) SetStepKind(k StepKind) {
	if k < numStepKinds {
		g.stepKind = k
	}
}

// stepTime returns the ns that n steps of g's code take: n step costs.
// Under a profile with step_ps the steps are charged in picoseconds, and
// what is less than a whole ns waits in g.stepCarry for g's next steps, so
// that a loop of steps costing a tenth of a ns each takes a tenth of their
// number in ns, not one ns each (step's whole ns, rounded up).
func (g *G) stepTime(n uint64) int64 {
	m := g.m
	if m.stepPs {
		kind := stepKindCosts[g.stepKind]
		c := m.cost[kind]
		if m.sampleCosts {
			// One draw for the G's life: step_ps's spread is over
			// kinds of statement, and a G's code is of one kind, not
			// a new one every quantum (whose mean, the tail's, would
			// be many times the median). The draw is a point of the
			// distribution, which each kind's cost is read at.
			if !g.stepDrawn {
				g.stepDraw, g.stepDrawn = m.rng.Float64(), true
			}
			c = max(m.cfg.Costs.Dists[m.charged[kind]].at(g.stepDraw), 1)
		}
		if c > 0 && n >= uint64(math.MaxInt64-g.stepCarry)/uint64(c) {
			return math.MaxInt64
		}
		ps := g.stepCarry + int64(n)*c
		g.stepCarry = ps % 1000
		return ps / 1000
	}
	c := m.costOf(CostStep)
	if c > 0 && n >= uint64(math.MaxInt64/c) {
		return math.MaxInt64
	}
	d := int64(n) * c
	if g.stepCarry != 0 { // fast paths' ns (fastPath)
		d += g.stepCarry / 1000
		g.stepCarry %= 1000
	}
	return d
}

// fastPathCosts are the costs of G.fastPath: what an operation that does
// not park costs its goroutine.
var fastPathCosts = [numFastPaths]CostKind{CostChanOp, CostSyncOp, CostNotewakeup}

// A fastPath is an operation that completed without parking, on the
// goroutine's own CPU: its cost is chan_op, sync_op or notewakeup.
type fastPath uint8

const (
	chanOp       fastPath = iota // a channel operation through the channel's lock (chan_op)
	syncOp                       // an atomic fast path (sync_op)
	wakeOp                       // the futex wake of a parked M (notewakeup; Machine.chargeWaker)
	numFastPaths                 // the number of fast paths
)

// fastPath charges g the CPU of an operation that completed without
// parking, chan_op, sync_op or notewakeup, with its next steps: the ns
// wait in g.stepCarry, which the next RanSteps spends with the steps, so
// the operation takes no switch or safe point of its own, as in Go, where
// it is the goroutine's own code or system call. A profile without the
// cost (the zero profile, or one written before it) charges nothing and
// draws nothing. Mirrors the fast paths of chansend, chanrecv, closechan,
// selectgo, and sync's Lock, Unlock, Add and the rest (costs.go).
func (g *G) fastPath(op fastPath) {
	m := g.m
	if !m.fastPaths[op] {
		return
	}
	g.stepCarry += m.costOf(fastPathCosts[op]) * 1000
}

// spend moves g's P's clock d ns on while g holds it, running: the
// goroutine's code (preemptible, as Work) or the runtime's own work on
// its behalf (not preemptible: a preemption sysmon asks for meanwhile
// waits for the next safe point). It reports whether g gave up the baton.
func (g *G) spend(d int64, preemptible bool) bool {
	m := g.m
	if d <= 0 {
		return false
	}
	if m.runAhead(d) {
		return false
	}
	g.workLeft = d
	for g.workLeft > 0 {
		left := g.workLeft
		if preemptible {
			g.workUntil = m.when(left)
		}
		m.after(left, action{kind: actResume, gp: g, gen: g.gen})
		g.co.yield()
		// Resumed when the time is spent (workLeft is 0) or, after a
		// preemption, to spend what is left.
	}
	return true
}

// runAhead moves the clock d ns on at once if nothing could happen
// meanwhile: every queued action is due later, no limit of virtual time
// is crossed and nobody asked the run to stop. It is what queueing an
// action at now+d and running the loop would do, without the switch.
func (m *Machine) runAhead(d int64) bool {
	if noRunAhead {
		return false
	}
	if d >= maxWhen-m.now {
		return false // the end of the clock: let the loop's limit deal with it (clockend.go)
	}
	until := m.now + d
	if len(m.actions) > 0 && m.actions[0].when <= until {
		return false
	}
	if until-m.resumedAt > maxRunAhead {
		return false // let the host see a Step end now and then
	}
	if m.cfg.MaxTime > 0 && until > m.cfg.MaxTime {
		return false
	}
	if m.interrupted.Load() != nil {
		return false
	}
	if m.cfs != nil {
		if _, ok := m.quotaRunsOut(until); ok {
			return false // the run loop throttles the process on the way
		}
		m.account(until)
	}
	if m.onAdvance != nil {
		m.onAdvance(until)
	}
	m.now = until
	return true
}

// maxRunAhead bounds how far a G runs ahead of the time it was resumed at
// before it goes through the run loop anyway: a Step must end now and then
// for a host that drives the Machine Step by Step (the REPL checks for
// Ctrl-C between Steps). A millisecond of code is about as many steps as
// the language's step-counted time slice of the zero profile.
const maxRunAhead = 1000 * 1000

// noRunAhead turns runAhead off, for the test that shows it changes
// nothing.
var noRunAhead = false

// spendCost charges cost k of the runtime's own work to g (not
// preemptible).
func (g *G) spendCost(k CostKind) {
	if d := g.m.costOf(k); d > 0 {
		g.spend(d, false)
	}
}
