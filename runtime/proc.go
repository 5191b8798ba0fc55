// The scheduler: run queues, schedule, findRunnable, stealing, spinning Ms.
//
// This file mirrors the scheduling half of proc.go, function by function.
// Each function says which runtime function it follows and where it
// deliberately differs. The shape of the algorithm, in the runtime's words:
//
// Every M, when its G stops (blocks, yields, exits, is preempted), calls
// schedule, which calls findRunnable to get the next G and execute to run it.
// findRunnable looks, in order: every 61st schedtick at the global queue (so
// two Gs that keep readying each other through runnext cannot starve it); at
// the P's own timers; at the local run queue (runnext first, then the ring);
// at the global queue, taking a batch; and then, if not too many Ms are
// spinning already, it becomes a spinning M and tries up to four times to
// steal half of another P's ring, visiting the Ps in a random order and taking
// runnext only in the last round. An M that finds nothing gives its P back to
// the idle list and parks.
//
// Ms are woken conservatively ("Worker thread parking/unparking" in proc.go):
// wakep starts a spinning M only if there is an idle P and no M is spinning
// already, and a spinning M that finds work stops spinning and calls wakep
// again, so that one new spinning M looks for the next piece of work.
//
// In the simulation an M "blocks" by not having an action queued; startm
// queues one. Each trip through schedule is one action, so Ps interleave on
// the virtual clock in the order their Ms became ready.

package runtime

import "fmt"

// newm creates a new M (a thread). Mirrors newm/allocm.
func (m *Machine) newm() *M {
	mp := &M{id: int32(len(m.allm))}
	m.allm = append(m.allm, mp)
	if len(m.allm) > m.stats.MaxThreads {
		m.stats.MaxThreads = len(m.allm)
	}
	return mp
}

// mput puts mp on the idle M list. Mirrors mput.
func (m *Machine) mput(mp *M) {
	mp.idle = true
	m.midle = append(m.midle, mp)
}

// mget takes an M from the idle list, or returns nil. Mirrors mget.
func (m *Machine) mget() *M {
	n := len(m.midle)
	if n == 0 {
		return nil
	}
	mp := m.midle[n-1]
	m.midle = m.midle[:n-1]
	mp.idle = false
	return mp
}

// pidleput puts pp on the idle P list. Its run queue must be empty.
// Mirrors pidleput.
func (m *Machine) pidleput(pp *P) {
	if !runqempty(pp) {
		throw(fmt.Sprintf("pidleput: P%d has a non-empty run queue", pp.id))
	}
	pp.status = Pidle
	pp.m = nil
	m.pidle = append(m.pidle, pp)
	m.limiterStart(pp, limiterEventIdle)
}

// pidleget takes a P from the idle list, or returns nil. Mirrors pidleget.
func (m *Machine) pidleget() *P {
	n := len(m.pidle)
	if n == 0 {
		return nil
	}
	pp := m.pidle[n-1]
	m.pidle = m.pidle[:n-1]
	m.limiterStopIdle(pp)
	return pp
}

// pidleRemove takes a given P off the idle list.
func (m *Machine) pidleRemove(pp *P) {
	for i, q := range m.pidle {
		if q == pp {
			m.pidle = append(m.pidle[:i], m.pidle[i+1:]...)
			m.limiterStopIdle(pp)
			return
		}
	}
}

// acquirep associates pp with mp. Mirrors acquirep/wirep.
func (m *Machine) acquirep(mp *M, pp *P) {
	if mp.p != nil || pp.m != nil {
		throw(fmt.Sprintf("acquirep: M%d already has a P or P%d already has an M", mp.id, pp.id))
	}
	mp.p = pp
	pp.m = mp
	pp.status = Prunning
	m.emit(EvProcStart, pp, mp, nil, nil, -1, 0, "")
}

// releasep disassociates mp from its P and returns the P, _Pidle until
// the caller puts it on the idle list (pidleput), gives it to another M
// (handoffp, startlockedm) or stops it (procresize). Its ProcStop, emitted
// in between, so shows the P idle and without an M, as Go's trace does.
// Mirrors releasep.
func (m *Machine) releasep(mp *M) *P {
	pp := mp.p
	if pp == nil || pp.m != mp {
		throw(fmt.Sprintf("releasep: M%d does not hold its P", mp.id))
	}
	mp.p = nil
	pp.m = nil
	pp.status = Pidle
	return pp
}

// startm schedules some M to run pp, waking an idle one or creating one.
// spinning says the M starts out spinning. The M runs schedule after the
// wake-up cost (the thread's futex wake-up until it runs), plus newm's when
// it had to be made. Mirrors startm.
func (m *Machine) startm(pp *P, spinning bool) *M {
	mp, made := m.startmNoWait(pp, spinning)
	d := m.wakeupLatency()
	if made {
		d = addWhen(d, m.costOf(CostNewm)) // a profile's costs may be any int64 (clockend.go)
		m.sstats.NewMs++
	} else {
		m.sstats.Unparks++
	}
	m.sstats.WakeupTime = addWhen(m.sstats.WakeupTime, d)
	mp.woken = true
	m.scheduleAfter(mp, d)
	m.chargeWaker()
	return mp
}

// chargeWaker charges the waker its side of startm: the futex wake of
// notewakeup (or newm's clone), a system call of the waking thread's. A G
// that woke the M (its newproc's or ready's wakep, a hand-off) pays it
// with its next steps, as a fast path; the scheduler's own code (a timer
// run in findRunnable that readies a G, resetspinning) pays it before the
// G its M runs next (execute), in the same action. A profile without
// notewakeup charges nothing and draws nothing.
func (m *Machine) chargeWaker() {
	if g := m.curg; g != nil {
		g.fastPath(wakeOp)
	} else if m.fastPaths[wakeOp] {
		m.wakerDebt += m.costOf(CostNotewakeup)
	}
}

// startmNoWait is startm without queueing the M's schedule: the caller
// says when it runs. It reports whether the M was made (newm) rather than
// taken from the idle list.
func (m *Machine) startmNoWait(pp *P, spinning bool) (mp *M, made bool) {
	mp = m.mget()
	if mp == nil {
		mp = m.newm()
		made = true
	}
	if spinning {
		mp.spinning = true
	}
	mp.nextp = pp
	pp.status = Prunning
	pp.m = mp
	var spin int64
	if spinning {
		spin = 1
	}
	m.emit(EvMStart, pp, mp, nil, nil, -1, spin, "")
	return mp, made
}

// stopm parks mp: it has no P and nothing to do. Mirrors stopm.
func (m *Machine) stopm(mp *M) {
	if mp.p != nil {
		throw("stopm holding p")
	}
	if mp.spinning {
		throw("stopm spinning")
	}
	mp.gen++        // any schedule action queued for it is stale now
	mp.timerp = nil // and so is a netpoll wake-up it was started for
	m.cpuDrop(mp)
	mp.stealRound, mp.stealPaid = 0, false
	mp.napP, mp.napG = nil, nil
	mp.stallAt = 0 // a parked thread does not run: its stall clock starts again
	mp.parked = true
	m.sstats.Parks++
	if mp.woken {
		m.sstats.SpuriousWakes++
		mp.woken = false
	}
	m.mput(mp)
	// Reported once made, so that a view paused at the event (the
	// playground, the REPL's :step) shows the M parked.
	m.emit(EvMStop, nil, mp, nil, nil, -1, 0, "")
}

