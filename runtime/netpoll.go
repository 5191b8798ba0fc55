// The network poller: poll descriptors, netpollblock, netpoll and the M
// that sleeps in it.
//
// A goroutine that reads from a socket with no data does not hold a thread
// in read(2): the socket is non-blocking, read fails with EAGAIN, and the
// goroutine parks on the socket's poll descriptor with wait reason "IO
// wait" (netpollblock). The kernel remembers which descriptors became
// ready (epoll's ready list). Nothing in the process learns of it until
// some thread asks, by calling netpoll, which turns the ready descriptors
// into a list of goroutines to run (netpollready). Three places ask, and
// the whole latency story of a Go server is which of them asks first:
//
//   - findRunnable, after the local and global queues and before
//     stealing, makes a non-blocking netpoll(0), if the poller is in use,
//     some goroutine waits on it and no thread is blocked in it already;
//   - the last M with nothing to do, instead of sleeping on a futex,
//     blocks in netpoll(delay) until the next timer or an arrival
//     (findRunnable's "poll network until next timer"). An arrival wakes
//     it within a thread wake-up; it takes an idle P and runs what it
//     found, or, with no idle P, puts it on the global queue and sleeps;
//   - sysmon, when nobody has polled for 10ms (sched.lastpoll).
//
// So with an idle P a request is picked up within microseconds, and with
// every P running user code and no thread blocked in netpoll, only sysmon
// finds it, up to 10ms later, and it then waits on the global queue until
// a P looks there.
//
// Each descriptor has two semaphores, rg for readers and wg for writers
// (here: for connect), each nil (pdNil), pdReady (a notification not yet
// consumed), pdWait (a goroutine is about to park) or the parked G, as in
// netpoll.go. A deadline is a timer on the descriptor
// (netpolldeadlineimpl): when it fires the descriptor's deadline becomes
// -1 (expired) and the parked goroutine is readied to see it.
//
// The kernel's side (sockets, buffers, the network between hosts) is in
// net.go; it calls netpollNotify when a descriptor becomes ready, the one
// place where the world meets the poller.
//
// Invariants:
//
//   - netpollWaiters counts the Gs parked in netpollblock (a G in rg or
//     wg), as netpollblockcommit and netpollunblock's delta keep it;
//   - at most one M is blocked in netpoll (pollM; sched.lastpoll == 0 in
//     Go), and it holds no P and is not on the idle M list;
//   - a descriptor is on the ready list (pollReady) at most once, with the
//     modes that became ready since the last netpoll (pd.ev).
//
// A program that never opens a descriptor never initialises the poller
// (netpollinited is false) and schedules exactly as before: none of the
// clauses above applies to it.

package runtime

import "fmt"

// The states of a poll descriptor's semaphore besides a parked G: pdNil is
// nil; pdReady and pdWait are two sentinel Gs that never run. Mirrors
// pdNil, pdReady and pdWait in netpoll.go.
var (
	pdReady = &G{name: "pdReady"}
	pdWait  = &G{name: "pdWait"}
)

// Poll errors, as netpollcheckerr returns them.
const (
	pollNoError    = 0 // no error
	pollErrClosing = 1 // descriptor is closed
	pollErrTimeout = 2 // I/O timeout
)

// netpollWakeLate is how long after an arrival the M blocked in netpoll
// runs: the thread's wake-up from epoll_wait. How long that takes depends
// on how long the thread slept. One that blocked less than a millisecond
// ago wakes as an M parked on a futex does (the profile's wakeup: one
// kernel path). One that has slept a millisecond or more sleeps on an
// idle CPU, which the host has let go deep (on this 2-vCPU VM the vCPU
// halts), and wakes as late as an M asleep in netpoll until a timer does:
// the profile's timer_late, measured the same way. Real Go on loopback
// (bench/faithfulness/netpoll, wake-idle: messages 5-20ms apart) takes
// 150-167µs at p50 from the send to the reader running; the sum here, the
// network's 30µs plus timer_late's 162µs median, is 192µs
// (docs/faithfulness.md).
func (m *Machine) netpollWakeLate() int64 {
	if m.now-m.np.pollSince < netpollDeepNS {
		return m.wakeupLatency()
	}
	return addWhen(m.costOf(CostTimerLate), m.wakeupJitter())
}

