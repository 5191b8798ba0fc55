// The garbage collector's side of the Machine: the heap the program
// allocates, and the cycles the pacer starts.
//
// A Go program's heap grows by every allocation (mallocgc) and shrinks
// only when a cycle has marked what is still reachable and the sweeper
// has freed the rest. The pacer (mgcpacer.go) counts the heap as
// heapLive: the bytes the last cycle marked plus every byte allocated
// since. When heapLive reaches the trigger, the allocation that crossed
// it starts a cycle (mallocgc → gcTrigger{kind: gcTriggerHeap}.test →
// gcStart), and runtime.GC starts one whatever the heap
// (gcTriggerCycle).
//
// A Starlark value has no size the program can reason about, so the
// script says what it allocates (the language's alloc, retain and
// release):
//
//   - Alloc(n) is an object that dies young: it adds n to heapLive and is
//     garbage by the next cycle;
//   - Retain(n) is an object that stays reachable: it adds n to heapLive
//     and to the retained heap, which the next cycle marks;
//   - ReleaseHeap(n) drops the last reference to n retained bytes: they stay
//     in heapLive, as garbage, until a cycle finds them unmarked (freeing
//     memory does not shrink the heap in Go either).
//
// Go checks the trigger when an mcache refills a span, so a cycle can
// start a span's worth of bytes late; here every allocation checks it.
//
// The cycle, under GCInstant (the default). Until the phases of a cycle
// are modelled (the mark workers on Ps, assists, the sweep), a cycle is
// instantaneous and changes no schedule: gcStart calls
// startCycle (which computes the worker split, kept for stats), the mark
// finds the retained heap, the goroutines' stacks and the globals
// (gcMarkDone → endCycle), and mark termination resets the pacer to the
// marked heap (resetLive) and commits the next goal and trigger
// (gcControllerCommit), with the sweep just begun as in Go
// (commit(isSweepDone() == false)). A program that never allocates never
// reaches the trigger and schedules exactly as before; so does one that
// allocates, since an instant cycle moves no clock and takes no P.
//
// Under GCStopTheWorld (--gc-cycle=stw) the cycle has its two pauses: the
// G that starts it stops the world for sweep termination (gcStart →
// stopTheWorldWithSema(stwGCSweepTerm): every other P stops, a G running
// there is preempted into its runnext, idle and syscall Ps are taken),
// holds it for the costs profile's gc_sweep_term, then, the mark taking
// no time yet, for gc_mark_term (gcMarkDone → stopTheWorldWithSema
// (stwGCMarkTerm), gcMarkTermination), and starts the world
// (startTheWorldWithSema). While the world is stopped nothing of the
// process runs; the world outside goes on, and a syscall that returns
// finds no P (exitsyscallNoP).
//
// Under GCMark (--gc-cycle=mark) the mark between the pauses takes time:
// the G that starts the cycle starts the world again after sweep
// termination with the mark on (gcMarkStart) and goes on. The mark work,
// the retained heap, the stacks and the globals at the costs profile's
// gc_mark_mib, is done by mark workers, Gs of the runtime kept parked in
// a pool, that Ps take in a mode: findRunnable asks findRunnableGCWorker
// for a dedicated worker while startCycle's split wants one, else for
// the fractional worker while the P is under its goal, and takes an idle
// worker rather than give up its P (findRunnableGCIdle). Workers mark in
// chunks (gcDrain), and the one that finishes the last chunk ends the
// cycle (gcMarkDone): mark termination stops the world it started. A
// goroutine that allocates during the mark pays for it with mark assists
// (mgcmark.go), unless --gc-assist=off.
//
// Invariants:
//
//   - 0 <= retained and retained <= heapLive: retained bytes were counted
//     into heapLive when retained, and a cycle resets heapLive to them;
//   - under GCInstant and GCStopTheWorld no cycle is running between two
//     builtin calls (gcphase == _GCoff): a cycle starts and ends within
//     the call that triggers it; under GCMark a cycle is on (marking)
//     from the end of sweep termination to mark termination, and no
//     other starts meanwhile;
//   - while marking, markLeft >= 0 and markBusy counts the workers and
//     assists in the middle of a chunk; the cycle ends when both are 0;
//   - stwUntil is 0 unless a G holds the stopped world for a pause, and
//     then no action of the process but that G's resumption and syscall
//     returns is due before it.

package runtime

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// GCCycle says how much of a GC cycle the Machine models (Config.GCCycle).
// Each value models what the one before it does, and more.
type GCCycle uint8