// wakep tries to start a spinning M on an idle P, if no M is spinning.
// Mirrors wakep.
func (m *Machine) wakep() {
	if m.nmspinning != 0 || len(m.pidle) == 0 {
		return
	}
	m.nmspinning++
	m.startm(m.pidleget(), true)
}

// becomeSpinning marks mp as spinning. Mirrors m.becomeSpinning.
func (m *Machine) becomeSpinning(mp *M) {
	mp.spinning = true
	m.nmspinning++
	m.emit(EvMSpinning, mp.p, mp, nil, nil, -1, 0, "")
}

// resetspinning is called by a spinning M that found work: it stops
// spinning and, since there may be more work, wakes another spinning M.
// Mirrors resetspinning.
func (m *Machine) resetspinning(mp *M) {
	if !mp.spinning {
		throw("resetspinning: not a spinning m")
	}
	mp.spinning = false
	m.nmspinning--
	if m.nmspinning < 0 {
		throw("resetspinning: negative nmspinning")
	}
	m.wakep()
}

// handoffp hands off pp from a syscall or a stopping M: start an M for it if
// there is work, else put it on the idle list. Mirrors handoffp, without the
// GC, trace-reader and netpoll clauses.
func (m *Machine) handoffp(pp *P) {
	if !runqempty(pp) || !m.runq.empty() {
		m.startm(pp, false)
		return
	}
	// No local work; make sure someone is spinning, so a G readied
	// later is not left without an M.
	if m.nmspinning+int32(len(m.pidle)) == 0 {
		m.nmspinning++
		m.startm(pp, true)
		return
	}
	// Timers on the idle P keep their actions queued (see time.go), so
	// they need no wakeNetPoller here.
	m.pidleput(pp)
}

// runqempty reports whether pp has no G on its local run queue.
// Mirrors runqempty.
func runqempty(pp *P) bool {
	return pp.runqhead == pp.runqtail && pp.runnext == nil
}

// runqput puts gp on pp's local run queue. With next, gp goes in runnext and
// the G that was there is kicked to the tail of the ring. A full ring moves
// half of itself to the global queue (runqputslow). Mirrors runqput. Under
// the central variant there are no local queues: gp goes to the global one.
func (m *Machine) runqput(pp *P, gp *G, next bool) {
	if m.cfg.Sched.Central {
		m.globrunqput(gp)
		return
	}
	if next {
		old := pp.runnext
		pp.runnext = gp
		if old == nil {
			return
		}
		gp = old
	}
	if pp.runqtail-pp.runqhead < m.runqCap {
		pp.runq[pp.runqtail%runqSize] = gp
		pp.runqtail++
		return
	}
	m.runqputslow(pp, gp)
}

// runqputslow moves half of pp's full ring, plus gp, to the global queue, in
// order. Mirrors runqputslow.
func (m *Machine) runqputslow(pp *P, gp *G) {
	n := (pp.runqtail - pp.runqhead) / 2
	if n != m.runqCap/2 {
		throw("runqputslow: queue is not full")
	}
	for i := uint32(0); i < n; i++ {
		g1 := pp.runq[(pp.runqhead+i)%runqSize]
		pp.runq[(pp.runqhead+i)%runqSize] = nil
		m.globrunqput(g1)
	}
	pp.runqhead += n
	m.globrunqput(gp)
	m.emit(EvGlobalRunqPut, pp, pp.m, gp, nil, -1, int64(n+1), "")
}

// runqget takes a G from pp's local run queue: runnext first, then the head
// of the ring. inheritTime is true for runnext: that G shares the time slice
// of the G that readied it. Mirrors runqget.
func runqget(pp *P) (gp *G, inheritTime bool) {
	if next := pp.runnext; next != nil {
		pp.runnext = nil
		return next, true
	}
	if pp.runqhead == pp.runqtail {
		return nil, false
	}
	gp = pp.runq[pp.runqhead%runqSize]
	pp.runq[pp.runqhead%runqSize] = nil
	pp.runqhead++
	return gp, false
}

// runqputbatch puts the Gs of q on pp's ring; those that do not fit stay
// on q. Mirrors runqputbatch.
func (m *Machine) runqputbatch(pp *P, q *gQueue) {
	for !q.empty() && pp.runqtail-pp.runqhead < m.runqCap {
		gp := q.pop()
		pp.runq[pp.runqtail%runqSize] = gp
		pp.runqtail++
	}
}

// runnextStealable reports whether a thief may take p2's runnext at once.
// The real thief sleeps 3µs before taking the runnext of a running P (see
// runnextBusy), so that a P about to run the G it just readied gets to do
// so. With the runnext_sleep cost the thief sleeps as long (stealWork);
// without it, time does not pass, and a P whose M is in schedule at this
// very instant keeps its runnext instead.
func runnextStealable(p2 *P) bool {
	if p2.runnext == nil {
		return false
	}
	return !(p2.status == Prunning && p2.m != nil && p2.m.curg == nil)
}

// runnextBusy reports whether a thief sleeps before it takes p2's runnext:
// p2 is running and its M is in the scheduler or runs a G that is not in a
// system call, so it may be about to run its runnext itself. Mirrors the
// condition of runqgrab's usleep(3).
func runnextBusy(p2 *P) bool {
	if p2.status != Prunning || p2.m == nil {
		return false
	}
	gp := p2.m.curg
	return gp == nil || gp.status != Gsyscall
}

// runqgrab takes half of p2's ring (rounded up) for a thief. If the ring is
// empty and stealRunNextG is set, it takes p2's runnext instead, if it may
// at once or if the runnext is still napped, the G that was there when the
// thief began its sleep (the compare-and-swap after runqgrab's usleep).
// Mirrors runqgrab.
func runqgrab(p2 *P, stealRunNextG bool, napped *G) []*G {
	n := p2.runqtail - p2.runqhead
	n -= n / 2
	if n == 0 {
		if stealRunNextG && p2.runnext != nil && (p2.runnext == napped || runnextStealable(p2)) {
			gp := p2.runnext
			p2.runnext = nil
			return []*G{gp}
		}
		return nil
	}
	batch := make([]*G, n)
	for i := range n {
		batch[i] = p2.runq[(p2.runqhead+i)%runqSize]
		p2.runq[(p2.runqhead+i)%runqSize] = nil
	}
	p2.runqhead += n
	return batch
}

// runqsteal steals half of p2's ring onto pp's ring and returns the last
// stolen G, to run now. Mirrors runqsteal. napped is the G mp slept for in
// p2's runnext, if it did (see stealWork).
func (m *Machine) runqsteal(pp, p2 *P, stealRunNextG bool, napped *G) *G {
	batch := runqgrab(p2, stealRunNextG, napped)
	if len(batch) == 0 {
		return nil
	}
	gp := batch[len(batch)-1]
	for _, g1 := range batch[:len(batch)-1] {
		pp.runq[pp.runqtail%runqSize] = g1
		pp.runqtail++
	}
	m.stats.Steals++
	m.stats.Stolen += int64(len(batch))
	m.emit(EvRunqSteal, pp, pp.m, nil, gp, p2.id, int64(len(batch)), "")
	return gp
}