// netpollDeepNS is how long an M must have slept in netpoll before its
// wake-up is that of an idle CPU: the threshold of the profile's timer_late
// (timers of 1ms or more).
const netpollDeepNS = timerShortNS

// A pollDesc is a descriptor registered with the poller. Mirrors pollDesc
// in netpoll.go.
type pollDesc struct {
	fd      int64  // the descriptor's number, for traces and :netpoll
	closing bool   // closed: waits fail with pollErrClosing (pd.closing)
	rg, wg  *G     // the read and write semaphores: nil, pdReady, pdWait or a G
	rd, wd  int64  // read and write deadlines: 0 none, -1 expired, else a time
	rt, wt  *timer // the deadline timers; a reset or close makes the old one a zombie, which never fires
	ev      uint8  // modes ready since the last netpoll ('r'|'w' bits)
	queued  bool   // on the Machine's ready list
	what    string // "listener" or "conn", for :netpoll
}

// Mode bits of pollDesc.ev.
const (
	evRead  = 1
	evWrite = 2
)

// netpollState is the poller's part of the Machine (sched.lastpoll,
// netpollWaiters, the epoll instance's ready list).
type netpollState struct {
	inited    bool        // netpollinited: a descriptor was ever opened
	waiters   int32       // netpollWaiters
	lastpoll  int64       // when the network was last polled (valid while pollM is nil)
	pollM     *M          // the M blocked in netpoll, if any (lastpoll == 0 in Go)
	pollSince int64       // when pollM blocked
	wakeSet   bool        // an actNetpoll is queued for pollM
	ready     []*pollDesc // the kernel's ready list, in the order descriptors became ready
	nextfd    int64
	fds       []*pollDesc // every open descriptor, in fd order (for views)
}

// netpollopen registers a new descriptor, initialising the poller on first
// use. Mirrors poll_runtime_pollOpen and netpollGenericInit.
func (m *Machine) netpollopen(what string) *pollDesc {
	np := &m.np
	if !np.inited {
		np.inited = true
		m.timerFirst = false // the poller is started: no timer starts it (its cost here is not modelled)
		np.lastpoll = m.now
		np.nextfd = 3 // 0, 1 and 2 are stdin, stdout and stderr
	}
	pd := &pollDesc{fd: np.nextfd, what: what}
	np.nextfd++
	np.fds = append(np.fds, pd)
	return pd
}

// netpollclose forgets pd. Mirrors poll_runtime_pollClose.
func (m *Machine) netpollclose(pd *pollDesc) {
	np := &m.np
	for i, q := range np.fds {
		if q == pd {
			np.fds = append(np.fds[:i], np.fds[i+1:]...)
			break
		}
	}
}

// netpollcheckerr reports why a wait on pd in mode ('r' or 'w') cannot
// go on. Mirrors netpollcheckerr.
func netpollcheckerr(pd *pollDesc, mode byte) int {
	if pd.closing {
		return pollErrClosing
	}
	if mode == 'r' && pd.rd < 0 || mode == 'w' && pd.wd < 0 {
		return pollErrTimeout
	}
	return pollNoError
}

// pollReset prepares a read or write: it fails if the descriptor is closed
// or its deadline expired, and forgets a stale read notification. Mirrors
// poll_runtime_pollReset.
func pollReset(pd *pollDesc, mode byte) int {
	if errcode := netpollcheckerr(pd, mode); errcode != pollNoError {
		return errcode
	}
	if mode == 'r' {
		pd.rg = nil
	}
	return pollNoError
}

// pollWait blocks g until pd is ready in mode, or fails with the reason it
// cannot be. Mirrors poll_runtime_pollWait.
func (g *G) pollWait(pd *pollDesc, mode byte) int {
	if errcode := netpollcheckerr(pd, mode); errcode != pollNoError {
		return errcode
	}
	for !g.netpollblock(pd, mode) {
		if errcode := netpollcheckerr(pd, mode); errcode != pollNoError {
			return errcode
		}
		// A deadline fired and was reset before g ran: wait again.
	}
	return pollNoError
}