// How much of a cycle is modelled.
const (
	GCInstant      GCCycle = iota // a cycle takes no time and changes no schedule
	GCStopTheWorld                // sweep termination and mark termination stop the world
	GCMark                        // and the mark between them takes time: mark workers on Ps
)

var gcCycleNames = [...]string{GCInstant: "instant", GCStopTheWorld: "stw", GCMark: "mark"}

func (c GCCycle) String() string {
	if int(c) < len(gcCycleNames) {
		return gcCycleNames[c]
	}
	return fmt.Sprintf("GCCycle(%d)", int(c))
}

// GCCycleNames are the names ParseGCCycle takes, in order.
func GCCycleNames() []string { return gcCycleNames[:] }

// ParseGCCycle returns the GCCycle called name ("instant", "stw" or
// "mark").
func ParseGCCycle(name string) (GCCycle, error) {
	for i, n := range gcCycleNames {
		if n == name {
			return GCCycle(i), nil
		}
	}
	return 0, fmt.Errorf("unknown GC cycle model %q: want %s", name, strings.Join(gcCycleNames[:], ", "))
}

// gcState is the heap and the collector's part of the Machine.
type gcState struct {
	ctl            gcControllerState // the pacer (gcController)
	retained       int64             // bytes retained and not released: what the next mark finds
	retainedNoscan int64             // of those, the pointer-free ones: marked, not scanned
	noscanLive     uint64            // the pointer-free bytes counted in heapLive (heapLive - heapScan, outside a cycle)

	cycles         int64   // cycles started (work.cycles)
	ended          int64   // cycles ended (memstats.numgc)
	forced         int64   // of those, by GC (runtime.GC, work.userForced)
	lastDedicated  int64   // the last cycle's dedicated workers
	lastFractional float64 // and its fractional utilization goal

	stwUntil   int64 // the world is stopped until then (GCStopTheWorld), or 0
	pauseTotal int64 // ns of stop-the-world pauses in all
	pauseMax   int64 // the longest pause

	// The concurrent mark (GCMark).
	marking     bool     // the mark phase is on (gcBlackenEnabled != 0)
	markLeft    int64    // units of scan work (bytes) no worker or assist has taken yet
	rootsLeft   int64    // of markLeft, the root jobs' (globals and stacks), taken first
	markDone    int64    // units of scan work done this cycle (heapScanWork + stackScanWork + globalsScanWork)
	markBusy    int      // workers and assists in the middle of a chunk of mark work (work.nproc - work.nwait)
	markHeap0   uint64   // heapLive when the mark began: bytes allocated since are allocated black
	markRetain0 uint64   // the retained heap when the mark began
	markNoscan0 uint64   // noscanLive when the mark began
	markNoscanR uint64   // retainedNoscan when the mark began
	idleWorkers int32    // idle workers marking now (gcController.idleMarkWorkers)
	maxIdle     int32    // the most idle workers at once (setMaxIdleMarkWorkers)
	workers     []*G     // every mark worker made (gcBgMarkStartWorkers)
	pool        []*G     // the workers parked, waiting for a P (gcBgMarkWorkerPool)
	waiters     []*G     // Gs in GC waiting for the cycle to end (work.sweepWaiters)
	noDedicated bool     // tests only: startCycle's dedicated workers dropped (a broken split the tests must see)
	markTime    [3]int64 // ns of marking this cycle, by mode (dedicatedMarkTime, fractionalMarkTime, idleMarkTime)

	limiter gcCPULimiterState // the GC CPU limiter (mgclimit.go)

	// Mark assists (mgcmark.go).
	assistQueue gQueue // Gs parked in debt, waiting for the workers' credit (work.assistQueue)
	assistTime  int64  // ns of mark assists in all cycles
}

// gcMarkWorkerMode is the way a mark worker runs on its P. Mirrors
// gcMarkWorkerMode.
type gcMarkWorkerMode uint8

// The modes of a mark worker.
const (
	gcMarkWorkerNotWorker  gcMarkWorkerMode = iota // not marking
	gcMarkWorkerDedicated                          // takes its P for the whole mark, never preempted
	gcMarkWorkerFractional                         // marks on its P up to the fractional utilization goal
	gcMarkWorkerIdle                               // marks on a P that has nothing else to do, until it has
)

var gcMarkWorkerModeStrings = [...]string{"", "dedicated", "fractional", "idle"}

func (mode gcMarkWorkerMode) String() string { return gcMarkWorkerModeStrings[mode] }