// globrunqput puts gp at the tail of the global queue. Mirrors globrunqput.
func (m *Machine) globrunqput(gp *G) {
	m.schedLock(m.runningM())
	m.runq.pushBack(gp)
	m.stats.GlobalPuts++
}

// globrunqputhead puts gp at the head of the global queue.
// Mirrors globrunqputhead.
func (m *Machine) globrunqputhead(gp *G) {
	m.schedLock(m.runningM())
	m.runq.push(gp)
	m.stats.GlobalPuts++
}

// globrunqget takes one G from the global queue. Mirrors globrunqget.
func (m *Machine) globrunqget(pp *P) *G {
	gp := m.runq.pop()
	if gp != nil {
		m.schedLock(pp.m)
		m.emit(EvGlobalRunqGet, pp, pp.m, gp, nil, -1, 1, "")
	}
	return gp
}

// globrunqgetbatch takes up to n Gs from the global queue, but no more than
// a fair share, len/gomaxprocs+1. It returns the first to run and the rest.
// Mirrors globrunqgetbatch.
func (m *Machine) globrunqgetbatch(pp *P, n int32) (*G, gQueue) {
	var q gQueue
	if m.runq.size == 0 {
		return nil, q
	}
	m.schedLock(pp.m)
	n = min(n, m.runq.size, m.runq.size/m.gomaxprocs+1)
	gp := m.runq.pop()
	for i := int32(1); i < n; i++ {
		q.pushBack(m.runq.pop())
	}
	m.emit(EvGlobalRunqGet, pp, pp.m, gp, nil, -1, int64(n), "")
	return gp, q
}

// scheduleAfter queues mp's next trip through schedule d ns from now.
func (m *Machine) scheduleAfter(mp *M, d int64) {
	m.after(d, action{kind: actSchedule, mp: mp, gen: mp.gen})
}

// schedule finds a runnable G for mp and runs it. Mirrors schedule.
func (m *Machine) schedule(mp *M) {
	if m.cpu != nil && !m.cpuGet(mp, func() { m.schedule(mp) }) {
		return // the thread waits for a CPU (cpus.go)
	}
	if gp := mp.lockedg; gp != nil && mp.curg == nil {
		m.scheduleLocked(mp, gp)
		return
	}
	if mp.nextp != nil {
		pp := mp.nextp
		mp.nextp = nil
		pp.m = nil
		if pp.status == Pdead {
			if mp.spinning {
				mp.spinning = false
				m.nmspinning--
			}
			m.stopm(mp)
			return
		}
		m.acquirep(mp, pp)
	}
	if mp.p == nil {
		return // lost its P to a stop-the-world; see stopTheWorld
	}
	if mp.curg != nil {
		throw(fmt.Sprintf("schedule: M%d still runs G%d", mp.id, mp.curg.goid))
	}
	pp := mp.p
	if mp.spinning && !runqempty(pp) {
		throw("schedule: spinning with local work")
	}
	if tp := mp.timerp; tp != nil {
		// Woken from netpoll for tp's timers: run them here, as
		// findRunnable runs its own P's (after the check above, as
		// in schedule).
		mp.timerp = nil
		if tp.status != Pdead {
			m.runTimers(tp, pp)
		}
	}
	if gp := m.runPolled(mp); gp != nil {
		// Back from blocking in netpoll with Gs: the first runs here.
		m.execute(mp, gp, false)
		return
	}
	gp, inheritTime := m.findRunnable(mp)
	if gp == nil {
		return // mp was parked by findRunnable, or is spending a steal pass
	}
	mp.stealRound, mp.stealPaid = 0, false
	mp.napP, mp.napG = nil, nil
	if mp.spinning {
		m.resetspinning(mp)
	}
	if gp.lockedm != nil && gp.lockedm != mp {
		m.startlockedm(mp, gp)
		return
	}
	m.execute(mp, gp, inheritTime)
}

// findRunnable returns a G to run on mp's P, or nil after giving the P back
// and parking mp (or blocking it in netpoll), or nil while mp spends the
// time of a steal pass (it runs schedule again after it). Mirrors
// findRunnable (GC workers only with --gc-cycle=mark).
func (m *Machine) findRunnable(mp *M) (*G, bool) {
	tries := 0
top:
	if tries++; tries > 1000 {
		throw(fmt.Sprintf("findRunnable: M%d looped 1000 times at one instant", mp.id))
	}
	pp := mp.p
	m.checkTimers(pp)

	// Try to schedule a GC worker (findRunnableGCWorker), and wake a P
	// for the work it leaves (tryWakeP).
	if m.gc.marking {
		if gp := m.findRunnableGCWorker(pp); gp != nil {
			m.wakep()
			return gp, false
		}
	}

	// Check the global runnable queue once in a while to ensure fairness.
	if pp.schedtick%61 == 0 && !m.runq.empty() {
		if gp := m.globrunqget(pp); gp != nil {
			return gp, false
		}
	}

	// local runq
	if gp, inheritTime := runqget(pp); gp != nil {
		return gp, inheritTime
	}

	// global runq
	if !m.runq.empty() {
		gp, q := m.globrunqgetbatch(pp, m.globBatch)
		m.runqputbatch(pp, &q)
		if !q.empty() {
			throw("couldn't put Gs into empty local runq")
		}
		return gp, false
	}

	// Poll network: only an optimization before stealing (netpoll.go).
	if gp := m.findRunnableNetpoll(pp); gp != nil {
		return gp, false
	}

	// Spinning Ms: steal work from other Ps. Limit the number of spinning
	// Ms to half the number of busy Ps.
	if m.steals() && (mp.spinning || 2*m.nmspinning < m.gomaxprocs-int32(len(m.pidle))) {
		if !mp.spinning {
			m.becomeSpinning(mp)
		}
		gp, inheritTime, spending := m.stealWork(mp)
		if gp != nil {
			return gp, inheritTime
		}
		if spending {
			return nil, false
		}
	}

	// We have nothing to do. In the mark phase, with mark work left, run
	// an idle worker rather than give up the P.
	if gp := m.findRunnableGCIdle(pp); gp != nil {
		return gp, false
	}

	// Give up the P.
	m.releasep(mp)
	m.pidleput(pp)
	m.emit(EvProcStop, pp, mp, nil, nil, -1, 0, "") // once the P is idle

	if mp.spinning {
		mp.spinning = false
		m.nmspinning--
		if m.nmspinning < 0 {
			throw("findRunnable: negative nmspinning")
		}
		// Check the global and local queues again: a G may have been
		// readied between our last look and dropping the P.
		if !m.runq.empty() || (m.steals() && m.anyRunq()) {
			if pp2 := m.pidleget(); pp2 != nil {
				m.acquirep(mp, pp2)
				m.becomeSpinning(mp)
				goto top
			}
		}
	}
	// Poll network until next timer: the last M with nothing to do
	// blocks in netpoll, if the poller is in use (netpoll.go).
	if m.netpollBlockM(mp) {
		return nil, false
	}
	m.stopm(mp)
	// Timers on idle Ps need a thread to run them; wakeNetPoller was
	// asked for them when they were added (see time.go).
	return nil, false
}

// anyRunq reports whether any live P that is not idle has a G in its ring
// or runnext. Mirrors checkRunqsNoP.
func (m *Machine) anyRunq() bool {
	for _, p2 := range m.allp[:m.gomaxprocs] {
		if p2.status != Pidle && (p2.runqtail != p2.runqhead || runnextStealable(p2)) {
			return true
		}
	}
	return false
}