// netpollblock parks g on pd's semaphore for mode until the descriptor is
// ready (true) or a deadline or close wakes it (false). A notification
// already there is consumed without parking. Mirrors netpollblock and
// netpollblockcommit.
func (g *G) netpollblock(pd *pollDesc, mode byte) bool {
	gpp := &pd.rg
	if mode == 'w' {
		gpp = &pd.wg
	}
	switch *gpp {
	case pdReady:
		*gpp = nil
		return true
	case nil:
		*gpp = pdWait
	default:
		throw(fmt.Sprintf("netpollblock: double wait on fd %d (%c)", pd.fd, mode))
	}
	// Recheck the error states after setting pdWait, as netpollblock does.
	if netpollcheckerr(pd, mode) == pollNoError {
		// netpollblockcommit: pdWait becomes the G, and the waiter count
		// that findRunnable and the blocking poll read goes up.
		*gpp = g
		g.m.np.waiters++
		g.m.gopark(g, WaitReasonIOWait)
		g.co.yield()
	}
	old := *gpp
	*gpp = nil
	if old != nil && old != pdReady && old != pdWait {
		throw(fmt.Sprintf("netpollblock: corrupted pollDesc fd %d", pd.fd))
	}
	return old == pdReady
}

// netpollunblock moves pd's semaphore for mode to pdReady (ioready) or nil
// and returns the G parked on it, if any; delta gets the change of the
// waiter count. Mirrors netpollunblock.
func netpollunblock(pd *pollDesc, mode byte, ioready bool, delta *int32) *G {
	gpp := &pd.rg
	if mode == 'w' {
		gpp = &pd.wg
	}
	old := *gpp
	if old == pdReady {
		return nil
	}
	if old == nil && !ioready {
		// Only set pdReady for ioready; pollWait checks for a timeout
		// or close before it waits.
		return nil
	}
	if ioready {
		*gpp = pdReady
	} else {
		*gpp = nil
	}
	if old == pdWait || old == nil {
		return nil
	}
	*delta--
	return old
}

// netpollready adds the Gs waiting on pd's ready modes to toRun and
// returns the change of the waiter count. Mirrors netpollready.
func netpollready(toRun *gList, pd *pollDesc, ev uint8) int32 {
	var delta int32
	var rg, wg *G
	if ev&evRead != 0 {
		rg = netpollunblock(pd, 'r', true, &delta)
	}
	if ev&evWrite != 0 {
		wg = netpollunblock(pd, 'w', true, &delta)
	}
	if rg != nil {
		toRun.push(rg)
	}
	if wg != nil {
		toRun.push(wg)
	}
	return delta
}

// netpollNotify is the kernel marking pd ready in mode (data or a
// connection arrived, a connect finished, the peer closed): the descriptor
// joins the ready list, and the M blocked in netpoll, if any, wakes after
// a thread wake-up (epoll_wait returns). Nothing in the process sees it
// before someone polls.
func (m *Machine) netpollNotify(pd *pollDesc, ev uint8) {
	np := &m.np
	if pd.closing {
		return // no longer registered with epoll
	}
	pd.ev |= ev
	if !pd.queued {
		pd.queued = true
		np.ready = append(np.ready, pd)
	}
	m.emit(EvNetReady, nil, nil, nil, nil, -1, pd.fd, evString(ev))
	if np.pollM != nil && !np.wakeSet {
		np.wakeSet = true
		m.after(m.netpollWakeLate(), action{kind: actNetpoll})
	}
}

func evString(ev uint8) string {
	switch ev {
	case evRead:
		return "r"
	case evWrite:
		return "w"
	}
	return "rw"
}

// netpoll takes the kernel's ready list and returns the Gs it makes
// runnable (a gList: the last made ready comes first, as in the runtime)
// and the change of the waiter count. It never blocks: the M blocked in
// netpoll is pollM, woken by an action. Mirrors netpoll (netpoll_epoll.go)
// with a zero delay.
func (m *Machine) netpoll() (gList, int32) {
	np := &m.np
	var toRun gList
	var delta int32
	for i, pd := range np.ready {
		np.ready[i] = nil
		ev := pd.ev
		pd.ev, pd.queued = 0, false
		if pd.closing {
			continue
		}
		delta += netpollready(&toRun, pd, ev)
	}
	np.ready = np.ready[:0]
	return toRun, delta
}

