// The timers of package time: Timer, Ticker, After, Tick and AfterFunc.
//
// Since Go 1.23 a timer's channel is synchronous: it reads as unbuffered
// (len and cap 0), and no value sent before a Stop or Reset can be received
// after it. The runtime gets there with three rules, which this file
// follows (time.go: newTimer, stop, modify, maybeRunChan, blockTimerChan,
// unblockTimerChan; chan.go: timerchandrain):
//
//   - A channel timer is on a P's heap only while some goroutine is blocked
//     on its channel (t.blocked > 0): blockTimerChan adds it when a receive
//     or a select is about to park, and unblockTimerChan makes it a zombie
//     when the last waiter leaves. A timer nobody waits for costs nothing,
//     and a ticker nobody reads does not tick.
//   - A receive, a non-blocking receive and a select on a timer's channel
//     first run the timer on the spot if it is off the heap and its
//     deadline has passed (maybeRunChan): the value is there at once, and
//     the receive does not park.
//   - Stop and Reset drain the channel's one-slot buffer, so a value that
//     was sent and not received is gone, and report it as "stopped before
//     it fired".
//
// The value sent is the deadline, not the time the timer ran: sendTime
// sends Now() minus how late it is. A ticker that fell behind skips the
// ticks it missed. A func timer starts a new goroutine when it fires, from
// the P that runs it (goFunc's go statement), which goes to that P's
// runnext.

package runtime

import "errors"

// The panics of package time for misuse of a ticker.
var (
	ErrNonPositiveTicker      = errors.New("non-positive interval for NewTicker")
	ErrNonPositiveTickerReset = errors.New("non-positive interval for Ticker.Reset")
)

// A Timer is a time.Timer, time.Ticker or the timer of time.AfterFunc.
type Timer struct {
	t *timer
}

// C returns the timer's channel, nil for a func timer.
func (tm *Timer) C() *Chan { return tm.t.c }

// Active reports whether the timer is armed: it has neither fired (a
// one-shot timer) nor been stopped.
func (tm *Timer) Active() bool { return tm.t.active }

// When returns the timer's deadline, meaningful while it is active.
func (tm *Timer) When() int64 { return tm.t.when }

// Period returns a ticker's period, 0 for a one-shot timer.
func (tm *Timer) Period() int64 { return tm.t.period }

// when, time's when(d), is in clockend.go: the deadline d from now, or
// now for d <= 0, saturated at the end of the clock.

// newChanTimer makes a channel timer firing d from now, every period if
// period > 0. Like newTimer for a channel, it puts nothing on a heap.
func (m *Machine) newChanTimer(d, period int64, kind string) *timer {
	c := m.newChan(1)
	t := &timer{when: m.when(d), period: period, c: c, kind: kind, active: true}
	c.tmr = t
	return t
}

// NewTimer returns a timer that sends its deadline on its channel d ns from
// now (time.NewTimer).
func (g *G) NewTimer(d int64) *Timer {
	g.check()
	return &Timer{t: g.m.newChanTimer(d, 0, "timer")}
}

// NewTicker returns a ticker that sends the time of each tick on its
// channel every d ns (time.NewTicker). d must be positive.
func (g *G) NewTicker(d int64) (*Timer, error) {
	g.check()
	if d <= 0 {
		return nil, ErrNonPositiveTicker
	}
	return &Timer{t: g.m.newChanTimer(d, d, "ticker")}, nil
}

// Tick returns the channel of a new ticker, or nil for d <= 0 (time.Tick).
func (g *G) Tick(d int64) *Chan {
	g.check()
	if d <= 0 {
		return nil
	}
	return g.m.newChanTimer(d, d, "ticker").c
}

// AfterFunc returns a timer that, d ns from now, starts a goroutine
// (time.AfterFunc). When it fires, start is called and returns the new
// goroutine's function and name, and a function called with the new G
// before it runs; data is what the goroutine will use, for the leak check
// (PendingFuncData).
func (g *G) AfterFunc(d int64, data any, start func() (Func, string, func(*G))) *Timer {
	g.check()
	m := g.m
	t := &timer{when: m.when(d), kind: "after_func", data: data, active: true}
	t.f = func(pp *P) { m.goFunc(pp, start) }
	g.stepCarry += m.netpollGenericInit() * 1000 // the G's own time, with its next steps
	m.addtimer(g.mp.p, t)
	return &Timer{t: t}
}