// stealWork tries to steal a G from another P for mp: four rounds over all
// Ps in a random order, runnext and timers only in the last round. Each
// round takes the steal_pass cost first: mp queues its next schedule after
// it and stealWork reports spending; when mp runs again, findRunnable looks
// at the queues again and stealWork goes on with the round it paid for
// (mp.stealRound). With no cost, all rounds happen in one instant.
// Mirrors stealWork.
func (m *Machine) stealWork(mp *M) (gp *G, inheritTime, spending bool) {
	pp := mp.p
	if p2 := mp.napP; p2 != nil {
		// Awake after runqgrab's sleep: take p2's runnext if the G
		// is still there, else what p2 has now.
		napped := mp.napG
		mp.napP, mp.napG = nil, nil
		if gp, napping := m.stealFrom(mp, p2, napped); gp != nil || napping {
			return gp, false, napping
		}
	}
	for i := int(mp.stealRound); i < stealTries; i++ {
		if !mp.stealPaid {
			if d := m.costOf(CostStealPass); d > 0 {
				mp.stealRound, mp.stealPaid = int8(i), true
				m.scheduleAfter(mp, d)
				return nil, false, true
			}
		}
		mp.stealPaid = false
		stealTimersOrRunNextG := i == stealTries-1
		for enum := m.stealOrd.start(m.cheaprandn(1 << 31)); !enum.done(); enum.next() {
			p2 := m.allp[enum.position()]
			if pp == p2 {
				continue
			}
			if stealTimersOrRunNextG && p2.timers.Len() > 0 {
				if m.runTimers(p2, pp) {
					// Running the timers may have readied Gs into
					// our run queue.
					if gp, inheritTime := runqget(pp); gp != nil {
						return gp, inheritTime, false
					}
				}
			}
			// Don't bother to attempt to steal if p2 is idle.
			if p2.status == Pidle {
				continue
			}
			if !stealTimersOrRunNextG {
				if gp := m.runqsteal(pp, p2, false, nil); gp != nil {
					return gp, false, false
				}
				continue
			}
			if gp, napping := m.stealFrom(mp, p2, nil); gp != nil || napping {
				if napping {
					mp.stealRound, mp.stealPaid = int8(i), true
				}
				return gp, false, napping
			}
		}
	}
	mp.stealRound = 0
	return nil, false, false
}

// stealFrom is stealWork's last-round steal from p2, runnext included.
// When p2's ring is empty and its runnext busy (runnextBusy), the thief
// first sleeps for the runnext_sleep cost, as runqgrab's usleep(3) does:
// mp queues its next schedule after it and stealFrom reports napping,
// with the G it slept for in mp.napG. Awake, stealWork calls stealFrom
// again with napped: the thief takes the runnext only if that G is still
// there (the compare-and-swap); if p2 ran it meanwhile, it looks at p2's
// queues again, and may sleep again for a new runnext, as runqgrab's loop
// does. With no runnext_sleep cost, no time passes and runnextStealable
// decides.
func (m *Machine) stealFrom(mp *M, p2 *P, napped *G) (gp *G, napping bool) {
	pp := mp.p
	if p2.runqtail == p2.runqhead && p2.runnext != nil && p2.runnext != napped && runnextBusy(p2) {
		if d := m.costOf(CostRunnextSleep); d > 0 {
			mp.napP, mp.napG = p2, p2.runnext
			m.scheduleAfter(mp, d)
			return nil, true
		}
	}
	return m.runqsteal(pp, p2, true, napped), false
}

// execute runs gp on mp: the G becomes _Grunning, and unless it inherits
// the time slice of a runnext hand-off, the P's schedtick advances.
// Mirrors execute.
func (m *Machine) execute(mp *M, gp *G, inheritTime bool) {
	pp := mp.p
	mp.curg = gp
	mp.woken = false
	if m.wakerDebt > 0 { // chargeWaker
		gp.stepCarry += m.wakerDebt * 1000
		m.wakerDebt = 0
	}
	gp.mp = mp
	if gp.readyP != 0 {
		m.sstats.Readied++
		if gp.readyP == pp.id+1 {
			m.sstats.ReadiedLocal++
		}
		gp.readyP = 0
	}
	casgstatus(gp, Grunnable, Grunning)
	gp.preempt = false
	gp.dispatches++
	if !inheritTime {
		pp.schedtick++
	}
	var inh int64
	if inheritTime {
		inh = 1
	}
	m.emit(EvGoStart, pp, mp, gp, nil, -1, inh, "")
	m.ensureSysmon()
	m.resumeSysmon()
	m.resume(gp)
}

// resume hands the baton to gp: Step switches to gp's coroutine, until
// gp's next scheduling point, as soon as the action that chose gp returns.
// Every caller returns right after resume. The switch is not made here,
// deep under perform, because every frame between Step's caller and the
// switch costs a mispredicted return each time the baton comes back
// (BenchmarkPullDepth, docs/performance.md).
func (m *Machine) resume(gp *G) {
	if m.handoff != nil {
		m.badResume(gp)
	}
	m.handoff = gp
}

// badResume throws for a second resume before Step switched to the first
// G. It is apart from resume so that resume stays small.
func (m *Machine) badResume(gp *G) {
	throw(fmt.Sprintf("resume of G%d: G%d is already handed the baton", gp.goid, m.handoff.goid))
}

// exited deals with a G whose coroutine ended: its function returned or
// failed.
func (m *Machine) exited(gp *G) {
	if tp := gp.co.panicked; tp != nil {
		if ie, ok := tp.Value.(*InternalError); ok {
			m.finish(Internal, ie, gp)
			return
		}
		if le, ok := tp.Value.(*LimitError); ok {
			m.finish(Limit, le, gp)
			return
		}
		gp.err = tp
		m.finish(Panicked, tp, gp)
		return
	}
	if gp.err != nil {
		if le, ok := gp.err.(*LimitError); ok {
			m.finish(Limit, le, gp)
			return
		}
		m.finish(Panicked, gp.err, gp)
		return
	}
	m.goexit0(gp)
}

// coroFor gives gp, about to run for the first time, its coroutine: a
// finished one from the free list, whose host goroutine's stack has grown
// already, or a new one. Making it here rather than in newproc1 means that
// a million goroutines queued before any runs (main spawning in a loop at
// one P) hold no coroutine, and at one P they share the one that the
// first to finish leaves behind.
func (m *Machine) coroFor(gp *G) *coro {
	body := func(*coro) { gp.err = gp.fn(gp) }
	if n := len(m.coroFree); n > 0 {
		c := m.coroFree[n-1]
		m.coroFree[n-1] = nil
		m.coroFree = m.coroFree[:n-1]
		c.reuse(body)
		return c
	}
	return newPooledCoro(body)
}

