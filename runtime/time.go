// Timers: sleep, and the heap that every timer waits on.
//
// As in the real runtime since Go 1.14, each P keeps a heap of its timers,
// ordered by deadline. A timer is added to the heap of the P whose G set it.
// Expired timers are run by their P at the top of findRunnable
// (checkTimers), or by another P's spinning M in stealWork's last round, or,
// when the P is idle, by an M woken for it. Running a sleep timer readies
// its G with goready, so it lands in runnext of the P that ran the timer.
// The timers of package time (channel timers and AfterFunc) are in
// timer.go: a channel timer is on a heap only while a goroutine is blocked
// on its channel, as in Go 1.23 and later.
//
// A timer taken out of use while on a heap (Stop, or the last receiver of a
// channel timer giving up) is not removed at once but marked a zombie, as
// (*timer).stop does; zombies are dropped when they reach the top of the
// heap, or all at once by the P's own checkTimers when they are more than a
// quarter of its heap (timers.check's force clause).
//
// A process's first timer starts the network poller: addHeap finds
// netpollInited 0 and calls netpollGenericInit (epoll_create1, eventfd,
// epoll_ctl). A profile with timer_first charges that once a run
// (netpollGenericInit below): to a sleep's M between its G's park and
// schedule, since resetForSleep arms the timer in gopark's unlockf, and
// the same for a G that blocks on a timer's channel; to the G itself for
// AfterFunc and Reset.
//
// Invariants:
//
//   - every timer on a heap has an actTimer action queued at its deadline,
//     so a pending timer always keeps the run alive (no false deadlock);
//   - a timer is on at most one heap (t.pp), and pp.zombies counts the
//     zombies on pp's heap.

package runtime

// A timer is a pending sleep, a channel timer (time.NewTimer, NewTicker,
// After, Tick) or a func timer (time.AfterFunc). Mirrors timer in time.go.
type timer struct {
	when   int64
	seq    uint64
	gp     *G          // the sleeping G, for sleep
	c      *Chan       // the channel to send the time on (isChan in Go)
	f      func(pp *P) // a func timer's action, run on the P running the timer
	period int64       // a ticker's period; 0 for a one-shot timer
	kind   string      // what EvTimerFire says: "sleep", "after", "timer", "ticker", "after_func"
	data   any         // the embedder's values a func timer will use (leak roots)

	active  bool // armed: Go's t.when > 0
	pp      *P   // the P whose heap holds it; nil if on none (Go's t.ts)
	zombie  bool // on pp's heap, but stopped or no longer waited on
	blocked int  // goroutines blocked on its channel (t.blocked)
}

// timerHeap is a P's timers, earliest first (ties in the order they were
// added).
type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }

func (h timerHeap) less(i, j int) bool {
	if h[i].when != h[j].when {
		return h[i].when < h[j].when
	}
	return h[i].seq < h[j].seq
}

func (h *timerHeap) push(t *timer) {
	*h = append(*h, t)
	h.up(len(*h) - 1)
}

func (h *timerHeap) popMin() *timer {
	old := *h
	t := old[0]
	n := len(old) - 1
	old[0] = old[n]
	old[n] = nil
	*h = old[:n]
	h.down(0)
	return t
}

// up moves the timer at i towards the root to its place.
func (h *timerHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		(*h)[i], (*h)[p] = (*h)[p], (*h)[i]
		i = p
	}
}

// down moves the timer at i towards the leaves to its place.
func (h *timerHeap) down(i int) {
	n := len(*h)
	for {
		l, r, s := 2*i+1, 2*i+2, i
		if l < n && h.less(l, s) {
			s = l
		}
		if r < n && h.less(r, s) {
			s = r
		}
		if s == i {
			break
		}
		(*h)[i], (*h)[s] = (*h)[s], (*h)[i]
		i = s
	}
}

