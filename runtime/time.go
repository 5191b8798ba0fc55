// Timers: sleep and after.
//
// As in the real runtime since Go 1.14, each P keeps a heap of its timers,
// ordered by deadline. A timer is added to the heap of the P whose G set it.
// Expired timers are run by their P at the top of findRunnable
// (checkTimers), or by another P's spinning M in stealWork's last round, or,
// when the P is idle, by an M woken for it. Running a sleep timer readies
// its G with goready, so it lands in runnext of the P that ran the timer;
// running an after timer sends the time on its channel without blocking.
//
// Invariants:
//
//   - every timer on a heap has an actTimer action queued at its deadline,
//     so a pending timer always keeps the run alive (no false deadlock);
//   - a timer is run at most once; its action is stale afterwards.

package runtime

// A timer is a pending sleep or after.
type timer struct {
	when  int64
	seq   uint64
	gp    *G    // the sleeping G, for sleep
	c     *Chan // the channel to send the time on, for after
	fired bool
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
	i := len(*h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		(*h)[i], (*h)[p] = (*h)[p], (*h)[i]
		i = p
	}
}

func (h *timerHeap) popMin() *timer {
	old := *h
	t := old[0]
	n := len(old) - 1
	old[0] = old[n]
	old[n] = nil
	*h = old[:n]
	i := 0
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
	return t
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
	pp.timers.push(t)
	d := max(t.when-m.now, 0)
	m.after(d+m.timerLate(d), action{kind: actTimer, pp: pp})
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

// checkTimers runs pp's expired timers on pp. Mirrors (*timers).check.
func (m *Machine) checkTimers(pp *P) {
	if pp.timers.Len() > 0 {
		m.runTimers(pp, pp)
	}
}

// runTimers runs the expired timers of tp, readying their Gs onto pp (the P
// of the M running them). It reports whether any ran. Mirrors (*timers).run.
func (m *Machine) runTimers(tp, pp *P) bool {
	ran := false
	for tp.timers.Len() > 0 && tp.timers[0].when <= m.now {
		t := tp.timers.popMin()
		t.fired = true
		ran = true
		m.runOneTimer(t, pp)
	}
	return ran
}

// runOneTimer fires t on pp: goready for a sleep (goroutineReady), a
// non-blocking send of the current time for an after channel (sendTime).
func (m *Machine) runOneTimer(t *timer, pp *P) {
	switch {
	case t.gp != nil:
		m.emit(EvTimerFire, pp, pp.m, nil, t.gp, -1, t.when, "sleep")
		m.ready(t.gp, pp, nil, true)
	case t.c != nil:
		m.emit(EvTimerFire, pp, pp.m, nil, nil, -1, t.when, "after")
		m.chansendTimer(t.c, pp, m.now)
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
		return
	}
	// The M that slept in netpoll until this deadline wakes, takes the P
	// and runs the timers that are due by then, before it looks for work
	// (see schedule). It was asleep in netpoll, not on a futex, and this
	// action is already as late as its wake-up (addtimer): no wakeup
	// cost, only the perturbation's jitter.
	mp, _ := m.startmNoWait(p2, false)
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
	*t = timer{when: m.now + m.jitter(d), gp: g}
	m.emit(EvGoSleep, pp, g.mp, g, nil, -1, t.when, "")
	m.addtimer(pp, t)
	m.gopark(g, WaitReasonSleep)
	g.co.yield()
}

// After returns a channel on which the virtual time is sent d ns from now
// (time.After). As in Go 1.23 and later, the channel is synchronous: its
// len and cap are 0.
func (g *G) After(d int64) *Chan {
	g.check()
	m := g.m
	c := m.newChan(1)
	c.timer = true
	t := &timer{when: m.now + max(d, 0), c: c}
	m.addtimer(g.mp.p, t)
	return c
}

// PendingAfterChans returns the channels of the After timers that have not
// fired yet, on every P, in a fixed order: a goroutine blocked receiving
// from one of them will be woken when its timer fires. For the language's
// leak check, whose roots they are.
func (m *Machine) PendingAfterChans() []*Chan {
	var cs []*Chan
	for _, pp := range m.allp {
		for _, t := range pp.timers {
			if t.c != nil {
				cs = append(cs, t.c)
			}
		}
	}
	return cs
}