// goexit0 finishes a G whose function returned: it becomes _Gdead and goes
// to its P's free list, and its M schedules again. When the G is main, the
// program exits. Mirrors goexit0/gdestroy.
func (m *Machine) goexit0(gp *G) {
	m.touchG(gp.goid, AccessExit)
	mp := gp.mp
	pp := mp.p
	casgstatus(gp, Grunning, Gdead)
	m.gcFlushAssistCredit(gp)
	if !gp.system {
		m.ngalive--
	} else {
		m.ngsys--
	}
	if len(m.coroFree) < coroFreeMax {
		m.coroFree = append(m.coroFree, gp.co)
	} else {
		gp.co.stop()
	}
	gp.co = nil
	gp.mp = nil
	mp.curg = nil
	// Reported once made, so that a REPL paused at the event shows it.
	m.emit(EvGoDestroy, pp, mp, gp, nil, -1, 0, "")
	if gp == m.mainG {
		m.finish(Exited, nil, nil)
		return
	}
	m.gfput(pp, gp)
	m.scheduleAfter(mp, m.switchCost(mp))
}

// switchCost is the cost of mp's switch from the G it ran, which blocked
// or exited, to the next: switch, or, for the first since mp parked
// (stopm, netpoll), switch_wake. On a virtual machine a thread back from
// a sleep of a millisecond takes 14µs or more for that switch, where the
// next ones take tens of ns (docs/faithfulness.md, "A switch just after
// a wake-up"). A profile without switch_wake charges switch for it
// (Costs.charged), so it schedules as before.
func (m *Machine) switchCost(mp *M) int64 {
	if mp.parked {
		mp.parked = false
		return m.costOf(CostSwitchWake)
	}
	return m.costOf(CostSwitch)
}

// gfput puts a dead G on pp's free list; a list grown to 64 gives half to
// the global list. Mirrors gfput.
func (m *Machine) gfput(pp *P, gp *G) {
	pp.gFree.push(gp)
	if pp.gFree.size >= gFreeLocalMax {
		for pp.gFree.size >= gFreeBatch {
			m.gFree.push(pp.gFree.pop())
		}
	}
}

// gfget takes a dead G from pp's free list, refilling it from the global
// list first if it is empty. Mirrors gfget.
func (m *Machine) gfget(pp *P) *G {
	if pp.gFree.empty() && !m.gFree.empty() {
		for pp.gFree.size < gFreeBatch && !m.gFree.empty() {
			pp.gFree.push(m.gFree.pop())
		}
	}
	return pp.gFree.pop()
}

// newprocCost is the cost a go statement on pp pays before its G is
// queued: malg when gfget would find no dead G (pp's free list and the
// global one empty), so that newproc1 must allocate a G and its stack
// (newproc for a profile without malg, Costs.charged); newproc otherwise.
func (m *Machine) newprocCost(pp *P) CostKind {
	if pp.gFree.empty() && m.gFree.empty() {
		return CostMalg
	}
	return CostNewproc
}

// spendNewproc charges the program's go statement on g's P: newprocCost,
// or, for the k-th go statement of the program that makes a new G, the
// profile's MalgRank[k-1] when it has one (the runtime's own goroutines
// of the start-up are not the program's, and not counted).
func (g *G) spendNewproc() {
	m := g.m
	k := m.newprocCost(g.mp.p)
	if k != CostMalg {
		g.spendCost(k)
		return
	}
	m.malgs++
	if c := m.cfg.Costs; c != nil && m.malgs <= len(c.MalgRank) {
		if ns := m.rankCost(c.MalgRank, m.malgs); ns > 0 {
			g.spend(ns, false)
		}
		return
	}
	g.spendCost(k)
}

// rankCost returns what the k-th of a ranked cost charges now (k from 1
// to len(ranks)): its distribution's median, or with
// Perturb.SampleCosts a value drawn from it, as costOf does.
func (m *Machine) rankCost(ranks []Dist, k int) int64 {
	d := &ranks[k-1]
	if m.sampleCosts {
		return d.Sample(m.rng)
	}
	return d.Median()
}

// newproc1 makes a G to run fn, reusing a dead one if pp has any, with a
// fresh goid from pp's goidcache. The G is _Grunnable and on no queue. A
// fresh G goes _Gidle → _Gdead (allgadd) → _Grunnable, a reused one
// _Gdead → _Grunnable, as in the runtime. Mirrors newproc1.
func (m *Machine) newproc1(fn Func, creator *G, pp *P, name string) *G {
	gp := m.gfget(pp)
	if gp == nil {
		gp = &G{m: m, status: Gidle}
		m.allg = append(m.allg, gp)
	} else {
		m.stats.GFreeReused++
		*gp = G{m: m, status: Gdead, gen: gp.gen + 1}
	}
	if pp.goidcache == pp.goidcacheN {
		m.goidgen += goidCacheBatch
		pp.goidcache = m.goidgen - goidCacheBatch + 1
		pp.goidcacheN = pp.goidcache + goidCacheBatch
	}
	gp.goid = pp.goidcache
	pp.goidcache++
	if gp.status == Gidle {
		// allgadd's edge; the runtime makes it before the goid is set,
		// here it is made after, so that --trace-states names the G.
		casgstatus(gp, Gidle, Gdead)
	}
	gp.fn = fn
	gp.name = name
	gp.created = m.now
	if creator != nil {
		gp.createdBy = creator.goid
	}
	// The coroutine comes when the G first runs (coroFor): a G waiting
	// in a queue is its function and its state, as a Go G that has not
	// run is its entry PC and a stack that has not grown.
	casgstatus(gp, Gdead, Grunnable)
	if isSystemGoroutine(name) {
		// Not a goroutine the program counts (NumGoroutine leaves out
		// sched.ngsys) or its limit.
		gp.system = true
		m.ngsys++
		return gp
	}
	m.ngalive++
	m.stats.Goroutines++
	if m.ngalive > m.stats.MaxGoroutines {
		m.stats.MaxGoroutines = m.ngalive
	}
	return gp
}

// newprocput queues newg, just made on pp by by (nil for a timer's
// goroutine) running on mp: in pp's runnext, unless a variant or the
// runnext perturbation says the ring (putsRunnext), or on an idle P with
// a thread started for it (handoff); then it wakes a P. The tail of
// newproc (runqput, then wakep).
func (m *Machine) newprocput(pp *P, mp *M, by, newg *G, name string) {
	m.touchG(newg.goid, AccessRelease)
	if p2 := m.handoffP(); p2 != nil {
		m.runqput(p2, newg, false)
		m.emit(EvGoCreate, pp, mp, by, newg, -1, 0, name)
		m.startm(p2, false)
		return
	}
	next := m.putsRunnext()
	m.runqput(pp, newg, next)
	var where int64
	if next {
		where = 1
	}
	if m.cfg.Sched.Central {
		where = 2 // runqput puts it on the global queue
	}
	m.emit(EvGoCreate, pp, mp, by, newg, -1, where, name)
	m.wakepReady()
}

// pollWork reports whether pp has other work than the idle mark worker
// running on it: a G in the global queue or pp's own, or one the network
// makes runnable now, which a non-blocking poll finds and queues (the
// others to idle Ps, as injectglist does). Mirrors pollWork.
func (m *Machine) pollWork(pp *P) bool {
	if !m.runq.empty() || !runqempty(pp) {
		return true
	}
	np := &m.np
	if np.inited && np.waiters > 0 && np.pollM == nil {
		if list, delta := m.pollNetwork(pp, "pollWork"); !list.empty() {
			m.injectglist(&list, pp)
			m.netpollAdjustWaiters(delta)
			return true
		}
	}
	return false
}