// addtimer puts t on pp's heap and queues the action that makes sure
// someone runs it at its deadline. That action is late by the profile's
// timer lateness (timer_late for a timer of 1ms or more, timer_late_short
// under it): it stands for the M asleep in netpoll until the deadline,
// which wakes late (epoll's timeout is in milliseconds). A P that passes
// through findRunnable before then runs the timer on time. Mirrors
// (*timer).modify/addHeap and wakeNetPoller.
func (m *Machine) addtimer(pp *P, t *timer) {
	m.seq++
	t.seq = m.seq
	t.pp = pp
	pp.timers.push(t)
	d := max(t.when-m.now, 0)
	// Saturated: a deadline at or near the end of the clock plus the
	// lateness must not wrap into the past (clockend.go).
	m.after(addWhen(d, m.timerLate(d)), action{kind: actTimer, pp: pp})
}

// netpollGenericInit returns what arming the run's first timer costs, and
// 0 for every later one: addHeap starts the network poller while it is
// not started (netpollInited is 0), and with it the timer path's first
// allocations, the profile's timer_first. It is 0 as well for a profile
// without timer_first (no draw is made) and once a descriptor was opened
// (netpollopen started the poller). Mirrors addHeap's netpollGenericInit.
func (m *Machine) netpollGenericInit() int64 {
	if !m.timerFirst {
		return 0
	}
	m.timerFirst = false
	return m.costOf(CostTimerFirst)
}

// timerLate is how late the netpoll wake-up for a timer of duration d is.
func (m *Machine) timerLate(d int64) int64 {
	if d < timerShortNS {
		return m.costOf(CostTimerLateShort)
	}
	return m.costOf(CostTimerLate)
}

// timerShortNS divides short timers from long ones: netpoll waits at least
// a millisecond (netpoll in netpoll_epoll.go rounds a wait under 1ms up to
// 1ms).
const timerShortNS = 1000 * 1000

// checkTimers runs pp's expired timers on pp, and drops its zombies when
// they are more than a quarter of its heap. Mirrors (*timers).check.
func (m *Machine) checkTimers(pp *P) {
	n := pp.timers.Len()
	if n == 0 {
		return
	}
	force := pp.zombies > n/4
	if pp.timers[0].when > m.now && !pp.timers[0].zombie && !force {
		return
	}
	m.runTimers(pp, pp)
	if pp.zombies > pp.timers.Len()/4 {
		m.dropZombies(pp)
	}
}

// dropZombies takes every zombie off pp's heap. Mirrors (*timers).adjust
// with force.
func (m *Machine) dropZombies(pp *P) {
	if pp.zombies == 0 {
		return
	}
	old := pp.timers
	pp.timers = nil
	for _, t := range old {
		if t.zombie {
			t.zombie, t.pp = false, nil
			continue
		}
		pp.timers.push(t)
	}
	pp.zombies = 0
}

// runTimers runs the expired timers of tp, readying their Gs onto pp (the P
// of the M running them), and drops the zombies it meets at the top of the
// heap. It reports whether any ran. Mirrors (*timers).run.
func (m *Machine) runTimers(tp, pp *P) bool {
	ran := false
	for tp.timers.Len() > 0 {
		t := tp.timers[0]
		if t.zombie {
			tp.timers.popMin()
			t.zombie, t.pp = false, nil
			tp.zombies--
			continue
		}
		if t.when > m.now {
			break
		}
		tp.timers.popMin()
		t.pp = nil
		ran = true
		m.runOneTimer(tp, t, pp)
	}
	return ran
}

// runOneTimer fires t, just taken off tp's heap (or on no heap, for
// maybeRunChan), on pp: goready for a sleep (goroutineReady), a
// non-blocking send of the deadline on a timer's channel (sendTime), a new
// goroutine for a func timer (goFunc). A ticker is set to its next tick,
// skipping those it missed, and goes back on tp's heap. Mirrors
// (*timer).unlockAndRun.
func (m *Machine) runOneTimer(tp *P, t *timer, pp *P) {
	switch {
	case t.gp != nil:
		m.emit(EvTimerFire, pp, pp.m, nil, t.gp, -1, t.when, "sleep")
		m.ready(t.gp, pp, nil, true)
	case t.c != nil:
		when := t.when
		if t.period > 0 {
			// The tick after now: (now-when)/period*period is at most
			// now-when, so only the additions can pass the end.
			t.when = addWhen(addWhen(when, t.period*((m.now-when)/t.period)), t.period)
			if tp != nil {
				m.addtimer(tp, t)
			}
		} else {
			t.active = false
		}
		m.emit(EvTimerFire, pp, pp.m, nil, nil, -1, when, t.kind)
		m.chansendTimer(t.c, pp, when)
	case t.f != nil:
		t.active = false
		m.emit(EvTimerFire, pp, pp.m, nil, nil, -1, t.when, t.kind)
		t.f(pp)
	}
}