// initGC sets up the heap and the pacer with the configuration's GOGC and
// memory limit (gcinit: gcController.init(readGOGC(), readGOMEMLIMIT())).
func (m *Machine) initGC() {
	gogc := int32(DefaultGOGC)
	if m.cfg.GOGC != nil {
		gogc = *m.cfg.GOGC
	}
	limit := int64(NoMemoryLimit)
	if m.cfg.MemoryLimit != nil {
		limit = *m.cfg.MemoryLimit
	}
	m.gc.ctl.init(gogc, limit)
}

// stackBytes is the stack memory of the goroutines alive now: fixedStack
// each, the runtime's own included (they are scanned too).
func (m *Machine) stackBytes() uint64 {
	return uint64(m.ngalive+m.ngsys) * fixedStack
}

// gcSyncMapped brings the memory limit's input up to date: the mapped
// memory is the heap (allocated and not yet swept) and the stacks.
func (m *Machine) gcSyncMapped() {
	c := &m.gc.ctl
	c.mappedReady = c.totalAlloc - c.totalFree + m.stackBytes()
}

// mallocgc counts n more bytes of heap allocated by g, retained or not,
// holding pointers or not (noscan), and starts a cycle if the heap has
// reached the trigger. The caller has checked n. During the mark, g first pays for the allocation with a
// mark assist if it is in debt (deductAssistCredit), which may park it or
// end the cycle, and then, the heap grown, revises the assist ratio.
// Mirrors mallocgc's accounting (deductAssistCredit,
// gcController.update with its revise, memstats' totalAlloc) and its
// trigger test (gcTrigger.test with gcTriggerHeap).
func (m *Machine) mallocgc(g *G, n int64, retain, noscan bool) {
	c := &m.gc.ctl
	if m.gc.marking {
		m.deductAssistCredit(g, n)
	}
	c.heapLive += uint64(n)
	c.totalAlloc += uint64(n)
	if noscan {
		m.gc.noscanLive += uint64(n)
	} else if !m.gc.marking {
		// heapScan is fixed while a cycle is on (gcController.update).
		c.heapScan += uint64(n)
	}
	if retain {
		m.gc.retained += n
		if noscan {
			m.gc.retainedNoscan += n
		}
	}
	m.gcSyncMapped()
	if m.gc.marking {
		m.gcRevise() // heapLive changed (gcController.update)
		return       // a cycle is on (gcTrigger.test: gcphase != _GCoff)
	}
	if trigger, _ := c.trigger(); c.heapLive >= trigger {
		m.gcStart(g, false)
	}
}

// gcStart runs one cycle on g, started by the heap reaching the trigger
// or forced by GC. Under GCInstant the cycle takes no time (see the top
// of the file); under GCStopTheWorld g stops the world for sweep
// termination and again for mark termination, each for its pause cost,
// and the mark between them takes no time. Under GCMark, g starts the
// world again after sweep termination with the mark on, and returns: the
// mark workers do the mark on Ps, and the last to finish ends the cycle
// (gcMarkDone). Mirrors gcStart.
func (m *Machine) gcStart(g *G, forced bool) {
	c := &m.gc.ctl
	procs := int(m.gomaxprocs)
	m.gcSyncMapped()
	m.gc.cycles++
	if forced {
		m.gc.forced++
	}
	m.gcStatsStart(forced)
	stw := m.cfg.GCCycle >= GCStopTheWorld
	if stw {
		why := "heap"
		if forced {
			why = "forced"
		}
		m.emit(EvGCBegin, g.mp.p, g.mp, g, nil, -1, m.gc.cycles, why)
		m.limiterStartGCTransition(true)
		m.stopTheWorldGC(g, CostGCSweepTerm, "GC sweep termination")
		m.limiterFinishGCTransition()
	}

	// Sweep termination, then the start of the mark.
	c.maxStackScan = m.stackBytes()
	c.startCycle(m.now, procs)
	m.gcStatsMarkStart()
	if m.gc.noDedicated {
		c.dedicatedMarkWorkersNeeded = 0
	}
	m.gc.lastDedicated = c.dedicatedMarkWorkersNeeded
	m.gc.lastFractional = c.fractionalUtilizationGoal

	// The mark: the retained heap, every goroutine's stack, the globals.
	// Pointer-free retained bytes are marked but not scanned: no work.
	m.gc.markHeap0 = c.heapLive
	m.gc.markRetain0 = uint64(m.gc.retained)
	m.gc.markNoscan0 = m.gc.noscanLive
	m.gc.markNoscanR = uint64(m.gc.retainedNoscan)
	c.heapScanWork = m.gc.retained - m.gc.retainedNoscan
	c.stackScanWork = int64(m.stackBytes())
	c.globalsScanWork = int64(c.globalsScan)
	if m.cfg.GCCycle >= GCMark {
		work := c.heapScanWork + c.stackScanWork + c.globalsScanWork
		if d := m.gcMarkTime(c.globalsScanWork+c.stackScanWork, c.heapScanWork); d > 0 {
			m.gcMarkStart(g, work, c.globalsScanWork+c.stackScanWork)
			return
		}
	}
	// No mark workers (GCInstant, GCStopTheWorld, or no mark cost): the
	// mark takes no time, and the world is not started between the two
	// pauses.
	m.gcMarkDone(g, false)
}

