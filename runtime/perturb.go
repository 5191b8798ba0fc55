// Perturbations: schedules that timing would produce.
//
// A deterministic run shows one schedule. Real programs meet others because
// durations vary, threads wake up late and preemption strikes wherever a
// signal lands. Perturb turns such variations on, each drawn from the run's
// one PRNG, so that exploring seeds explores schedules and any seed replays
// exactly.
//
// Schedules Go itself could produce: duration jitter, thread wake-up
// latency, threads that lose their CPU to the OS for a while (Stalls: the
// G stays running on its P, as in Go, where the OS descheduling a thread
// switches no goroutine), and preemption at safe points (async preemption
// can stop a G at almost any instruction). Beyond Go: RunnextFlip is what the race
// detector's randomizeScheduler does (a G meant for runnext goes to the
// tail of the ring half the time), which a race-free build never does; and
// PCT change points force preemptions at chosen points in the run, in the
// manner of Burckhardt et al., "A Randomized Scheduler with Probabilistic
// Guarantees of Finding Bugs" (ASPLOS 2010), which may preempt a G sooner
// than sysmon ever would.

package runtime

// Perturb says which variations a run draws from its PRNG. The zero value
// perturbs nothing.
type Perturb struct {
	// Jitter scales each work, sleep and syscall duration by a factor
	// drawn uniformly from [1-Jitter, 1+Jitter]; 0 ≤ Jitter < 1.
	Jitter float64
	// WakeupJitter adds a latency drawn from [0, WakeupJitter] ns to every
	// M started by startm, on top of the profile's wakeup cost.
	WakeupJitter int64
	// SampleCosts draws every cost of Config.Costs from its distribution
	// each time it is charged, rather than charging its median.
	SampleCosts bool
	// QuantumJitter draws each quantum of steps (G.StepBudget) uniformly
	// from [1, 2*quantum-1], so that the points where two Ps' code
	// interleaves vary with the seed.
	QuantumJitter bool
	// PreemptProb is the chance that a G is preempted at a safe point
	// (the start of work, or SafePoint), as if sysmon's signal landed
	// there.
	PreemptProb float64
	// RunnextFlip sends a G meant for runnext to the tail of the ring
	// half the time, as the race detector's randomizeScheduler does.
	RunnextFlip bool
	// PCTDepth is the number of PCT change points: at each, the running
	// G is preempted. The points are drawn among the first PCTSteps
	// safe points of the run.
	PCTDepth int
	PCTSteps int
	// Stalls makes threads lose their CPU now and then while their G runs
	// code, as the OS takes a CPU for an interrupt or another thread: at
	// a safe point or the end of a quantum of steps (RanSteps), once its
	// M has run for a time drawn from the profile's
	// stall_every since its last stall, the G's P spends a time drawn
	// from stall, the G still running on it. Only with SampleCosts: a run
	// that charges medians has no stalls.
	Stalls bool
}

// initPerturb draws the PCT change points.
func (m *Machine) initPerturb() {
	p := &m.cfg.Perturb
	if p.PCTDepth <= 0 {
		return
	}
	if p.PCTSteps <= 0 {
		p.PCTSteps = 1000
	}
	m.pctPoints = make(map[int64]bool, p.PCTDepth)
	for range p.PCTDepth {
		m.pctPoints[int64(m.cheaprandn(uint32(p.PCTSteps)))+1] = true
	}
}

// jitter returns d scaled by the configured jitter.
func (m *Machine) jitter(d int64) int64 {
	j := m.cfg.Perturb.Jitter
	if j <= 0 || d <= 0 {
		return d
	}
	f := 1 - j + 2*j*m.rng.Float64()
	if x := float64(d) * f; x < maxWhen {
		return max(int64(x), 0)
	}
	return maxWhen // a float64 past 2^63 has no int64 (clockend.go)
}

// wakeupLatency is the delay from startm to the M running schedule: the
// wakeup cost, plus the jitter of the perturbation.
func (m *Machine) wakeupLatency() int64 {
	return addWhen(m.costOf(CostWakeup), m.wakeupJitter())
}

