// The mark work of a GC cycle, and who does it: the background mark
// workers, and the goroutines that allocate while the mark is on.
//
// Under --gc-cycle=mark the mark is a quantity of scan work, one unit a
// byte: the retained heap, every goroutine's stack and the globals, fixed
// when the cycle starts (objects allocated during the mark are allocated
// black and add none). The root jobs, the globals and the stacks, are
// taken first, as gcDrain and gcDrainN drain markroot's jobs before the
// heap; a unit of them costs the profile's gc_mark_roots_mib over 2^20
// ns, a unit of the heap its gc_mark_mib (a profile without
// gc_mark_roots_mib charges gc_mark_mib for both). The two differ as
// their pointers do: the globals' pointer mask is sparse, where a
// retained block of pointers is scanned word by word. markLeft is the work no one has taken yet; whoever takes some works
// it off on its P and counts it done (markDone, the sum of Go's
// heapScanWork, stackScanWork and globalsScanWork).
//
// The background workers (gcDrain) take it in chunks of 100,000 units,
// idleCheckThreshold, checking between chunks whether they should stop,
// and flush each chunk's work as credit (gcFlushBgCredit).
//
// The program pays for what it allocates during the mark (gcAssistAlloc).
// The pacer's assist ratio (revise) says how much scan work a byte owes:
// the work left over the bytes left before the heap goal, so that if every
// allocation pays, the mark ends as the heap reaches its goal. revise
// runs when the mark starts, whenever the heap grows during it (every
// allocation here, every mcache refill in Go) and when the goal is
// recommitted; everyone else uses the ratio it last set, so that an
// assist is credited at the ratio from before its work. Each G
// keeps a balance, gcAssistBytes: an allocation of n bytes during the
// mark takes n from it (deductAssistCredit), and a G in debt assists
// before it may allocate:
//
//   - it owes the ratio times its debt, and at least gcOverAssistWork (64
//     KiB of scan work), so that one assist pays for many small
//     allocations;
//   - it first steals the background workers' credit (bgScanCredit), as
//     much as it owes;
//   - the rest it marks itself, on its own P and its own time, in chunks
//     (gcAssistAlloc1 → gcDrainN), stopping early if it is asked to yield
//     the P (gp.preempt: an assist runs on the system stack, so a
//     preemption request waits for its chunk), and the assist that
//     marks the last of the work ends the cycle, as a worker would;
//   - still in debt (no work left to take, or preempted: it yields the P
//     with Gosched and tries again), it parks on the assist queue
//     (gcParkAssist), unless credit appeared meanwhile. The workers'
//     flushes pay the queued debts first, oldest first, readying each G
//     they clear (not into runnext: an assist must not jump the queue by
//     the worker's priority); a partial payment sends that G to the back.
//     Mark termination readies every G still queued (gcWakeAllAssists).
//
// A G's balance is reset at the start of every cycle (gcResetMarkState);
// here the reset is lazy: the balance carries the cycle it belongs to
// (gcAssistCycle), and one from an earlier cycle counts as 0. A G that
// exits with credit leaves it to the background credit (gdestroy).
//
// While the CPU limiter is on (mgclimit.go, gcCPULimiter.limiting), no G
// assists, and an assist under way stops at its next chunk. What is left
// out: the span granularity at which Go charges allocations (it charges
// each mcache refill; here every allocation is charged), and Go's root
// jobs as lumps (a data or bss shard, or a stack, is scanned whole; here
// an assist takes as many units of roots as it owes). --gc-assist=off
// (Config.GCNoAssist) turns assists off, as CockroachDB's GODEBUG=gcnoassist
// does: the workers do all the mark work, and the heap may overshoot its
// goal.
//
// Invariants, while marking:
//
//   - markLeft >= 0, and markLeft + markDone + the work in chunks under
//     way (markBusy of them) is the cycle's scan work;
//   - a G is on the assist queue only while it is parked there, in
//     debt (gcAssistBytes < 0);
//   - bgScanCredit is what workers flushed beyond the queued debts, less
//     what assists stole; it is never negative here (Go's may be, for
//     a moment, when two assists steal at once).