// gcMarkStart turns the mark on with work units of scan work, makes the mark
// workers if there are none yet (gcBgMarkStartWorkers: one per P, parked
// in the pool), starts the world, and asks for a worker (enlistWorker).
// Mirrors the end of gcStart: gcBgMarkPrepare, setGCPhase(_GCmark),
// gcController.startCycle's setMaxIdleMarkWorkers, startTheWorldWithSema.
func (m *Machine) gcMarkStart(g *G, work, roots int64) {
	c := &m.gc.ctl
	m.gc.marking = true
	m.gc.markLeft = work
	m.gc.rootsLeft = roots
	m.gc.markDone = 0
	m.gc.maxIdle = m.gomaxprocs - int32(c.dedicatedMarkWorkersNeeded) // setMaxIdleMarkWorkers
	for _, pp := range m.allp[:m.gomaxprocs] {
		pp.gcFractionalMarkTime = 0
		pp.gcAssistTime = 0
	}
	for len(m.gc.workers) < int(m.gomaxprocs) {
		// Made parked, with no GoCreate: it is first seen when
		// findRunnableGCWorker readies it (a GoUnblock).
		wp := m.newproc1(m.gcBgMarkWorker, g, g.mp.p, "runtime.gcBgMarkWorker")
		// Go's worker runs once to park itself in the pool; this one
		// is made parked, the status set without an edge.
		wp.waitreason = "GC worker (idle)"
		wp.status = Gwaiting
		m.gc.workers = append(m.gc.workers, wp)
		m.gc.pool = append(m.gc.pool, wp)
	}
	m.startTheWorld()
	m.enlistWorker(g)
}

// enlistWorker asks for a mark worker on another P: with dedicated or
// idle workers wanted, it wakes an idle P if there is one and no M spins
// (Green Tea, on in Go 1.26); else, with a dedicated worker wanted, it
// preempts a random other running P so that its schedule finds the
// worker. Mirrors gcControllerState.enlistWorker, which Go calls each
// time mark work is published; here once, when the mark starts.
func (m *Machine) enlistWorker(g *G) {
	c := &m.gc.ctl
	needDedicated := c.dedicatedMarkWorkersNeeded > 0
	needIdle := m.gc.idleWorkers < m.gc.maxIdle
	if !needDedicated && !needIdle {
		return
	}
	if len(m.pidle) != 0 && m.nmspinning == 0 {
		m.wakep()
		return
	}
	if !needDedicated || m.gomaxprocs <= 1 {
		return
	}
	myID := g.mp.p.id
	for range 5 {
		id := int32(m.cheaprandn(uint32(m.gomaxprocs - 1)))
		if id >= myID {
			id++
		}
		if pp := m.allp[id]; pp.status == Prunning && m.preemptone(pp) {
			return
		}
	}
}

// findRunnableGCWorker returns a mark worker for pp, or nil: a dedicated
// one while the cycle wants more, else the fractional one while pp has
// marked less than the fractional goal of the time since the mark began.
// Mirrors gcControllerState.findRunnableGCWorker and
// assignWaitingGCWorker.
func (m *Machine) findRunnableGCWorker(pp *P) *G {
	c := &m.gc.ctl
	if m.now-m.gc.limiter.lastUpdate > gcCPULimiterUpdatePeriod {
		m.limiterUpdate() // the limiter may have left room to turn off
	}
	if m.gc.markLeft <= 0 || len(m.gc.pool) == 0 { // gcShouldScheduleWorker; the pool
		return nil
	}
	if c.dedicatedMarkWorkersNeeded <= 0 && c.fractionalUtilizationGoal == 0 {
		return nil // no background workers wanted this cycle
	}
	var mode gcMarkWorkerMode
	if c.dedicatedMarkWorkersNeeded > 0 {
		c.dedicatedMarkWorkersNeeded--
		mode = gcMarkWorkerDedicated
	} else if c.fractionalUtilizationGoal == 0 {
		return nil
	} else {
		delta := m.now - c.markStartTime
		if delta > 0 && float64(pp.gcFractionalMarkTime)/float64(delta) > c.fractionalUtilizationGoal {
			return nil // this P has done its share
		}
		mode = gcMarkWorkerFractional
	}
	return m.gcWorkerGet(pp, mode)
}