// netpollAdjustWaiters applies netpoll's delta. Mirrors
// netpollAdjustWaiters.
func (m *Machine) netpollAdjustWaiters(delta int32) {
	m.np.waiters += delta
	if m.np.waiters < 0 {
		throw("netpollAdjustWaiters: negative waiter count")
	}
}

// pollNetwork is a non-blocking netpoll by pp's M (or by sysmon, pp nil)
// that reports what it found: an EvNetpoll with the number of Gs made
// runnable, if any.
func (m *Machine) pollNetwork(pp *P, who string) (gList, int32) {
	list, delta := m.netpoll()
	if !list.empty() {
		var mp *M
		if pp != nil {
			mp = pp.m
		}
		m.emit(EvNetpoll, pp, mp, nil, nil, -1, int64(list.size), who)
	}
	return list, delta
}

// injectglist makes every G of list runnable. Without a P (sysmon, an M
// back from netpoll with none) they all go on the global queue and an idle
// P is started for each, as far as there are idle Ps. With pp, as many as
// there are idle Ps go on the global queue for them and the rest on pp's
// local queue. Mirrors injectglist.
func (m *Machine) injectglist(list *gList, pp *P) {
	if list.empty() {
		return
	}
	var q gQueue
	for gp := list.pop(); gp != nil; gp = list.pop() {
		q.pushBack(gp)
	}
	startIdle := func(n int32) {
		for ; n > 0; n-- {
			p2 := m.pidleget()
			if p2 == nil {
				break
			}
			m.startm(p2, false)
		}
	}
	if pp == nil {
		n := q.size
		m.globrunqputbatch(&q, nil)
		startIdle(n)
		return
	}
	var globq gQueue
	for npidle := len(m.pidle); npidle > 0 && !q.empty(); npidle-- {
		globq.pushBack(q.pop())
	}
	if !globq.empty() {
		n := globq.size
		m.globrunqputbatch(&globq, pp)
		startIdle(n)
	}
	for !q.empty() && pp.runqtail-pp.runqhead < m.runqCap {
		gp := q.pop()
		m.netpollgoready(gp, pp, unblockRunq)
		pp.runq[pp.runqtail%runqSize] = gp // runqputbatch
		pp.runqtail++
	}
	m.globrunqputbatch(&q, pp)
	m.wakep()
}

// Where netpollgoready says a G went: the GoUnblock Arg.
const (
	unblockRunq   = 0 // the tail of the P's ring
	unblockGlobal = 2 // the global queue
	unblockRun    = 3 // nowhere: the polling M runs it at once
)

// netpollgoready moves gp, just taken from a descriptor by netpoll, to
// _Grunnable, with its GoUnblock by no G (injectglist's GoUnpark) saying
// where it goes.
func (m *Machine) netpollgoready(gp *G, pp *P, where int64) {
	casgstatus(gp, Gwaiting, Grunnable)
	gp.waitreason = ""
	clear(gp.waitingOn)
	gp.waitingOn = gp.waitingOn[:0]
	var mp *M
	if pp != nil {
		mp = pp.m
	}
	m.emit(EvGoUnblock, pp, mp, nil, gp, -1, where, "")
}

// globrunqputbatch makes a batch of Gs from netpoll runnable on the global
// queue (pp is the injecting P, nil for none). Mirrors globrunqputbatch.
func (m *Machine) globrunqputbatch(q *gQueue, pp *P) {
	for gp := q.pop(); gp != nil; gp = q.pop() {
		m.netpollgoready(gp, pp, unblockGlobal)
		m.globrunqput(gp)
	}
}

// findRunnableNetpoll is findRunnable's poll before stealing: only when
// the poller is in use, some G waits on it and no M is blocked in it. It
// returns the G to run, the others going through injectglist. Mirrors the
// "Poll network" clause of findRunnable.
func (m *Machine) findRunnableNetpoll(pp *P) *G {
	np := &m.np
	if !np.inited || np.waiters == 0 || np.pollM != nil {
		return nil
	}
	list, delta := m.pollNetwork(pp, "findRunnable")
	if list.empty() {
		return nil
	}
	gp := list.pop()
	m.netpollgoready(gp, pp, unblockRun)
	m.injectglist(&list, pp)
	m.netpollAdjustWaiters(delta)
	return gp
}