package runtime

// gcIdleCheckThreshold is the scan work between two of gcDrain's checks
// for other work (mgcmark.go's idleCheckThreshold).
const gcIdleCheckThreshold = 100000

// gcMarkNs returns the time roots units of the root jobs' scan work
// (globals and stacks) and heap units of the heap's take on one P: at
// least 1 ns when there is any work (gcMarkTime).
func (m *Machine) gcMarkNs(roots, heap int64) int64 {
	if roots+heap <= 0 {
		return 0
	}
	return max(m.gcMarkTime(roots, heap), 1)
}

// gcMarkTime is roots units at the profile's gc_mark_roots_mib and heap
// units at its gc_mark_mib, in ns rounded down; a profile without
// gc_mark_roots_mib marks the roots at gc_mark_mib too. It draws a rate
// from the profile only for work there is.
func (m *Machine) gcMarkTime(roots, heap int64) int64 {
	if m.cfg.Costs == nil || m.cfg.Costs.Dists[CostGCMarkRootsMiB].IsZero() {
		roots, heap = 0, roots+heap
	}
	var ns float64
	if roots > 0 {
		ns += float64(roots) * float64(m.costOf(CostGCMarkRootsMiB))
	}
	if heap > 0 {
		ns += float64(heap) * float64(m.costOf(CostGCMarkMiB))
	}
	return int64(ns / (1 << 20))
}

// gcMarkChunk takes up to n units of the mark work no one has taken,
// at most gcIdleCheckThreshold, marks them on g's P, counts them done,
// and returns how many it marked. While it marks, the cycle cannot end
// (markBusy). A chunk of gcDrain and of gcDrainN.
func (m *Machine) gcMarkChunk(g *G, n int64) int64 {
	units := min(n, m.gc.markLeft, gcIdleCheckThreshold)
	roots := min(units, m.gc.rootsLeft)
	m.gc.markLeft -= units
	m.gc.rootsLeft -= roots
	m.gc.markBusy++
	g.work(m.gcMarkNs(roots, units-roots))
	m.gc.markBusy--
	m.gc.markDone += units
	return units
}

// gcDrain marks in chunks of gcIdleCheckThreshold until the mark work is
// done, or, for a fractional worker, until its P has marked 1.2 times its
// goal (pollFractionalWorkerExit), or, for an idle worker, until its P
// has other work (pollWork); a fractional or idle worker also stops when
// preempted. A dedicated worker is never preempted: a preemption request
// sends its P's run queue to the global queue instead (preemptone). Each
// chunk's work is flushed as credit for assists (gcFlushBgCredit).
// Mirrors gcDrain and the worker's part of gcBgMarkWorker.
func (m *Machine) gcDrain(g *G) {
	c := &m.gc.ctl
	mode := g.markMode
	pp := g.mp.p
	start := m.now
	m.emit(EvGCWorkerStart, pp, g.mp, g, nil, -1, 0, mode.String())
	idleEvent := mode == gcMarkWorkerIdle && m.limiterStart(pp, limiterEventIdleMarkWork)
	g.preempt = false
	for m.gc.markLeft > 0 {
		m.gcFlushBgCredit(g, m.gcMarkChunk(g, gcIdleCheckThreshold))
		if mode != gcMarkWorkerDedicated && g.preempt {
			break
		}
		if mode == gcMarkWorkerIdle && m.pollWork(g.mp.p) {
			break
		}
		if mode == gcMarkWorkerFractional && m.pollFractionalWorkerExit(g.mp.p, start) {
			break
		}
	}
	if idleEvent {
		m.limiterStop(pp, limiterEventIdleMarkWork) // the P it started on
	}
	pp = g.mp.p
	d := m.now - start
	m.gc.markTime[mode-1] += d
	switch mode {
	case gcMarkWorkerDedicated:
		c.dedicatedMarkWorkersNeeded++
	case gcMarkWorkerFractional:
		pp.gcFractionalMarkTime += d
	case gcMarkWorkerIdle:
		c.idleMarkTime += d
		m.gc.idleWorkers--
	}
	m.emit(EvGCWorkerStop, pp, g.mp, g, nil, -1, d, mode.String())
	if m.gc.marking && m.gc.markLeft <= 0 && m.gc.markBusy == 0 {
		m.gcMarkDone(g, true) // the last worker out
	}
}