// findRunnableGCIdle returns an idle mark worker for pp, which has
// nothing else to do, or nil. Mirrors the idle worker clause of
// findRunnable ("We have nothing to do") and addIdleMarkWorker.
func (m *Machine) findRunnableGCIdle(pp *P) *G {
	if !m.gc.marking || m.gc.markLeft <= 0 || len(m.gc.pool) == 0 || m.gc.idleWorkers >= m.gc.maxIdle {
		return nil
	}
	m.gc.idleWorkers++
	return m.gcWorkerGet(pp, gcMarkWorkerIdle)
}

// gcWorkerGet takes a worker from the pool to run on pp in mode, runnable.
func (m *Machine) gcWorkerGet(pp *P, mode gcMarkWorkerMode) *G {
	n := len(m.gc.pool)
	gp := m.gc.pool[n-1]
	m.gc.pool[n-1] = nil
	m.gc.pool = m.gc.pool[:n-1]
	gp.markMode = mode
	casgstatus(gp, Gwaiting, Grunnable)
	m.emit(EvGoUnblock, pp, pp.m, nil, gp, -1, 3, "")
	return gp
}

// gcBgMarkWorker is a mark worker's function: it marks on its P in the
// mode findRunnableGCWorker (or findRunnable) gave it, then parks in the
// pool. The worker that finishes the last of the mark work ends the
// cycle. Mirrors gcBgMarkWorker.
func (m *Machine) gcBgMarkWorker(g *G) error {
	for {
		m.gcDrain(g)
		g.markMode = gcMarkWorkerNotWorker
		m.gc.pool = append(m.gc.pool, g)
		m.gopark(g, "GC worker (idle)")
		g.co.yield()
	}
}

// pollFractionalWorkerExit reports whether the fractional worker marking
// on pp since start has done 1.2 times its goal of the time since the mark
// began (the slack keeps it from being behind again the moment it stops).
// Mirrors pollFractionalWorkerExit.
func (m *Machine) pollFractionalWorkerExit(pp *P, start int64) bool {
	delta := m.now - m.gc.ctl.markStartTime
	if delta <= 0 {
		return true
	}
	selfTime := pp.gcFractionalMarkTime + (m.now - start)
	return float64(selfTime)/float64(delta) > 1.2*m.gc.ctl.fractionalUtilizationGoal
}

// gcMarkDone ends the cycle on g: mark termination, a stop-the-world
// (already stopped under GCStopTheWorld, when started is false; stopped
// now when a mark worker ends the mark, when started is true), then the
// pacer's endCycle, resetLive and commit, and the world starts. The
// marked heap is what was retained when the mark began plus every byte
// allocated since, allocated black. Gs waiting in GC for the cycle are
// readied, and so are the Gs parked in a mark assist. Mirrors gcMarkDone
// and gcMarkTermination.
func (m *Machine) gcMarkDone(g *G, started bool) {
	c := &m.gc.ctl
	procs := int(m.gomaxprocs)
	m.gcStatsMarkTerm()
	m.gc.marking = false
	stw := m.cfg.GCCycle >= GCStopTheWorld
	m.limiterStartGCTransition(false)
	if started {
		m.stopTheWorldGC(g, CostGCMarkTerm, "GC mark termination")
	} else if stw {
		m.emit(EvSTWBegin, g.mp.p, g.mp, g, nil, -1, 0, "GC mark termination")
		m.gcPause(g, CostGCMarkTerm, "GC mark termination")
	}
	// Assists still parked are done: the cycle is over (gcWakeAllAssists,
	// which Go calls once the world is stopped, before the pause's work).
	m.gcWakeAllAssists(g, g.mp.p)
	c.endCycle(m.now, procs)

	// Mark termination: the unmarked bytes are garbage, which the sweep
	// frees; the pacer starts over from the marked heap.
	marked := m.gc.markRetain0 + (c.heapLive - m.gc.markHeap0)
	noscanMarked := m.gc.markNoscanR + (m.gc.noscanLive - m.gc.markNoscan0)
	c.totalFree += c.heapLive - marked
	c.resetLive(marked, marked-noscanMarked)
	m.gc.noscanLive = noscanMarked
	m.gcSyncMapped()
	c.commit(false)
	if stw {
		m.startTheWorld()
		m.emit(EvGCEnd, g.mp.p, g.mp, g, nil, -1, m.gc.cycles, "")
	}
	m.gcStatsDone(marked)
	m.gc.ended++
	m.limiterFinishGCTransition()
	for _, gp := range m.gc.waiters {
		m.ready(gp, g.mp.p, g, false)
	}
	clear(m.gc.waiters)
	m.gc.waiters = m.gc.waiters[:0]
}