// netpollBlockM is findRunnable's last resort, after mp gave its P back: if
// the poller is in use and someone waits on it or a timer is pending, and
// no M is blocked in netpoll already, mp blocks in netpoll until an
// arrival or the next timer (the timer's own action wakes it, see
// timerWake). It reports whether mp did; if not, mp stops. Mirrors
// findRunnable's "Poll network until next timer".
func (m *Machine) netpollBlockM(mp *M) bool {
	np := &m.np
	if !np.inited || np.pollM != nil || np.waiters == 0 && m.nextTimer() < 0 {
		return false
	}
	if mp.p != nil || mp.spinning {
		throw("netpollBlockM: netpoll with a P or spinning")
	}
	mp.gen++ // no schedule action of its own until it wakes
	mp.stealRound, mp.stealPaid = 0, false
	mp.napP, mp.napG = nil, nil
	mp.stallAt = 0
	mp.parked = true
	mp.woken = false
	np.pollM = mp
	np.pollSince = m.now
	m.cpuDrop(mp)
	m.emit(EvMNetpoll, nil, mp, nil, nil, -1, 0, "")
	if len(np.ready) > 0 && !np.wakeSet {
		// Something became ready since the last poll: epoll_wait returns
		// at once.
		np.wakeSet = true
		m.after(0, action{kind: actNetpoll})
	}
	return true
}

// takePollM wakes the M blocked in netpoll (epoll_wait returned, for an
// arrival or a timer), polls, and returns it with the Gs it found. The
// poller is marked as polled now (sched.lastpoll).
func (m *Machine) takePollM() (*M, gList, int32) {
	np := &m.np
	mp := np.pollM
	np.pollM = nil
	np.lastpoll = m.now
	list, delta := m.netpoll()
	if !list.empty() {
		m.emit(EvNetpoll, nil, mp, nil, nil, -1, int64(list.size), "block")
	}
	return mp, list, delta
}

// netpollWake is the M blocked in netpoll returning for an arrival.
func (m *Machine) netpollWake() {
	m.np.wakeSet = false
	if m.np.pollM == nil {
		return // a timer woke it first (timerWake)
	}
	if mp := m.pollMFor(m.pidleget()); mp != nil {
		m.schedule(mp)
	}
}

// pollMFor is the M blocked in netpoll returning: it polls, and with pp (an
// idle P, taken off the list) it takes pp and keeps what it found for
// schedule to run first (runPolled), and is returned, ready to run
// schedule; with no P it puts what it found on the global queue and stops,
// and pollMFor returns nil. Mirrors the end of findRunnable's blocking
// poll.
func (m *Machine) pollMFor(pp *P) *M {
	mp, list, delta := m.takePollM()
	if pp == nil {
		m.injectglist(&list, nil)
		m.netpollAdjustWaiters(delta)
		m.stopm(mp)
		return nil
	}
	m.netpollAdjustWaiters(delta)
	mp.polled = list
	mp.nextp = pp
	pp.status = Prunning
	pp.m = mp
	m.emit(EvMStart, pp, mp, nil, nil, -1, 0, "")
	return mp
}

// runPolled is schedule's first look for an M back from netpoll with Gs:
// it runs the first and injects the rest, before anything else, as the
// blocking poll in findRunnable returns its list's head.
func (m *Machine) runPolled(mp *M) *G {
	if mp.polled.empty() {
		return nil
	}
	gp := mp.polled.pop()
	m.netpollgoready(gp, mp.p, unblockRun)
	m.injectglist(&mp.polled, mp.p)
	return gp
}

// sysmonNetpoll is sysmon's poll: when the poller is in use, no M is
// blocked in it and nobody polled for 10ms, it polls and injects what it
// found. It reports whether it found anything. Mirrors the "poll network
// if not polled for more than 10ms" clause of sysmon.
func (m *Machine) sysmonNetpoll() bool {
	np := &m.np
	if !np.inited || np.pollM != nil || m.now-np.lastpoll <= sysmonNetpollNS {
		return false
	}
	np.lastpoll = m.now
	list, delta := m.pollNetwork(nil, "sysmon")
	if list.empty() {
		return false
	}
	m.injectglist(&list, nil)
	m.netpollAdjustWaiters(delta)
	return true
}