// timerWake runs at a timer's deadline. If the timer is still pending and
// its P is not going to run it soon (the P is idle, or in a syscall), an
// idle P is started to run it, as the M blocked in netpoll until the first
// timer would do. If every P is busy, the timer waits for the next P that
// passes through findRunnable.
func (m *Machine) timerWake(pp *P) {
	if pp.timers.Len() == 0 || pp.timers[0].when > m.now {
		return // already run, or moved
	}
	if pp.status == Prunning && pp.m != nil && pp.m.curg == nil {
		return // its M is in schedule right now and will check timers
	}
	var p2 *P
	if pp.status == Pidle {
		m.pidleRemove(pp)
		p2 = pp
	} else if p2 = m.pidleget(); p2 == nil {
		if m.np.pollM != nil {
			// The M asleep in netpoll wakes for the timer, finds no P,
			// injects what it polled and stops (netpoll.go).
			m.pollMFor(nil)
		}
		return
	}
	// The M that slept in netpoll until this deadline wakes, takes the P
	// and runs the timers that are due by then, before it looks for work
	// (see schedule). It was asleep in netpoll, not on a futex, and this
	// action is already as late as its wake-up (addtimer): no wakeup
	// cost, only the perturbation's jitter.
	var mp *M
	if m.np.pollM != nil {
		// The poller is in use: the M asleep until this deadline is
		// the one blocked in netpoll (netpoll.go).
		mp = m.pollMFor(p2)
	} else {
		mp, _ = m.startmNoWait(p2, false)
	}
	m.scheduleAfter(mp, m.wakeupJitter())
	mp.timerp = pp
}

// Sleep parks g for d virtual nanoseconds (time.Sleep). d <= 0 returns at
// once, as in Go.
func (g *G) Sleep(d int64) {
	g.check()
	if d <= 0 {
		return
	}
	m := g.m
	pp := g.mp.p
	// The G's own timer, made at its first sleep and reused by the next:
	// the one it slept on has fired (nothing else wakes a sleep).
	t := g.timer
	if t == nil {
		t = new(timer)
		g.timer = t
	}
	*t = timer{when: m.when(m.jitter(d)), gp: g, kind: "sleep", active: true}
	m.emit(EvGoSleep, pp, g.mp, g, nil, -1, t.when, "")
	// resetForSleep adds the timer from gopark's unlockf: its M, the G
	// parked, starts the poller if this is the run's first timer.
	g.mp.parkWork += m.netpollGenericInit()
	m.addtimer(pp, t)
	m.gopark(g, WaitReasonSleep)
	g.co.yield()
}

// After returns a channel on which the deadline is sent d ns from now
// (time.After, which is NewTimer(d).C). As in Go 1.23 and later, the
// channel is synchronous: its len and cap are 0, and its timer is on a heap
// only while a goroutine waits on it (see timer.go).
func (g *G) After(d int64) *Chan {
	g.check()
	return g.m.newChanTimer(d, 0, "after").c
}

// PendingAfterChans returns the channels of the channel timers that are on
// a heap and not stopped, on every P, in a fixed order: a goroutine is
// blocked receiving from each, and will be woken when its timer fires. For
// the language's leak check, whose roots they are.
func (m *Machine) PendingAfterChans() []*Chan {
	var cs []*Chan
	for _, pp := range m.allp {
		for _, t := range pp.timers {
			if t.c != nil && !t.zombie {
				cs = append(cs, t.c)
			}
		}
	}
	return cs
}

// PendingFuncData returns the data of the func timers (AfterFunc) that are
// armed, on every P, in a fixed order: what their goroutines will run, for
// the leak check.
func (m *Machine) PendingFuncData() []any {
	var ds []any
	for _, pp := range m.allp {
		for _, t := range pp.timers {
			if t.f != nil && !t.zombie && t.data != nil {
				ds = append(ds, t.data)
			}
		}
	}
	return ds
}