// wakeupJitter is the perturbation's extra latency of a thread wake-up.
func (m *Machine) wakeupJitter() int64 {
	if wj := m.cfg.Perturb.WakeupJitter; wj > 0 {
		return int64(m.rng.Uint64N(uint64(wj) + 1))
	}
	return 0
}

// flipRunnext reports whether a runnext put goes to the ring instead.
func (m *Machine) flipRunnext() bool {
	return m.cfg.Perturb.RunnextFlip && m.cheaprandn(2) == 0
}

// perturbPreempt reports whether gp, at a safe point, is to be preempted
// by a perturbation or by the Chooser (choice.go).
func (m *Machine) perturbPreempt(gp *G) bool {
	if m.cfg.Chooser != nil {
		return m.chooserPreempt(gp)
	}
	p := &m.cfg.Perturb
	if p.PreemptProb <= 0 && m.pctPoints == nil {
		return false
	}
	m.safePoints++
	if m.pctPoints[m.safePoints] {
		return true
	}
	return p.PreemptProb > 0 && m.rng.Float64() < p.PreemptProb
}

// stall spends a thread stall's time on g's P if g's M is due one (see
// Perturb.Stalls), and reports whether g gave up the baton meanwhile. The
// first check of an M since it last woke (a new M, or one back from
// stopm) only draws when its first stall is due, from stall_wake_at, and
// that stall lasts a stall_wake; the stalls after it come every
// stall_every and last a stall. A profile without the two wake costs
// draws the first as the others (Costs.charged): a thread just woken on a
// virtual machine can lose its CPU for tens of µs within a few µs
// (docs/faithfulness.md, "close_wake's two phases"), which a profile
// that has them says. While the run is young, the stalls draw
// stall_early and stall_early_every where the profile has them
// (stallCost).
func (g *G) stall() bool {
	m := g.m
	if !m.cfg.Perturb.Stalls || !m.sampleCosts {
		return false
	}
	mp := g.mp
	if mp == nil {
		return false
	}
	if mp.stallAt == 0 {
		mp.stallAt = m.when(max(m.costOf(m.stallCost(CostStallWakeAt)), 1))
		mp.stallWoken = true
		return false
	}
	if m.now < mp.stallAt {
		return false
	}
	length := CostStall
	if mp.stallWoken {
		length, mp.stallWoken = CostStallWake, false
	}
	yielded := g.spend(m.costOf(m.stallCost(length)), true)
	mp.stallAt = m.when(max(m.costOf(m.stallCost(CostStallEvery)), 1))
	return yielded
}

// stallCost returns the cost a stall's draw of k takes now: while the
// run is young (its clock less main.main's start, Machine.mainAt, before
// stall_early_until: the stall probe's window starts in its main.main
// too) a stall or the
// running before one draws the young run's own (stall_early,
// stall_early_every), unless k is a woken thread's first stall that the
// profile gives its own.
func (m *Machine) stallCost(k CostKind) CostKind {
	if m.now-m.mainAt >= m.stallEarlyUntil {
		return k
	}
	switch m.charged[k] {
	case CostStall:
		return CostStallEarly
	case CostStallEvery:
		return CostStallEarlyEvery
	}
	return k
}

// SafePoint is a point where g may be preempted: the language calls it at
// every builtin call. Without perturbations it does nothing (sysmon's
// preemption happens in Work and Preempt); with them, g may be preempted
// here and go to the global queue.
func (g *G) SafePoint() {
	g.check()
	g.stall()
	if g.m.perturbPreempt(g) {
		g.m.goschedImpl(g, true)
		g.co.yield()
		return
	}
	if g.m.cfg.Chooser != nil {
		if g.m.chooserInterleave(g) {
			g.interleave()
		} else if d := g.m.chooserStall(g); d > 0 {
			// Off the CPU until the next event is due, and back only
			// after what is due then has run.
			g.spend(d, true)
			g.interleave()
		}
	}
}