// stopTheWorldGC stops every P but g's, as stopTheWorldWithSema does for
// the collector, and holds the world stopped for the pause of cost k.
// Besides what stopTheWorld does to running Ps (their Gs preempted into
// their runnext, their Ms parked), idle Ps and Ps in a syscall are taken
// too (_Pgcstop): a G leaving its syscall during the pause finds no P.
// Mirrors stopTheWorldWithSema.
func (m *Machine) stopTheWorldGC(g *G, k CostKind, reason string) {
	m.emit(EvSTWBegin, g.mp.p, g.mp, g, nil, -1, 0, reason)
	m.stopTheWorld(g)
	for _, pp := range m.allp[:m.gomaxprocs] {
		switch pp.status {
		case Pidle:
			m.pidleRemove(pp)
			pp.status = Pgcstop
		case Psyscall:
			pp.status = Pgcstop
			m.emit(EvProcSteal, pp, nil, nil, nil, -1, 0, "")
		}
	}
	m.gcPause(g, k, reason)
}

// gcPause holds the stopped world for the pause of cost k: g's M does the
// pause's work on its P, and every other action of the process due before
// the pause ends (a timer, a thread's wake-up, sysmon) waits until g has
// started the world again, so that a timer due on a stopped P is not
// lost. Two things go on: the world outside, and a syscall's return,
// which finds no P and queues its G globally as exitsyscallNoP does while
// the world is stopped.
// The pause ends with an STWEnd, whose STWBegin the caller emitted.
func (m *Machine) gcPause(g *G, k CostKind, reason string) {
	d := max(m.costOf(k), 0)
	m.gc.pauseTotal = addWhen(m.gc.pauseTotal, d)
	m.gc.pauseMax = max(m.gc.pauseMax, d)
	defer func() { m.emit(EvSTWEnd, g.mp.p, g.mp, g, nil, -1, d, reason) }()
	if d == 0 {
		return
	}
	end := m.when(d)
	m.after(d, action{kind: actResume, gp: g, gen: g.gen})
	m.gc.stwUntil = end
	m.stwDefer(end)
	g.workLeft = d
	g.co.yield()
	m.gc.stwUntil = 0
}