// gcRevise brings the pacer's assist ratio up to date with the heap and
// the work done (gcController.revise). Go calls it when the mark starts
// (startCycle), whenever heapLive changes during the mark
// (gcController.update, from mallocgc's mcache refill) and when the goal
// is recommitted (gcControllerCommit); never when scan work is done.
// Assists and flushes of credit use the ratio it last set, stale by the
// work done since.
func (m *Machine) gcRevise() {
	m.gc.ctl.revise(m.gc.markDone)
}

// deductAssistCredit charges an allocation of n bytes during the mark to
// g's balance, and assists if g is in debt. Mirrors deductAssistCredit
// (called by mallocgc when gcBlackenEnabled).
func (m *Machine) deductAssistCredit(g *G, n int64) {
	if m.cfg.GCNoAssist || g.markMode != gcMarkWorkerNotWorker {
		return
	}
	if g.gcAssistCycle != m.gc.cycles {
		g.gcAssistCycle, g.gcAssistBytes = m.gc.cycles, 0 // gcResetMarkState
	}
	g.gcAssistBytes -= n
	if g.gcAssistBytes < 0 {
		m.gcAssistAlloc(g)
	}
}

// gcAssistAlloc does mark work for g until its balance is no longer in
// debt: it steals background credit, marks on its P, and parks on the
// assist queue when neither pays. It returns when g may allocate. Mirrors
// gcAssistAlloc.
func (m *Machine) gcAssistAlloc(g *G) {
	c := &m.gc.ctl
	entered := false
	var marked int64 // ns g marked in this assist
	defer func() {
		if entered {
			m.emit(EvGCAssistEnd, g.mp.p, g.mp, g, nil, -1, marked, "")
			g.inMarkAssist = false
		}
	}()
	for {
		if !m.gc.marking || m.gc.limiter.limiting() {
			return // the cycle ended while g yielded, or the limiter holds the GC's CPU
		}
		// What g owes, in scan work; at least gcOverAssistWork. The
		// ratio is the one revise set when the heap last grew.
		debtBytes := -g.gcAssistBytes
		scanWork := int64(c.assistWorkPerByte * float64(debtBytes))
		if scanWork < gcOverAssistWork {
			scanWork = gcOverAssistWork
			debtBytes = int64(c.assistBytesPerWork * float64(scanWork))
		}

		// Steal what the background workers have in credit.
		if c.bgScanCredit > 0 {
			stolen := scanWork
			if c.bgScanCredit < scanWork {
				stolen = c.bgScanCredit
				g.gcAssistBytes += 1 + int64(c.assistBytesPerWork*float64(stolen))
			} else {
				g.gcAssistBytes += debtBytes
			}
			c.bgScanCredit -= stolen
			scanWork -= stolen
			if scanWork == 0 {
				return
			}
		}
		if !entered {
			entered = true
			g.inMarkAssist = true
			m.emit(EvGCAssistBegin, g.mp.p, g.mp, g, nil, -1, scanWork, "")
		}

		// Mark on g's own P.
		d, completed := m.gcAssistAlloc1(g, scanWork)
		marked += d
		if completed {
			m.gcMarkDone(g, true) // the assist marked the last of the work
		}
		if g.gcAssistBytes >= 0 {
			return
		}
		if g.preempt {
			// Asked to yield the P: yield it, and try again.
			m.goschedImpl(g, false)
			g.co.yield()
			continue
		}
		if m.gcParkAssist(g) {
			return // paid by the workers, or the cycle is over
		}
	}
}