// goschedImpl puts the running G on the global queue and reschedules its M.
// preempted says the G was preempted rather than calling gosched.
// Mirrors goschedImpl.
func (m *Machine) goschedImpl(gp *G, preempted bool) {
	mp := gp.mp
	pp := mp.p
	casgstatus(gp, Grunning, Grunnable)
	m.dropg(gp)
	m.globrunqput(gp)
	if preempted {
		m.emit(EvGoPreempt, pp, mp, gp, nil, -1, 0, "")
	} else {
		m.emit(EvGoSched, pp, mp, gp, nil, -1, 0, "")
	}
	m.wakep()
	m.scheduleAfter(mp, m.costOf(CostGosched))
}

// dropg removes the association between gp and its M. Mirrors dropg.
func (m *Machine) dropg(gp *G) {
	if gp.mp != nil {
		gp.mp.curg = nil
		gp.mp = nil
	}
}

// gopark puts the running G into _Gwaiting with the given reason and
// reschedules its M. The caller yields the coroutine right after.
// Mirrors gopark/park_m.
func (m *Machine) gopark(gp *G, reason string) {
	m.touchG(gp.goid, AccessPark)
	mp := gp.mp
	pp := mp.p
	gp.waitreason = reason
	casgstatus(gp, Grunning, Gwaiting)
	m.dropg(gp)
	m.emit(EvGoBlock, pp, mp, gp, nil, -1, 0, reason)
	m.scheduleAfter(mp, m.switchCost(mp)+mp.parkWork)
	mp.parkWork = 0
}

// ready makes a waiting G runnable on pp, in runnext when next is set, and
// wakes a P if one is idle. by is the G doing it (nil for a timer or the
// host). Mirrors ready/goready.
func (m *Machine) ready(gp *G, pp *P, by *G, next bool) {
	m.touchG(gp.goid, AccessRelease)
	casgstatus(gp, Gwaiting, Grunnable)
	gp.waitreason = ""
	clear(gp.waitingOn) // keep the array for its next wait, not what it held
	gp.waitingOn = gp.waitingOn[:0]
	where := int64(1)
	if !next {
		where = 0
	}
	if pp == nil {
		// No P to put it on (the host readied it while nothing runs):
		// the global queue, as injectglist does without a P.
		m.globrunqput(gp)
		m.emit(EvGoUnblock, nil, nil, by, gp, -1, 2, "")
		m.wakep()
		return
	}
	if by != nil {
		gp.readyP = pp.id + 1
	}
	if next && !m.putsRunnext() {
		next, where = false, 0
	}
	if p2 := m.handoffP(); p2 != nil {
		// The readying G's event; the MStart on p2 that follows says
		// where gp went.
		m.runqput(p2, gp, false)
		m.emit(EvGoUnblock, pp, pp.m, by, gp, -1, 0, "")
		m.startm(p2, false)
		return
	}
	if m.cfg.Sched.Central {
		where = 2 // runqput puts it on the global queue
	}
	m.runqput(pp, gp, next)
	m.emit(EvGoUnblock, pp, pp.m, by, gp, -1, where, "")
	m.wakepReady()
}

// entersyscall moves the running G into a system call lasting d: the G is
// _Gsyscall, its P is _Psyscall and has no M, and sysmon may retake it.
// The call is not counted in pp.syscalltick here: reentersyscall only
// copies the tick to the M, and exitsyscall (or retake's takeP) bumps it.
// So a sysmon pass that finds a P in a system call, with no call ended on
// it since the pass that noted its tick (its first call, say), retakes it
// at once; otherwise it notes the tick and retakes at the next pass.
// Mirrors entersyscall/reentersyscall.
func (m *Machine) entersyscall(gp *G, d int64) {
	mp := gp.mp
	pp := mp.p
	casgstatus(gp, Grunning, Gsyscall)
	pp.status = Psyscall
	pp.m = nil
	mp.p = nil
	mp.oldp = pp
	mp.syscalltick = pp.syscalltick
	mp.syscall = true
	m.cpuDrop(mp) // blocked in the kernel: its CPU is free
	// Reported once made, so that a REPL paused at the event shows it.
	m.emit(EvGoSyscallBegin, pp, mp, gp, nil, -1, d, "")
	m.ensureSysmon()
	m.entersyscallWakeSysmon()
	m.after(d, action{kind: actSyscallDone, gp: gp})
}

// exitsyscall returns gp from its syscall: it keeps its old P if sysmon did
// not take it, else it takes a P from exitsyscallTryGetP, else it goes to
// the global queue and its M stops. Mirrors exitsyscall and exitsyscallNoP.
func (m *Machine) exitsyscall(gp *G) {
	mp := gp.mp
	mp.syscall = false
	oldp := mp.oldp
	mp.oldp = nil
	if oldp != nil && oldp.status == Psyscall && oldp.m == nil && oldp.syscalltick == mp.syscalltick {
		// Fast path: the P is still ours.
		oldp.status = Prunning
		oldp.m = mp
		mp.p = oldp
		oldp.syscalltick++
		casgstatus(gp, Gsyscall, Grunning)
		m.emit(EvGoSyscallEnd, oldp, mp, gp, nil, -1, 0, "fast")
		m.resumeOnCPU(mp, gp)
		return
	}
	if pp, reason := m.exitsyscallTryGetP(mp, oldp); pp != nil {
		m.acquirep(mp, pp)
		casgstatus(gp, Gsyscall, Grunning)
		m.emit(EvGoSyscallEnd, pp, mp, gp, nil, -1, 0, reason)
		pp.schedtick++
		m.resumeOnCPU(mp, gp)
		return
	}
	// exitsyscallNoP: no P. The G is back from its syscall, _Grunning,
	// before it goes on the global queue and its M parks.
	casgstatus(gp, Gsyscall, Grunning)
	casgstatus(gp, Grunning, Grunnable)
	m.dropg(gp)
	m.globrunqput(gp)
	// Reported once the G is on the global queue, so that a REPL paused
	// at the event shows it there, not as its M's runnable curg.
	m.emit(EvGoSyscallEnd, nil, mp, gp, nil, -1, 0, "no p")
	m.stopm(mp)
}

// exitsyscallTryGetP finds a P for mp, whose own was retaken while it was in
// a syscall: its old P, if it is in a syscall again, another M's (sysmon
// handed it off and the G run there entered a syscall in turn), taken from
// that M as retake would (setBlockOnExitSyscall and takeP: a ProcSteal by
// mp, exit "old p"; the robbed M finds it running when its own syscall
// ends); else an idle P (exit "idle p"); else nil. Mirrors
// exitsyscallTryGetP.
func (m *Machine) exitsyscallTryGetP(mp *M, oldp *P) (*P, string) {
	if oldp != nil && oldp.status == Psyscall && oldp.m == nil {
		oldp.status = Pidle
		oldp.syscalltick++
		m.emit(EvProcSteal, oldp, mp, nil, nil, -1, 0, "")
		return oldp, "old p"
	}
	if pp := m.pidleget(); pp != nil {
		return pp, "idle p"
	}
	return nil, ""
}

// ensureSysmon starts sysmon the first time a G runs. sysmon is a thread
// that never stops; here it is a chain of actSysmon actions, started once.
func (m *Machine) ensureSysmon() {
	if m.sysmonStarted {
		return
	}
	m.sysmonStarted = true
	m.sysmonIdle = 0
	m.sysmonDelay = m.sysmonNextDelay()
	m.sysmonUsleep(m.sysmonDelay)
}