// stwDefer moves every queued action of the process due by end (but g's
// resumption, the last queued) to end, after it: in the order they were
// queued, with new sequence numbers.
func (m *Machine) stwDefer(end int64) {
	var moved []action
	kept := m.actions[:0]
	for _, a := range m.actions {
		if a.seq != m.seq && stwHolds(a.kind) && a.when <= end {
			moved = append(moved, a) // not g's own resumption, queued just now
		} else {
			kept = append(kept, a)
		}
	}
	slices.SortFunc(moved, func(a, b action) int {
		if c := cmp.Compare(a.when, b.when); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	for i := range moved {
		m.seq++
		moved[i].when, moved[i].seq = end, m.seq
	}
	m.actions = append(kept, moved...)
	slices.SortFunc(m.actions, func(a, b action) int {
		if c := cmp.Compare(a.when, b.when); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

// stwHolds reports whether an action of kind k waits for the world to
// start: all but the world outside and a syscall's return.
func stwHolds(k uint8) bool { return k != actWorld && k != actSyscallDone }

// stwWhen returns when an action of the process queued for when can run
// while the world is stopped for a GC pause: not before g starts it again.
func (m *Machine) stwWhen(when int64) int64 {
	if when <= m.gc.stwUntil {
		return m.gc.stwUntil
	}
	return when
}

// checkSize returns an error unless n bytes can be added to a heap of
// live bytes.
func checkSize(n int64, live uint64) error {
	if n < 0 {
		return fmt.Errorf("negative size %d", n)
	}
	if live > math.MaxInt64 || uint64(n) > math.MaxInt64-live {
		return fmt.Errorf("the heap would overflow: %d bytes on a heap of %d", n, live)
	}
	return nil
}

// Alloc allocates n bytes that die young: garbage by the next cycle
// (mallocgc of an object nothing keeps). It may start a cycle.
func (g *G) Alloc(n int64) error { return g.malloc(n, false, false) }

// AllocNoscan is Alloc of pointer-free memory (a []byte, a string): it
// adds to the heap but not to the scannable heap (heapScan).
func (g *G) AllocNoscan(n int64) error { return g.malloc(n, false, true) }

// Retain allocates n bytes that stay reachable until ReleaseHeap (mallocgc of
// an object the program keeps): the live heap that every cycle marks and
// scans. It may start a cycle.
func (g *G) Retain(n int64) error { return g.malloc(n, true, false) }

// RetainNoscan is Retain of pointer-free memory: every cycle marks it,
// and it counts in the heap goal as any live byte, but no cycle scans
// it, so it adds no mark work (Go allocates such objects in noscan spans
// and greys them without scanning).
func (g *G) RetainNoscan(n int64) error { return g.malloc(n, true, true) }

func (g *G) malloc(n int64, retain, noscan bool) error {
	g.check()
	if err := checkSize(n, g.m.gc.ctl.heapLive); err != nil {
		return err
	}
	g.m.mallocgc(g, n, retain, noscan)
	return nil
}

// ReleaseHeap drops n retained bytes with pointers (Retain's): the next
// cycle does not mark them. The heap does not shrink before that cycle.
func (g *G) ReleaseHeap(n int64) error {
	g.check()
	if n < 0 {
		return fmt.Errorf("negative size %d", n)
	}
	if scan := g.m.gc.retained - g.m.gc.retainedNoscan; n > scan {
		return fmt.Errorf("%d bytes released, but only %d retained%s", n, scan, g.m.noscanNote())
	}
	g.m.gc.retained -= n
	return nil
}

// ReleaseNoscan drops n pointer-free retained bytes (RetainNoscan's).
func (g *G) ReleaseNoscan(n int64) error {
	g.check()
	if n < 0 {
		return fmt.Errorf("negative size %d", n)
	}
	if n > g.m.gc.retainedNoscan {
		return fmt.Errorf("%d pointer-free bytes released, but only %d retained pointer-free", n, g.m.gc.retainedNoscan)
	}
	g.m.gc.retained -= n
	g.m.gc.retainedNoscan -= n
	return nil
}

// noscanNote says, for ReleaseHeap's error, how many pointer-free bytes
// are retained besides, if any: they are released with ReleaseNoscan.
func (m *Machine) noscanNote() string {
	if m.gc.retainedNoscan == 0 {
		return ""
	}
	return fmt.Sprintf(" with pointers (%d more are pointer-free)", m.gc.retainedNoscan)
}

// GC runs a garbage collection cycle now, whatever the heap
// (runtime.GC). As Go's, it counts in cycles: with n the cycles started
// so far, it waits for cycle n to end, starts cycle n+1 unless someone
// else has started it meanwhile (gcStart's gcTriggerCycle test), and
// waits for cycle n+1 to end (gcWaitOnMark). Under GCInstant and
// GCStopTheWorld no cycle is ever on when a G runs, so neither wait
// parks.
func (g *G) GC() {
	g.check()
	m := g.m
	n := m.gc.cycles
	m.gcWaitOnMark(g, n)
	if m.gc.cycles == n { // gcTriggerCycle.test: cycle n+1 not started yet
		m.gcStart(g, true)
	}
	m.gcWaitOnMark(g, n+1)
}

// gcWaitOnMark parks g until cycle n has ended; cycle 0 stands for none
// and has always ended. A G readied by the end of a cycle looks again: it
// may have been readied by an earlier cycle than n. Mirrors
// gcWaitOnMark.
func (m *Machine) gcWaitOnMark(g *G, n int64) {
	for {
		ended := m.gc.cycles // cycles ended, counting the one on as not
		if m.gc.marking {
			ended--
		}
		if ended >= n {
			return
		}
		m.gc.waiters = append(m.gc.waiters, g)
		m.gopark(g, "wait for GC cycle")
		g.co.yield()
	}
}

// SetGCPercent sets GOGC and returns the previous value; a negative
// percent turns the collector off (-1), as debug.SetGCPercent does.
// Mirrors setGCPercent: gcController.setGCPercent, then
// gcControllerCommit with the sweep done (the model sweeps at once).
func (g *G) SetGCPercent(percent int32) int32 {
	g.check()
	c := &g.m.gc.ctl
	out := c.setGCPercent(percent)
	g.m.gcSyncMapped()
	g.m.gcControllerCommit()
	return out
}

// SetMemoryLimit sets the soft memory limit in bytes and returns the
// previous one; a negative limit only asks (debug.SetMemoryLimit).
// Mirrors setMemoryLimit.
func (g *G) SetMemoryLimit(limit int64) int64 {
	g.check()
	c := &g.m.gc.ctl
	out := c.setMemoryLimit(limit)
	g.m.gcSyncMapped()
	g.m.gcControllerCommit()
	return out
}

// gcControllerCommit commits the pacer's new goal (with the sweep done:
// the model sweeps at once) and, during the mark, revises the assist
// ratio against it. Mirrors gcControllerCommit.
func (m *Machine) gcControllerCommit() {
	m.gc.ctl.commit(true)
	if m.gc.marking {
		m.gcRevise()
	}
}

// GCStats is the heap and the collector at one instant.
type GCStats struct {
	Cycles       int64   // cycles started, forced ones included
	Forced       int64   // cycles started by runtime.GC
	Ended        int64   // cycles ended (memstats.numgc)
	GOGC         int32   // the GC percent; -1 is off
	MemoryLimit  int64   // the soft memory limit in bytes; NoMemoryLimit for none
	HeapLive     uint64  // the pacer's heapLive: marked by the last cycle plus allocated since
	HeapMarked   uint64  // the heap the last cycle marked
	Retained     int64   // bytes retained and not released
	Noscan       int64   // of those, the pointer-free ones (RetainNoscan)
	HeapGoal     uint64  // the heap goal now
	Trigger      uint64  // the heap size at which the next cycle starts
	LastHeapGoal uint64  // the heap goal when the last cycle ended
	TotalAlloc   uint64  // bytes ever allocated
	Stacks       uint64  // the goroutines' stacks the pacer counts
	Globals      uint64  // the globals it counts
	Dedicated    int64   // the last cycle's dedicated mark workers
	Fractional   float64 // the last cycle's fractional utilization goal per P
	PauseTotal   int64   // ns the world was stopped for the collector, in all (GCStopTheWorld)
	PauseMax     int64   // the longest of those pauses
	AssistTime   int64   // ns goroutines spent in mark assists, in all (GCMark)
	LimiterCycle int64   // the GC cycle during which the CPU limiter last turned on, 0 if never (GCMark; /gc/limiter/last-enabled:gc-cycle)
}

// GCStats returns the heap and the collector's counters.
func (m *Machine) GCStats() GCStats {
	c := &m.gc.ctl
	m.gcSyncMapped()
	trigger, goal := c.trigger()
	return GCStats{
		Cycles:       m.gc.cycles,
		Forced:       m.gc.forced,
		Ended:        m.gc.ended,
		GOGC:         c.gcPercent,
		MemoryLimit:  c.memoryLimit,
		HeapLive:     c.heapLive,
		HeapMarked:   c.heapMarked,
		Retained:     m.gc.retained,
		Noscan:       m.gc.retainedNoscan,
		HeapGoal:     goal,
		Trigger:      trigger,
		LastHeapGoal: c.lastHeapGoal,
		TotalAlloc:   c.totalAlloc,
		Stacks:       m.stackBytes(),
		Globals:      c.globalsScan,
		Dedicated:    m.gc.lastDedicated,
		Fractional:   m.gc.lastFractional,
		PauseTotal:   m.gc.pauseTotal,
		PauseMax:     m.gc.pauseMax,
		AssistTime:   m.gc.assistTime,
		LimiterCycle: m.gc.limiter.lastEnabledCycle,
	}
}

// preemptMarkWorker is preemptone for a mark worker gp on pp: it posts the
// request, which a fractional or idle worker honours after its chunk by
// stopping. A dedicated worker is not preempted: it takes the request as
// a sign to send pp's run queue to the global queue, where other Ps can
// run its Gs, and marks on. Mirrors gcBgMarkWorker's dedicated case
// (runqdrain, globrunqputbatch). It reports false: the worker keeps pp.
func (m *Machine) preemptMarkWorker(pp *P, gp *G) bool {
	gp.preempt = true
	if gp.markMode != gcMarkWorkerDedicated {
		return false
	}
	var n int64
	for g2, _ := runqget(pp); g2 != nil; g2, _ = runqget(pp) {
		m.globrunqput(g2)
		n++
	}
	if n > 0 {
		m.emit(EvGlobalRunqPut, pp, pp.m, gp, nil, -1, n, "")
	}
	return false
}