// gcAssistAlloc1 marks up to scanWork units for g on its P, in chunks,
// until the work runs out or g is asked to yield, and credits g's
// balance with what it marked. It returns the ns g marked and whether g
// finished the cycle's mark work (the caller then ends the cycle).
// Mirrors gcAssistAlloc1 and gcDrainN.
func (m *Machine) gcAssistAlloc1(g *G, scanWork int64) (marked int64, completed bool) {
	c := &m.gc.ctl
	if !m.gc.marking {
		g.gcAssistBytes = 0 // the cycle is over: any debt is forgiven
		return 0, false
	}
	start := m.now
	pp := g.mp.p
	event := m.limiterStart(pp, limiterEventMarkAssist)
	var workDone int64
	for !g.preempt && !m.gc.limiter.limiting() && workDone < scanWork && m.gc.markLeft > 0 {
		workDone += m.gcMarkChunk(g, scanWork-workDone)
	}
	// The credit at the ratio from before the work: Go revises it
	// when the heap grows, not when work is done.
	g.gcAssistBytes += 1 + int64(c.assistBytesPerWork*float64(workDone))
	marked = m.now - start
	if event {
		m.limiterStop(pp, limiterEventMarkAssist)
	}
	m.gc.assistTime += marked
	// Go tells the pacer and the limiter once a P has gathered
	// gcAssistTimeSlack of assists.
	pp.gcAssistTime += marked
	if pp.gcAssistTime > gcAssistTimeSlack {
		c.assistTime += pp.gcAssistTime
		pp.gcAssistTime = 0
		m.limiterUpdate()
	}
	return marked, m.gc.markLeft <= 0 && m.gc.markBusy == 0
}

// gcParkAssist queues g on the assist queue and parks it until the
// workers' credit pays its debt or the cycle ends, and reports true then.
// It reports false, without parking, if credit is there already: the
// caller must try again. Mirrors gcParkAssist.
func (m *Machine) gcParkAssist(g *G) bool {
	if !m.gc.marking {
		return true
	}
	if m.gc.ctl.bgScanCredit > 0 {
		return false
	}
	m.gc.assistQueue.pushBack(g)
	m.gopark(g, "GC assist wait")
	g.co.yield()
	return true
}

// gcFlushBgCredit adds scanWork units done by worker g: they pay the
// debts of the Gs on the assist queue first, in order, readying each
// whose debt they clear (to g's P, not into runnext), and what is left
// becomes background credit. Mirrors gcFlushBgCredit.
func (m *Machine) gcFlushBgCredit(g *G, scanWork int64) {
	c := &m.gc.ctl
	q := &m.gc.assistQueue
	if q.empty() {
		c.bgScanCredit += scanWork
		return
	}
	scanBytes := int64(float64(scanWork) * c.assistBytesPerWork)
	for !q.empty() && scanBytes > 0 {
		gp := q.pop()
		if scanBytes+gp.gcAssistBytes >= 0 {
			scanBytes += gp.gcAssistBytes
			gp.gcAssistBytes = 0
			m.ready(gp, g.mp.p, g, false)
		} else {
			gp.gcAssistBytes += scanBytes
			scanBytes = 0
			q.pushBack(gp) // to the back: a large debt must not hold up small ones
			break
		}
	}
	if scanBytes > 0 {
		c.bgScanCredit += int64(float64(scanBytes) * c.assistWorkPerByte)
	}
}

// gcWakeAllAssists readies every G on the assist queue, at mark
// termination, onto pp. Mirrors gcWakeAllAssists.
func (m *Machine) gcWakeAllAssists(g *G, pp *P) {
	q := &m.gc.assistQueue
	for gp := q.pop(); gp != nil; gp = q.pop() {
		m.ready(gp, pp, g, false)
	}
}

// gcFlushAssistCredit gives the credit of gp, which exits, to the
// background credit. Mirrors gdestroy's flush.
func (m *Machine) gcFlushAssistCredit(gp *G) {
	if m.gc.marking && gp.gcAssistCycle == m.gc.cycles && gp.gcAssistBytes > 0 {
		m.gc.ctl.bgScanCredit += int64(m.gc.ctl.assistWorkPerByte * float64(gp.gcAssistBytes))
		gp.gcAssistBytes = 0
	}
}