// sysmonUsleep queues sysmon's next pass after its usleep(d), which lasts
// d and, with a profile that has sysmon_late, a drawn lateness (the
// kernel's timer slack, 50µs for a normal thread, and the thread's
// wake-up: 70µs at the median on the 2-vCPU AMD EPYC host, so a tick
// takes about 90µs, not 20µs). The k-th usleep of the run draws the
// profile's SysmonLateRank[k-1] in its place, when it has one: a
// process's first ticks are its slowest. A sleep over several skipped
// passes (sysmonSkip) draws it once. Its deep sleep until a timer is no
// usleep (notetsleep) and is queued with sysmonAfter alone.
func (m *Machine) sysmonUsleep(d int64) {
	if m.sysmonLate {
		m.sysmonSleeps++
		if m.sysmonSleeps <= len(m.sysmonRanks) {
			d = addWhen(d, m.rankCost(m.sysmonRanks, m.sysmonSleeps))
		} else {
			d = addWhen(d, m.costOf(CostSysmonLate))
		}
	}
	m.sysmonAfter(d)
}

// sysmonNextDelay is the sleep at the top of sysmon's loop: 20µs, doubling
// after 50 idle cycles, at most 10ms.
func (m *Machine) sysmonNextDelay() int64 {
	d := m.sysmonDelay
	if m.sysmonIdle == 0 {
		d = sysmonMinDelay
	} else if m.sysmonIdle > sysmonIdleCycles {
		d *= 2
	}
	return min(d, sysmonMaxDelay)
}

// sysmonAfter queues sysmon's next wake-up d ns from now, replacing any.
func (m *Machine) sysmonAfter(d int64) {
	m.sysmonGen++
	m.after(d, action{kind: actSysmon, gen: m.sysmonGen})
}

// sysmon is one pass of the system monitor's loop, after its sleep: when
// every P is idle it sleeps deeply until the next timer; otherwise it
// retakes Ps blocked in syscalls and preempts Gs that ran too long, then
// sleeps again. Mirrors sysmon.
func (m *Machine) sysmon() {
	if !m.sysmonDeep && int32(len(m.pidle)) == m.gomaxprocs {
		// Deep sleep until the next timer, or until a G enters a
		// syscall (entersyscall wakes sysmon then).
		next := m.nextTimer()
		if next < 0 {
			m.sysmonDeep = true
			m.sysmonWaiting = true
			return // no action queued: woken by entersyscallWakeSysmon
		}
		if next > m.now {
			m.sysmonDeep = true
			m.sysmonAfter(next - m.now)
			return
		}
	}
	m.sysmonDeep = false
	m.sysmonWaiting = false
	m.sysmonNetpoll()
	if m.retake() != 0 {
		m.sysmonIdle = 0
	} else {
		m.sysmonIdle++
	}
	m.sysmonDelay = m.sysmonNextDelay()
	m.sysmonUsleep(m.sysmonSkip(m.sysmonDelay))
}

// sysmonSkip returns how long sysmon sleeps before its next pass: d, or,
// when the passes until the next action can find nothing to do, up to the
// last of them before it, in one step. A pass at the longest sleep (10ms)
// acts only on a P in a syscall (retake) or a G running long enough to be
// preempted; with neither, every pass until the next action changes
// nothing but sysmon's idle count, so the count is advanced and the
// passes are not made. Without it, a G that works for a year with
// preemption off would take 3 billion sysmon passes to get there; sysmon
// in proc.go sleeps through them as usleep does.
//
// A running P counts only while a pass could still preempt its G: a G in
// the middle of work is preempted by the next pass that finds its slice
// used up, but a G in a charge that is not preemptible (newproc's, a
// switch's) or an M on g0 only gets gp.preempt set, and once it is set,
// further passes change nothing until the next action (a profile whose
// costs are ten years long would otherwise take 30 billion passes).
func (m *Machine) sysmonSkip(d int64) int64 {
	if d != sysmonMaxDelay || len(m.actions) == 0 {
		return d
	}
	next := m.actions[0]
	if next.kind == actSysmon || next.when-m.now <= 2*d {
		return d
	}
	for _, pp := range m.allp[:m.gomaxprocs] {
		if pp.status == Psyscall || pp.status == Prunning && !m.cfg.NoPreempt && m.canPreempt(pp) {
			return d
		}
	}
	if m.sysmonMayPoll() {
		return d
	}
	j := (next.when - m.now - 1) / d // passes at now+d, ..., now+j*d come before it
	m.sysmonIdle += int(j - 1)
	return j * d
}

// canPreempt reports whether a sysmon pass could still act on running P
// pp: it has a G in the middle of work (preemptone takes it off), or a G
// whose preemption request is not posted yet.
func (m *Machine) canPreempt(pp *P) bool {
	mp := pp.m
	if mp == nil || mp.curg == nil {
		return false
	}
	gp := mp.curg
	return gp.workUntil > m.now || !gp.preempt
}

// entersyscallWakeSysmon is entersyscall's wake-up of a deeply sleeping
// sysmon: it starts again with a 20µs sleep. Mirrors
// entersyscallWakeSysmon.
func (m *Machine) entersyscallWakeSysmon() {
	if !m.sysmonDeep {
		return
	}
	m.sysmonDeep = false
	m.sysmonWaiting = false
	m.sysmonIdle = 0
	m.sysmonDelay = sysmonMinDelay
	m.sysmonUsleep(m.sysmonDelay)
}

// resumeSysmon restarts a sysmon that went to sleep with no timer to wake
// it, when a G starts running again (in the real runtime the sleep is
// bounded by forcegcperiod/2, and a thread that takes a P would find sysmon
// awake by then; here nothing else could wake it).
func (m *Machine) resumeSysmon() {
	if m.sysmonWaiting {
		m.restartSysmon()
	}
}

// restartSysmon is resumeSysmon's slow path: sysmon sleeps again with its
// last delay.
func (m *Machine) restartSysmon() {
	m.sysmonWaiting = false
	m.sysmonDeep = false
	m.sysmonUsleep(m.sysmonDelay)
}

// nextTimer returns the earliest timer deadline over all Ps, or -1.
func (m *Machine) nextTimer() int64 {
	next := int64(-1)
	for _, pp := range m.allp[:m.gomaxprocs] {
		if pp.timers.Len() > 0 && (next < 0 || pp.timers[0].when < next) {
			next = pp.timers[0].when
		}
	}
	return next
}

// retake preempts Gs that have run on the same schedtick for 10ms and takes
// Ps from Ms that have been in a syscall for a sysmon tick, when there is
// other work. It returns how many Ps it acted on. Mirrors retake.
func (m *Machine) retake() int {
	n := 0
	now := m.now
	for _, pp := range m.allp[:m.gomaxprocs] {
		pd := &pp.sysmonTick
		switch pp.status {
		case Prunning:
			if pd.schedtick != pp.schedtick {
				pd.schedtick = pp.schedtick
				pd.schedwhen = now
			} else if now-pd.schedwhen >= forcePreemptNS { // schedwhen+forcePreemptNS <= now, without the sum (clockend.go)
				m.preemptone(pp) // not counted: only a P taken from a syscall wakes sysmon up
			}
		case Psyscall:
			if pd.syscalltick != pp.syscalltick {
				pd.syscalltick = pp.syscalltick
				pd.syscallwhen = now
				continue
			}
			if runqempty(pp) && m.nmspinning+int32(len(m.pidle)) > 0 && now-pd.syscallwhen < syscallRetakeNS { // syscallwhen+10ms > now, without the sum
				continue
			}
			pp.status = Pidle
			pp.syscalltick++ // takeP
			m.emit(EvProcSteal, pp, nil, nil, nil, -1, 0, "")
			n++
			m.handoffp(pp)
		}
	}
	return n
}