// goFunc starts a func timer's goroutine from the P running the timer: the
// go statement of time.goFunc, run by no goroutine. Mirrors newproc.
func (m *Machine) goFunc(pp *P, start func() (Func, string, func(*G))) {
	fn, name, bind := start()
	newg := m.newproc1(fn, nil, pp, name)
	if bind != nil {
		bind(newg)
	}
	m.stats.Spawns++
	m.newprocput(pp, pp.m, nil, newg, name)
}

// Stop stops the timer and reports whether it was active, i.e. stopped
// before it fired; a value sent and not yet received is drained, and
// counts as not fired. Mirrors (*timer).stop.
func (g *G) StopTimer(tm *Timer) bool {
	g.check()
	t := tm.t
	t.makeZombie()
	pending := t.active
	t.active = false
	if t.c != nil && t.c.drain() {
		pending = true
	}
	return pending
}

// ResetTimer rearms the timer to fire d ns from now and, if period > 0,
// every period after that; it reports whether the timer was active. A
// value sent and not yet received is drained. Mirrors (*timer).modify.
func (g *G) ResetTimer(tm *Timer, d, period int64) bool {
	g.check()
	m := g.m
	t := tm.t
	pending := t.active
	t.period = period
	t.active = true
	t.when = m.when(d)
	if pp := t.pp; pp != nil {
		if t.zombie {
			t.zombie = false
			pp.zombies--
		}
		// Move it to its new place on the heap, with the action that
		// runs it at its new deadline.
		pp.timers.remove(t)
		m.addtimer(pp, t)
	}
	if t.c != nil && t.c.drain() {
		pending = true
	}
	if t.pp == nil && (t.c == nil || t.blocked > 0) {
		g.stepCarry += m.netpollGenericInit() * 1000
		m.addtimer(g.mp.p, t)
	}
	return pending
}

// ResetTicker is Ticker.Reset: the ticker ticks every d ns from now. d
// must be positive.
func (g *G) ResetTicker(tm *Timer, d int64) error {
	if d <= 0 {
		return ErrNonPositiveTickerReset
	}
	g.ResetTimer(tm, d, d)
	return nil
}

// makeZombie marks t, if it is on a heap, as no longer wanted there.
func (t *timer) makeZombie() {
	if t.pp != nil && !t.zombie {
		t.zombie = true
		t.pp.zombies++
	}
}

// maybeRunChan runs the timer of channel c on the spot, on pp, if it is on
// no heap and its deadline has passed: the receive or select that calls it
// then finds the value there. Mirrors (*timer).maybeRunChan.
func (m *Machine) maybeRunChan(c *Chan, pp *P) {
	t := c.tmr
	if t.pp != nil || !t.active || t.when > m.now {
		return // on a heap (the heap is in charge), stopped, or not yet
	}
	m.runOneTimer(nil, t, pp)
}

// blockTimerChan is called when a receive or select decides to block on
// c: the timer goes on pp's heap if it is not on one, or stops being a
// zombie if it is. Mirrors blockTimerChan.
func (m *Machine) blockTimerChan(c *Chan, pp *P) {
	t := c.tmr
	t.blocked++
	if t.pp != nil && t.zombie && t.active {
		t.zombie = false
		t.pp.zombies--
	}
	if t.pp == nil && t.active {
		// The G blocking on c parks next: the poller's start, if this
		// is the run's first timer, is its M's on the way to schedule.
		pp.m.parkWork += m.netpollGenericInit()
		m.addtimer(pp, t)
	}
}

// unblockTimerChan is called when a receive or select that blocked on c is
// no longer blocked: with no waiter left, the timer becomes a zombie.
// Mirrors unblockTimerChan.
func (m *Machine) unblockTimerChan(c *Chan) {
	t := c.tmr
	if t.blocked == 0 {
		throw("unblockTimerChan: timer not blocked")
	}
	t.blocked--
	if t.blocked == 0 {
		t.makeZombie()
	}
}

// drain empties a timer channel's buffer and reports whether it held a
// value. Mirrors timerchandrain.
func (c *Chan) drain() bool {
	drained := false
	for c.qcount > 0 {
		c.bufTake()
		drained = true
	}
	return drained
}

// remove takes t off the heap, wherever it is.
func (h *timerHeap) remove(t *timer) {
	old := *h
	for i, x := range old {
		if x != t {
			continue
		}
		n := len(old) - 1
		old[i] = old[n]
		old[n] = nil
		*h = old[:n]
		if i < n {
			h.down(i)
			h.up(i)
		}
		return
	}
}