// sysmonNetpollNS is how stale the last poll must be before sysmon polls.
const sysmonNetpollNS = 10 * 1000 * 1000

// sysmonMayPoll reports whether a sysmon pass could poll the network and
// find something: sysmonSkip may not skip passes then.
func (m *Machine) sysmonMayPoll() bool {
	np := &m.np
	return np.inited && np.pollM == nil && len(np.ready) > 0
}

// netpollSetDeadline sets pd's deadline for mode ('r' or 'w') to the
// virtual time when: 0 clears it, a time not after now expires it at once
// (waking a waiter), a later one arms a timer on pp that will. Mirrors
// poll_runtime_pollSetDeadline for one mode.
func (m *Machine) netpollSetDeadline(pd *pollDesc, pp *P, mode byte, when int64) {
	dp, tp := &pd.rd, &pd.rt
	if mode == 'w' {
		dp, tp = &pd.wd, &pd.wt
	}
	if *tp != nil {
		(*tp).makeZombie()
		(*tp).active = false
		*tp = nil
	}
	switch {
	case when <= 0:
		*dp = 0
		return
	case when <= m.now:
		*dp = -1
	default:
		*dp = when
		t := &timer{when: when, kind: "deadline", active: true}
		t.f = func(pp *P) { m.netpolldeadlineimpl(pd, pp, mode) }
		*tp = t
		m.addtimer(pp, t)
		return
	}
	// Expired at once: wake the waiter to see it.
	var delta int32
	if gp := netpollunblock(pd, mode, false, &delta); gp != nil {
		m.netpollAdjustWaiters(delta)
		m.netpollDeadlineReady(gp, pp)
	}
}

// netpolldeadlineimpl is a deadline timer firing on pp: the deadline
// expires and the waiter is readied. A deadline reset or closed since
// never gets here: its timer is a zombie (Go checks pd.rseq instead).
// Mirrors netpolldeadlineimpl.
func (m *Machine) netpolldeadlineimpl(pd *pollDesc, pp *P, mode byte) {
	dp, tp := &pd.rd, &pd.rt
	if mode == 'w' {
		dp, tp = &pd.wd, &pd.wt
	}
	*tp = nil
	if *dp <= 0 {
		throw(fmt.Sprintf("netpolldeadlineimpl: inconsistent deadline on fd %d", pd.fd))
	}
	*dp = -1
	var delta int32
	if gp := netpollunblock(pd, mode, false, &delta); gp != nil {
		m.netpollAdjustWaiters(delta)
		m.netpollDeadlineReady(gp, pp)
	}
}

// netpollDeadlineReady readies gp, woken by a deadline or a close, on pp
// (netpollgoready: goready from the timer's or the closer's P).
func (m *Machine) netpollDeadlineReady(gp *G, pp *P) {
	var by *G
	if pp != nil && pp.m != nil {
		by = pp.m.curg
	}
	m.ready(gp, pp, by, true)
}

// netpollUnblock is a close of pd: waits on it fail from now on, and the
// goroutines parked on it are readied. Mirrors poll_runtime_pollUnblock.
func (m *Machine) netpollUnblock(pd *pollDesc, pp *P) {
	if pd.closing {
		throw(fmt.Sprintf("netpollUnblock: already closing fd %d", pd.fd))
	}
	pd.closing = true
	var delta int32
	rg := netpollunblock(pd, 'r', false, &delta)
	wg := netpollunblock(pd, 'w', false, &delta)
	for _, t := range []*timer{pd.rt, pd.wt} {
		if t != nil {
			t.makeZombie()
			t.active = false
		}
	}
	pd.rt, pd.wt = nil, nil
	m.netpollAdjustWaiters(delta)
	if rg != nil {
		m.netpollDeadlineReady(rg, pp)
	}
	if wg != nil {
		m.netpollDeadlineReady(wg, pp)
	}
}