// preemptone preempts the G running on pp, if preemption is on and the G
// is at a safe point: in this simulation, in the middle of work. The G
// goes to the global queue. Mirrors preemptone plus the asynchronous
// preemption that follows (asyncPreempt → gopreempt_m → goschedImpl).
//
// With preemption off (Config.NoPreempt: Go before 1.14, or Go 1.26 with
// GODEBUG=asyncpreemptoff=1) it only posts the request, as preemptone
// does before it sends the signal: gp.preempt, the runtime's
// gp.preempt = true and gp.stackguard0 = stackPreempt. The G goes on
// running; the next function call's stack check honours the request
// (G.Morestack), and a loop without calls never sees it. It reports false
// then, as nothing was preempted yet.
func (m *Machine) preemptone(pp *P) bool {
	mp := pp.m
	if mp == nil || mp.curg == nil {
		return false
	}
	gp := mp.curg
	if gp.markMode != gcMarkWorkerNotWorker {
		return m.preemptMarkWorker(pp, gp)
	}
	if gp.inMarkAssist {
		// An assist marks on the system stack: the request waits for
		// the end of its chunk (gcDrainN checks gp.preempt).
		gp.preempt = true
		return false
	}
	if m.cfg.NoPreempt {
		gp.preempt = true
		return false
	}
	if gp.workUntil <= m.now {
		gp.preempt = true
		return false
	}
	gp.workLeft = gp.workUntil - m.now
	gp.workUntil = m.now
	gp.gen++ // the pending completion is stale now
	m.goschedImpl(gp, true)
	return true
}

// stopTheWorld takes every P but the caller's away from its M: a G in the
// middle of work on another P is preempted into its own P's runnext (Go
// 1.26's goschedImpl: "If preempted for STW, keep the G on the local P in
// runnext so it can keep running immediately after the STW"), and the M
// goes idle. Ps in syscalls are left to their Gs. Mirrors
// stopTheWorldWithSema, with the preemption of running Gs made explicit.
func (m *Machine) stopTheWorld(self *G) {
	cur := self.mp.p
	for _, pp := range m.allp[:m.gomaxprocs] {
		if pp == cur || pp.status != Prunning {
			continue
		}
		mp := pp.m
		if gp := mp.curg; gp != nil {
			if gp.cpuFrozen {
				gp.cpuFrozen = false // its thread was off its CPU: workLeft is what is left
			} else {
				gp.workLeft = max(gp.workUntil-m.now, 0)
			}
			gp.workUntil = m.now
			gp.gen++
			if !m.runnextOn() {
				// no-runnext, central: the global queue, as before Go 1.26
				m.emit(EvGoPreempt, pp, mp, gp, nil, -1, 0, "")
				casgstatus(gp, Grunning, Grunnable)
				m.dropg(gp)
				m.globrunqput(gp)
			} else {
				m.emit(EvGoPreempt, pp, mp, gp, nil, -1, 1, "")
				casgstatus(gp, Grunning, Grunnable)
				m.dropg(gp)
				m.runqput(pp, gp, true)
			}
		}
		if mp.nextp == pp {
			mp.nextp = nil
			pp.m = nil
		} else {
			m.releasep(mp)
		}
		if mp.spinning {
			mp.spinning = false
			m.nmspinning--
		}
		pp.status = Pgcstop
		m.emit(EvProcStop, pp, mp, nil, nil, -1, 0, "") // once the P is stopped
		m.stopm(mp)
	}
}

// procresize changes the number of Ps to nprocs: new Ps start idle; Ps cut
// off give their run queues to the global queue (runnext first), their
// timers and free Gs to the caller's P, and die. If the caller's own P is
// cut off, the caller moves to P0. Mirrors procresize and p.destroy.
func (m *Machine) procresize(nprocs int32) {
	old := m.gomaxprocs
	m.gcStatsProcResize(old)
	for int32(len(m.allp)) < nprocs {
		pp := &P{id: int32(len(m.allp)), status: Pdead}
		m.allp = append(m.allp, pp)
	}
	for i := old; i < nprocs; i++ {
		pp := m.allp[i]
		pp.status = Pidle
		m.pidle = append(m.pidle, pp)
		m.limiterStart(pp, limiterEventIdle)
	}
	var self *M
	if m.curg != nil && m.curg.mp != nil {
		self = m.curg.mp
	}
	for i := nprocs; i < old; i++ {
		pp := m.allp[i]
		moved := int64(pp.runqtail - pp.runqhead)
		if pp.runnext != nil {
			moved++
		}
		if moved > 0 {
			m.emit(EvGlobalRunqPut, pp, nil, nil, nil, -1, moved, "")
		}
		for pp.runqhead != pp.runqtail {
			pp.runqtail--
			gp := pp.runq[pp.runqtail%runqSize]
			pp.runq[pp.runqtail%runqSize] = nil
			m.globrunqputhead(gp)
		}
		if pp.runnext != nil {
			m.globrunqputhead(pp.runnext)
			pp.runnext = nil
		}
		dst := m.allp[0]
		if self != nil && self.p != nil && self.p.id < nprocs {
			dst = self.p
		}
		// Move the timers, dropping the zombies (timers.take).
		for pp.timers.Len() > 0 {
			t := pp.timers.popMin()
			t.pp = nil
			if t.zombie {
				t.zombie = false
				continue
			}
			t.pp = dst // keeping its seq: ties keep their order
			dst.timers.push(t)
			m.after(max(t.when-m.now, 0), action{kind: actTimer, pp: dst})
		}
		pp.zombies = 0
		for !pp.gFree.empty() {
			m.gFree.push(pp.gFree.pop())
		}
		if pp.status == Pidle {
			m.pidleRemove(pp)
		}
		if self != nil && self.p == pp {
			m.releasep(self)
		}
		pp.status = Pdead
	}
	m.gomaxprocs = nprocs
	m.stealOrd.reset(uint32(nprocs))
	if old != nprocs {
		m.limiterResetCapacity(nprocs)
	}
	if self != nil && self.p == nil {
		p0 := m.allp[0]
		m.pidleRemove(p0)
		m.acquirep(self, p0)
	}
	if old != 0 {
		m.emit(EvProcResize, nil, self, m.curg, nil, nprocs, int64(old), "")
	}
}

// startTheWorld gives an M to every idle P that has work, then wakes a
// spinning M if there is global work. Mirrors startTheWorldWithSema.
func (m *Machine) startTheWorld() {
	for _, pp := range m.allp[:m.gomaxprocs] {
		if pp.status != Pgcstop {
			continue
		}
		if runqempty(pp) {
			m.pidleput(pp)
		} else {
			m.startm(pp, false)
		}
	}
	if !m.runq.empty() {
		m.wakep()
	}
}
