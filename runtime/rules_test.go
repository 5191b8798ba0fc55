package runtime

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The tests in this file pin one scheduling rule each and name the runtime
// function the rule comes from. White-box tests build the state by hand and
// call the scheduler's functions directly; the others run goroutines.

// world builds a Machine with procs Ps, M0 holding P0, and n runnable Gs
// that are on no queue yet.
func world(procs, n int) (*Machine, *M, []*G) {
	return worldOf(Config{Procs: procs, Seed: 1}, n)
}

// worldOf is world with the configuration cfg.
func worldOf(cfg Config, n int) (*Machine, *M, []*G) {
	m := NewMachine(cfg)
	mp := m.newm()
	m.pidleRemove(m.allp[0])
	m.acquirep(mp, m.allp[0])
	gs := make([]*G, n)
	for i := range gs {
		gs[i] = m.newproc1(func(*G) error { return nil }, nil, m.allp[0], fmt.Sprint("g", i))
	}
	return m, mp, gs
}

func ids(gs []*G) []int64 {
	var out []int64
	for _, g := range gs {
		out = append(out, g.goid)
	}
	return out
}

func ring(pp *P) []int64 {
	var out []int64
	for i := pp.runqhead; i != pp.runqtail; i++ {
		out = append(out, pp.runq[i%runqSize].goid)
	}
	return out
}

// runqput: with next, the new G takes runnext and the old one is kicked to
// the tail of the ring.
func TestRunqputKicksRunnext(t *testing.T) {
	m, _, gs := world(1, 3)
	pp := m.allp[0]
	for _, g := range gs {
		m.runqput(pp, g, true)
	}
	if pp.runnext != gs[2] {
		t.Errorf("runnext = G%d, want G%d", pp.runnext.goid, gs[2].goid)
	}
	if got, want := ring(pp), ids(gs[:2]); !slices.Equal(got, want) {
		t.Errorf("ring = %v, want %v", got, want)
	}
}

// runqputslow: a put into a full ring moves the first half of the ring and
// the G being put, in order, to the global queue.
func TestRunqputslowMovesHalf(t *testing.T) {
	m, _, gs := world(1, runqSize+1)
	pp := m.allp[0]
	for _, g := range gs {
		m.runqput(pp, g, false)
	}
	want := append(ids(gs[:runqSize/2]), gs[runqSize].goid)
	if got := ids(m.runq.slice()); !slices.Equal(got, want) {
		t.Errorf("global = %v\nwant %v", got, want)
	}
	if got, want := ring(pp), ids(gs[runqSize/2:runqSize]); !slices.Equal(got, want) {
		t.Errorf("ring = %v\nwant %v", got, want)
	}
}

// runqget/execute: a G taken from runnext inherits the time slice, so the
// P's schedtick does not advance; a G from the ring advances it. Since
// sysmon (retake) tells a new slice by schedtick alone, Gs that hand the
// P to each other through runnext share one slice: a G that works 6ms
// after another worked 6ms in the same slice is preempted at the 10ms mark
// (forcePreemptNS), though neither ran 10ms by itself.
func TestRunnextInheritsTimeSlice(t *testing.T) {
	m, mp, gs := world(1, 2)
	pp := m.allp[0]
	m.runqput(pp, gs[0], false)
	m.runqput(pp, gs[1], true)
	gp, inherit := m.findRunnable(mp)
	if gp != gs[1] || !inherit {
		t.Fatalf("got G%d inherit=%v, want runnext G%d inheriting", gp.goid, inherit, gs[1].goid)
	}
	gp, inherit = m.findRunnable(mp)
	if gp != gs[0] || inherit {
		t.Fatalf("got G%d inherit=%v, want ring G%d not inheriting", gp.goid, inherit, gs[0].goid)
	}

	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		c, _ := g.Machine().NewChan(0)
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, 1)
		g.Go(func(g *G) error {
			g.Recv(c) // readies main into runnext and keeps the P
			g.Work(6e6)
			log("receiver done")
			return g.Add(wg, -1)
		}, "receiver")
		g.Work(6e6)
		g.Send(c, 1) // blocks: the receiver runs from runnext, in main's slice
		log("main resumed")
		g.Wait(wg)
		log("preemptions %d", counter(g.Machine(), "preemptions"))
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	// Preempted at the end of the shared slice, the receiver goes to the
	// global queue and main, in runnext, runs before it is done. With a
	// slice of its own the receiver would finish first, unpreempted.
	if want := "main resumed\nreceiver done\npreemptions 1\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// counter returns the value of the counter name of m.
func counter(m *Machine, name string) int64 {
	for _, c := range m.Counters() {
		if c.Name == name {
			return c.Value
		}
	}
	panic("no counter " + name)
}

// findRunnable: every 61st schedtick the global queue is looked at before
// the local one.
func TestFindRunnableChecksGlobalEvery61Ticks(t *testing.T) {
	for _, tc := range []struct {
		tick   uint32
		global bool
	}{{0, true}, {1, false}, {60, false}, {61, true}, {122, true}, {123, false}} {
		m, mp, gs := world(1, 2)
		pp := m.allp[0]
		m.runqput(pp, gs[0], false)
		m.globrunqput(gs[1])
		pp.schedtick = tc.tick
		gp, _ := m.findRunnable(mp)
		if got := gp == gs[1]; got != tc.global {
			t.Errorf("schedtick %d: took from global = %v, want %v", tc.tick, got, tc.global)
		}
	}
}

// findRunnable/globrunqgetbatch: an empty local queue takes a batch of
// min(len(global)/gomaxprocs+1, 128) from the global queue: one to run,
// the rest onto the ring in order.
func TestGlobrunqgetbatchSize(t *testing.T) {
	for _, tc := range []struct{ procs, n, want int }{
		{1, 10, 10}, {2, 10, 6}, {4, 10, 3}, {1, 300, 128}, {4, 1, 1},
	} {
		m, mp, gs := world(tc.procs, tc.n)
		pp := m.allp[0]
		pp.schedtick = 1
		for _, g := range gs {
			m.globrunqput(g)
		}
		gp, _ := m.findRunnable(mp)
		if gp != gs[0] {
			t.Errorf("%+v: ran G%d, want the head G%d", tc, gp.goid, gs[0].goid)
		}
		if got, want := ring(pp), ids(gs[1:tc.want]); !slices.Equal(got, want) {
			t.Errorf("%+v: ring = %v, want %v", tc, got, want)
		}
	}
}

// runqsteal/runqgrab: a thief takes half of the victim's ring (rounded
// up), runs the last one taken and keeps the rest in order.
func TestRunqstealTakesHalf(t *testing.T) {
	m, _, gs := world(2, 5)
	victim, thief := m.allp[0], m.allp[1]
	for _, g := range gs {
		m.runqput(victim, g, false)
	}
	m.pidleRemove(thief)
	thief.status = Prunning
	gp := m.runqsteal(thief, victim, false, nil)
	if gp != gs[2] {
		t.Errorf("thief runs G%d, want G%d", gp.goid, gs[2].goid)
	}
	if got, want := ring(thief), ids(gs[:2]); !slices.Equal(got, want) {
		t.Errorf("thief ring = %v, want %v", got, want)
	}
	if got, want := ring(victim), ids(gs[3:]); !slices.Equal(got, want) {
		t.Errorf("victim ring = %v, want %v", got, want)
	}
}

// runqgrab: runnext is stolen only in stealWork's last round, and never
// from a P whose M is about to run it.
func TestRunnextStolenOnlyInLastRound(t *testing.T) {
	m, _, gs := world(2, 1)
	victim, thief := m.allp[0], m.allp[1]
	m.runqput(victim, gs[0], true)
	if gp := m.runqsteal(thief, victim, false, nil); gp != nil {
		t.Errorf("stole runnext G%d outside the last round", gp.goid)
	}
	// victim's M0 is in schedule (no curg): it keeps its runnext.
	if gp := m.runqsteal(thief, victim, true, nil); gp != nil {
		t.Errorf("stole runnext from a P about to run it")
	}
	victim.m.curg = gs[0] // pretend M0 runs a G now
	if gp := m.runqsteal(thief, victim, true, nil); gp != gs[0] {
		t.Errorf("last round did not steal runnext")
	}
}

// casgstatus: an illegal transition is an internal error.
func TestCasgstatusIllegalTransitionThrows(t *testing.T) {
	m, _, gs := world(1, 1)
	_ = m
	defer func() {
		r := recover()
		ie, ok := r.(*InternalError)
		if !ok || !strings.Contains(ie.Msg, "illegal transition runnable → waiting") {
			t.Errorf("recovered %v, want an InternalError about the transition", r)
		}
	}()
	casgstatus(gs[0], Grunnable, Gwaiting)
}

// gfput/gfget: a dead G is reused by the next spawn on the same P, with a
// fresh goid.
func TestGFreeReuse(t *testing.T) {
	var first, second *G
	_, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		first, _ = g.Go(func(*G) error { return nil }, "a")
		g.Gosched() // let it run and die
		second, _ = g.Go(func(*G) error { return nil }, "b")
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if first != second {
		t.Errorf("spawn after exit did not reuse the dead G")
	}
	if second.goid != 3 {
		t.Errorf("reused G has goid %d, want a fresh 3", second.goid)
	}
}

// newproc1: goids come from per-P caches of 16.
func TestGoidCacheBatches(t *testing.T) {
	m, _, _ := world(2, 1) // G1 on P0 takes P0's batch 1..16
	p1 := m.allp[1]
	g := m.newproc1(func(*G) error { return nil }, nil, p1, "x")
	if g.goid != 17 {
		t.Errorf("first G made on P1 has goid %d, want 17 (P0 holds 1..16)", g.goid)
	}
}

// goschedImpl: gosched puts the caller on the global queue, behind the
// goroutines of the local queue. The first goroutine to run after it sees
// main on the global queue and the other one on P0's ring; were main put
// on the local queue, it would be on the ring behind a, and the order of
// the output would be the same, which is why the test looks at the queues.
func TestGoschedGoesBehindLocalQueue(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		g.Gosched() // warm up: schedtick 1, off the 61-tick
		for _, name := range []string{"a", "b"} {
			g.Go(func(g *G) error {
				s := g.Machine().Snapshot()
				log("%s: global %v, P0 ring %v", name, s.GlobalRunq, s.Ps[0].Runq)
				return nil
			}, name)
		}
		g.Gosched()
		log("main")
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	// G1 is main, G2 a, G3 b (in runnext, so it runs first).
	if want := "b: global [1], P0 ring [2]\na: global [1], P0 ring []\nmain\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// closechan: waiters are collected on a gList (a stack) and readied from
// it, each into runnext, kicking the previous one: receivers r0 r1 r2 run
// as r0, r2, r1.
func TestCloseWakeOrder(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		c, _ := g.Machine().NewChan(0)
		for i := range 3 {
			g.Go(func(g *G) error {
				_, ok := g.Recv(c)
				log("r%d %v", i, ok)
				return nil
			}, fmt.Sprint("r", i))
		}
		g.Sleep(1) // let them block, in order r2 r0 r1 (runnext first)
		if err := g.Close(c); err != nil {
			return err
		}
		g.Sleep(1)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	// Blocked in recvq order r2, r0, r1; pushed on the gList in that
	// order; popped r1, r0, r2; readied so that r2 ends in runnext and
	// r1, r0 in the ring.
	if want := "r2 false\nr1 false\nr0 false\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// chansend/send: a value sent to a parked receiver is handed over and the
// receiver runs next (runnext), before goroutines already in the ring.
func TestSendReadiesReceiverIntoRunnext(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		c, _ := g.Machine().NewChan(0)
		g.Go(func(g *G) error { v, _ := g.Recv(c); log("recv %v", v); return nil }, "r")
		g.Sleep(1) // r blocks
		g.Go(func(g *G) error { log("bystander"); return nil }, "b")
		g.Go(func(g *G) error { return g.Send(c, 42) }, "s")
		g.Sleep(1)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if want := "recv 42\nbystander\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// chan.go: sends on a closed channel and closes of closed or nil channels
// fail with Go's panic texts.
func TestChanErrors(t *testing.T) {
	_, res := run(t, Config{}, func(g *G, log func(string, ...any)) error {
		c, _ := g.Machine().NewChan(1)
		if err := g.Close(nil); err != ErrCloseOfNil {
			return fmt.Errorf("close(nil) = %v", err)
		}
		g.Close(c)
		if err := g.Close(c); err != ErrCloseOfClosed {
			return fmt.Errorf("close twice = %v", err)
		}
		if v, ok := g.Recv(c); v != nil || ok {
			return fmt.Errorf("recv from closed = %v, %v", v, ok)
		}
		return g.Send(c, 1)
	})
	if res.Outcome != Panicked || res.Err != ErrSendOnClosed {
		t.Errorf("outcome %v %v, want a panic: send on closed channel", res.Outcome, res.Err)
	}
}

// Buffered channels are FIFO, and a receiver that finds a sender blocked
// on a full buffer takes the head and moves the sender's value to the tail.
func TestBufferedFIFOWithBlockedSender(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		c, _ := g.Machine().NewChan(2)
		g.Go(func(g *G) error {
			for i := range 4 {
				g.Send(c, i)
			}
			return nil
		}, "s")
		g.Sleep(1) // s fills the buffer and blocks sending 2
		for range 4 {
			v, _ := g.Recv(c)
			log("%v", v)
		}
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if want := "0\n1\n2\n3\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// checkdead: nothing can run and nothing is pending: deadlock.
func TestDeadlock(t *testing.T) {
	_, res := run(t, Config{Procs: 2}, func(g *G, log func(string, ...any)) error {
		c, _ := g.Machine().NewChan(0)
		g.Go(func(g *G) error { g.Recv(c); return nil }, "waiter")
		g.Recv(c)
		return nil
	})
	if res.Outcome != Deadlock || res.Err != ErrDeadlock {
		t.Errorf("outcome %v %v, want deadlock", res.Outcome, res.Err)
	}
}

// A G sleeping is not a deadlock; timers fire in deadline order.
func TestTimersFireInDeadlineOrder(t *testing.T) {
	out, res := run(t, Config{Procs: 2}, func(g *G, log func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		for _, d := range []int64{30, 10, 20} {
			g.Add(wg, 1)
			g.Go(func(g *G) error {
				g.Sleep(d * 1000)
				log("%d at %d", d, g.Now()/1000)
				return g.Add(wg, -1)
			}, "sleeper")
		}
		g.Wait(wg)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if want := "10 at 10\n20 at 20\n30 at 30\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// sysmon/retake/preemptone: with preemption on, a G that works longer than
// the 10ms slice is preempted and another G gets the P; with it off, the
// other G waits for the work to end. The hog runs first (from runnext)
// and the other G waits on the ring.
func TestPreemption(t *testing.T) {
	other := func(g *G, log func(string, ...any)) {
		g.Work(1e6)
		log("other done")
	}
	// hog is preempted after its first slice (11.22ms) and goes to the
	// global queue; other runs from the ring, then hog finishes, preempted
	// again every 20ms even with nothing else to run, as sysmon does (see
	// TestTimeSliceUnderLoad): at 31.22ms, twice in its 50ms.
	if out, n := hogAnd(t, false, "other", other); out != "other done\nhog done at 51ms\n" || n != 2 {
		t.Errorf("preemption on: got %q and %d preemptions, want other first, hog at 51ms, and 2", out, n)
	}
	// Off, hog works to the end and other waits for it.
	if out, n := hogAnd(t, true, "other", other); out != "hog done at 50ms\nother done\n" || n != 0 {
		t.Errorf("preemption off: got %q and %d preemptions, want hog first at 50ms, and none", out, n)
	}
}

// retake preempts a hog so that a G readied by a timer gets the P after
// about one time slice rather than when the hog finishes.
func TestPreemptionLetsTimerGoroutineIn(t *testing.T) {
	sleeper := func(g *G, log func(string, ...any)) {
		g.Sleep(1e6)
		log("woke at %dms", g.Now()/1e6)
	}
	// sleeper (runnext) goes to sleep, hog works; sysmon preempts hog at
	// 11.22ms, and the sleeper's timer, overdue since 1ms, runs when P0
	// schedules.
	if out, _ := hogAnd(t, false, "", sleeper); out != "woke at 11ms\nhog done at 50ms\n" {
		t.Errorf("preemption on: got %q, want the sleeper at 11ms, then hog", out)
	}
	if out, _ := hogAnd(t, true, "", sleeper); out != "hog done at 50ms\nwoke at 50ms\n" {
		t.Errorf("preemption off: got %q, want hog, then the sleeper at 50ms", out)
	}
}

// hogAnd runs a hog, a goroutine that works 50ms, and another goroutine
// that runs f, on one P, with preemption on or off, and returns what they
// logged and how many preemptions there were. With first, the other
// goroutine is spawned before the hog, under that name, so the hog takes
// runnext and runs first; else it is spawned after, as "sleeper", and
// runs first.
func hogAnd(t *testing.T, noPreempt bool, first string, f func(g *G, log func(string, ...any))) (string, int64) {
	t.Helper()
	var preemptions int64
	out, res := run(t, Config{Procs: 1, NoPreempt: noPreempt}, func(g *G, log func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, 2)
		other := func(g *G) error { f(g, log); return g.Add(wg, -1) }
		if first != "" {
			g.Go(other, first)
		}
		g.Go(func(g *G) error { g.Work(50e6); log("hog done at %dms", g.Now()/1e6); return g.Add(wg, -1) }, "hog")
		if first == "" {
			g.Go(other, "sleeper")
		}
		g.Wait(wg)
		preemptions = counter(g.Machine(), "preemptions")
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	return out, preemptions
}

// entersyscall/retake/handoffp: while a G sits in a long syscall, sysmon
// hands its P to a new M so other Gs run; threads grow.
func TestSyscallHandoff(t *testing.T) {
	var threads int
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, 2)
		g.Go(func(g *G) error { g.Syscall(5e6); log("syscall done at %dus", g.Now()/1e3); return g.Add(wg, -1) }, "sys")
		g.Go(func(g *G) error { g.Work(1e6); log("worker done at %dus", g.Now()/1e3); return g.Add(wg, -1) }, "worker")
		g.Wait(wg)
		threads = len(g.Machine().allm)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	// worker runs first (runnext) for 1ms, then sys enters its syscall at
	// 1ms. With one P none is idle, so sysmon retakes the P even though
	// there is nothing else to run, and handoffp starts a spinning M for
	// it: a second thread.
	if want := "worker done at 1000us\nsyscall done at 6000us\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if threads != 2 {
		t.Errorf("threads = %d, want 2", threads)
	}
}

func TestSyscallHandoffWithWork(t *testing.T) {
	var threads int
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, 2)
		g.Go(func(g *G) error { g.Work(1e6); log("worker done at %dus", g.Now()/1e3); return g.Add(wg, -1) }, "worker")
		g.Go(func(g *G) error { g.Syscall(5e6); log("syscall done at %dus", g.Now()/1e3); return g.Add(wg, -1) }, "sys")
		g.Wait(wg)
		threads = len(g.Machine().allm)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	// sys (runnext) enters its syscall at 0 with worker queued: it is the
	// P's first system call, so its syscalltick is the one sysmon noted
	// (none; reentersyscall does not bump it), and sysmon retakes the P at
	// its first tick (20µs): worker finishes at 1020µs on a new M.
	if want := "worker done at 1020us\nsyscall done at 5000us\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if threads != 2 {
		t.Errorf("threads = %d, want 2", threads)
	}
}

// kinds runs main with a tracer and returns the events.
func events(t *testing.T, cfg Config, main func(g *G, log func(string, ...any)) error) []Event {
	t.Helper()
	var evs []Event
	cfg.Tracer = TracerFunc(func(ev *Event) { evs = append(evs, *ev) })
	if _, res := run(t, cfg, main); res.Outcome != Exited {
		t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
	}
	return evs
}

// wakep/resetspinning: spawns start one spinning M only while none spins;
// a spinning M that finds work stops spinning and wakes the next one. So
// with 8 queued goroutines on 4 Ps, Ms start one at a time, each after the
// previous one stole.
func TestWakepOneSpinningMAtATime(t *testing.T) {
	evs := events(t, Config{Procs: 4}, func(g *G, log func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		for range 8 {
			g.Add(wg, 1)
			g.Go(func(g *G) error { g.Work(1e6); return g.Add(wg, -1) }, "job")
		}
		g.Wait(wg)
		return nil
	})
	var seq []string
	for _, ev := range evs {
		if ev.Time > 0 {
			break
		}
		switch ev.Kind {
		case EvMStart:
			seq = append(seq, fmt.Sprintf("MStart(spinning=%d)", ev.Arg))
		case EvRunqSteal:
			seq = append(seq, "steal")
		}
	}
	want := "MStart(spinning=1) steal MStart(spinning=1) steal MStart(spinning=1) steal"
	if got := strings.Join(seq, " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// exitsyscall: the three ways back from a syscall — the old P (fast), an
// idle P, or none: the G goes to the global queue and its M stops.
func TestExitsyscallPaths(t *testing.T) {
	reasons := func(procs int, f func(g *G, log func(string, ...any)) error) []string {
		var out []string
		for _, ev := range events(t, Config{Procs: procs}, f) {
			if ev.Kind == EvGoSyscallEnd {
				out = append(out, ev.Reason)
			}
		}
		return out
	}
	// Nothing else to do and an idle P: sysmon leaves the P alone.
	if got := reasons(2, func(g *G, _ func(string, ...any)) error { g.Syscall(1e6); return nil }); fmt.Sprint(got) != "[fast]" {
		t.Errorf("alone on 2 Ps: %v, want [fast]", got)
	}
	// With one P, no P is idle and none spins, so retake takes the P even
	// without other work (as retake does), and the G gets it back idle.
	if got := reasons(1, func(g *G, _ func(string, ...any)) error { g.Syscall(1e6); return nil }); fmt.Sprint(got) != "[idle p]" {
		t.Errorf("alone on 1 P: %v, want [idle p]", got)
	}
	// Other work on 1 P: the P is retaken and still busy at exit.
	got := reasons(1, func(g *G, _ func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, 2)
		g.Go(func(g *G) error { g.Work(5e6); return g.Add(wg, -1) }, "worker")
		g.Go(func(g *G) error { g.Syscall(1e6); return g.Add(wg, -1) }, "sys")
		g.Wait(wg)
		return nil
	})
	if fmt.Sprint(got) != "[no p]" {
		t.Errorf("1 P busy: %v, want [no p]", got)
	}
	// Two Ps: the retaken P is busy, but the other P is idle at exit.
	got = reasons(2, func(g *G, _ func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, 3)
		g.Go(func(g *G) error { g.Work(5e6); return g.Add(wg, -1) }, "worker")
		g.Go(func(g *G) error { g.Work(100e3); return g.Add(wg, -1) }, "short")
		g.Go(func(g *G) error { g.Syscall(1e6); return g.Add(wg, -1) }, "sys")
		g.Wait(wg)
		return nil
	})
	if fmt.Sprint(got) != "[idle p]" {
		t.Errorf("2 Ps: %v, want [idle p]", got)
	}
}

// preemptone/goschedImpl: a preempted G goes to the global queue (a
// GoPreempt event followed, for that G, by a GlobalRunqGet).
func TestPreemptedGoesToGlobalQueue(t *testing.T) {
	evs := events(t, Config{Procs: 1}, func(g *G, _ func(string, ...any)) error {
		g.Work(40e6)
		return nil
	})
	var seq []string
	for _, ev := range evs {
		switch ev.Kind {
		case EvGoPreempt, EvGlobalRunqGet:
			seq = append(seq, fmt.Sprintf("%v G%d", ev.Kind, ev.G))
		}
	}
	want := "GoPreempt G1 GlobalRunqGet G1 GoPreempt G1 GlobalRunqGet G1"
	if got := strings.Join(seq, " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// retake and sysmon: a G that never blocks runs 20ms slices, not 10ms.
// retake counts only the Ps it takes from syscalls, so preempting a G does
// not reset sysmon's idle count: its sleep stays backed off at 10ms, one
// tick sees the new slice (schedwhen) and the next preempts it. Real Go
// 1.26 at GOMAXPROCS=1 gives 20.2-20.4ms between two spinners' hand-overs
// (bench/faithfulness/recordings/timeslice). The first slice is shorter:
// sysmon is still backing off from 20µs when the G starts.
func TestTimeSliceUnderLoad(t *testing.T) {
	evs := events(t, Config{Procs: 1}, func(g *G, _ func(string, ...any)) error {
		g.Work(100e6)
		return nil
	})
	var at []string
	for _, ev := range evs {
		if ev.Kind == EvGoPreempt {
			at = append(at, fmt.Sprintf("%.2fms", float64(ev.Time)/1e6))
		}
	}
	want := "11.22ms 31.22ms 51.22ms 71.22ms 91.22ms"
	if got := strings.Join(at, " "); got != want {
		t.Errorf("preemptions at %s, want %s (20ms apart after the first)", got, want)
	}
}

// casgstatus's table is the runtime's: runtime2.go numbers and names the
// states as status.go does, every transition the table allows is one the
// toolchain's runtime makes (a casgstatus or an atomicstatus
// CompareAndSwap in its source), and every transition the runtime makes
// between the states schedlab has is in the table, or among the few
// status.go says schedlab never makes. A fresh G is _Grunnable, through
// _Gidle → _Gdead → _Grunnable as in newproc1.
func TestStatusTableIsTheRuntimes(t *testing.T) {
	files := parseGoRuntime(t)
	modeled := []Status{Gidle, Grunnable, Grunning, Gsyscall, Gwaiting, Gdead, Gpreempted, Gleaked}
	names := goGStatuses(t, files)
	byName := make(map[string]Status)
	for _, s := range modeled {
		if names[int(s)] != s.GoName() {
			t.Errorf("status %d is %s in runtime2.go, %s here", s, names[int(s)], s.GoName())
		}
		byName[s.GoName()] = s
	}
	neverMade := map[string]string{ // status.go's comment says why
		"_Gdead→_Gwaiting":    "newproc1 of a coroutine's G",
		"_Gwaiting→_Grunning": "a G back from waiting for the GC or a stop-the-world",
		"_Gleaked→_Gwaiting":  "the GC forgetting the last leak check",
	}
	goEdges := goGTransitions(files)
	for edge := range goEdges {
		from, to, _ := strings.Cut(edge, "→")
		f, ok1 := byName[from]
		g, ok2 := byName[to]
		if !ok1 || !ok2 || legal[f][g] {
			continue // a state schedlab does not have, or an edge it has
		}
		if _, ok := neverMade[edge]; !ok {
			t.Errorf("Go's runtime makes %s, which casgstatus's table does not allow", edge)
		}
	}
	for edge, why := range neverMade {
		if !goEdges[edge] {
			t.Errorf("status.go says schedlab never makes %s (%s), but Go's runtime does not either", edge, why)
		}
	}
	for _, f := range modeled {
		for _, g := range modeled {
			if edge := f.GoName() + "→" + g.GoName(); legal[f][g] && !goEdges[edge] {
				t.Errorf("casgstatus allows %s, which Go's runtime never makes", edge)
			}
		}
	}
	_, _, gs := world(1, 1)
	if gs[0].status != Grunnable {
		t.Errorf("a fresh G is %v, want runnable", gs[0].status)
	}
}

// goschedImpl, Go 1.26: "If preempted for STW, keep the G on the local P in
// runnext so it can keep running immediately after the STW." A G running on
// P1 when P0's G stops the world waits in P1's runnext, not on the global
// queue.
func TestStopTheWorldKeepsPreemptedInRunnext(t *testing.T) {
	m, mp0, gs := world(2, 2)
	self, other := gs[0], gs[1]
	m.execute(mp0, self, false)
	m.handoff = nil // execute's switch is not made in a white-box test
	mp1 := m.newm()
	pp1 := m.allp[1]
	m.pidleRemove(pp1)
	m.acquirep(mp1, pp1)
	m.execute(mp1, other, false)
	m.handoff = nil
	m.stopTheWorld(self)
	if pp1.runnext != other {
		t.Errorf("P1's runnext = %v, want G%d, the G the stop-the-world preempted", pp1.runnext, other.goid)
	}
	if m.runq.size != 0 {
		t.Errorf("global queue holds %d Gs, want 0", m.runq.size)
	}
	if other.status != Grunnable {
		t.Errorf("preempted G is %v, want runnable", other.status)
	}
}

// MState.Activity names what each M does, from the Machine's own state
// (Snapshot): the test runs goroutines and, at each event that says what
// an M now does, asks the snapshot taken there for that M's word. An M
// that started a G is "running"; one that entered a syscall is
// "syscall", and "syscall, no P" once sysmon took its P; one woken by
// startm is "starting", or "spinning" when woken to spin, as is one that
// began to spin; one that parked is "idle", or "locked" while its G is
// locked to it (runtime.main's init); one blocked in netpoll is
// "netpoll"; one that acquired a P runs the scheduler on g0 ("schedule",
// or "spinning"), unless it is back from a syscall with its G, "running".
// Every word is seen.
func TestMStateActivity(t *testing.T) {
	seen := map[string]bool{}
	check := func(t *testing.T, cfg Config, main func(g *G) error) {
		t.Helper()
		var m *Machine
		syscallM := map[int32]int32{} // P → the M whose G entered a syscall on it
		inSyscall := map[int32]bool{} // Ms whose G is in a syscall
		cfg.Tracer = TracerFunc(func(ev *Event) {
			var mid int32
			var want []string
			switch ev.Kind {
			case EvGoStart:
				mid, want = ev.M, []string{"running"}
			case EvGoSyscallBegin:
				mid, want = ev.M, []string{"syscall"}
				syscallM[ev.P] = ev.M
				inSyscall[ev.M] = true
			case EvGoSyscallEnd:
				inSyscall[ev.M] = false
				return
			case EvProcSteal:
				if ev.M >= 0 {
					return // its M left the syscall: it takes the P back
				}
				mid, want = syscallM[ev.P], []string{"syscall, no P"}
			case EvMStart:
				mid, want = ev.M, []string{"starting"}
				if ev.Arg == 1 {
					want = []string{"spinning"}
				}
			case EvMSpinning:
				mid, want = ev.M, []string{"spinning"}
			case EvMStop:
				mid, want = ev.M, []string{"idle", "locked"}
			case EvMNetpoll:
				mid, want = ev.M, []string{"netpoll"}
			case EvProcStart:
				mid, want = ev.M, []string{"schedule", "spinning"}
				if inSyscall[ev.M] {
					want = []string{"running"} // exitsyscall: back to its G with a P
				}
			default:
				return
			}
			var ms *MState
			for i := range m.Snapshot().Ms {
				if s := &m.Snapshot().Ms[i]; s.ID == int(mid) {
					ms = s
				}
			}
			if ms == nil {
				t.Fatalf("%v at %d: no M%d in the snapshot", ev.Kind, ev.Time, mid)
			}
			got := ms.Activity()
			if got == "locked" && ms.LockedG == 0 {
				t.Errorf("%v at %d: M%d is %q, but no G is locked to it", ev.Kind, ev.Time, mid, got)
			}
			if !slices.Contains(want, got) {
				t.Errorf("%v at %d: M%d is %q, want %q (%+v)", ev.Kind, ev.Time, mid, got, want, *ms)
			}
			seen[got] = true
		})
		m = NewMachine(cfg)
		m.Start(main)
		if res := m.Run(); res.Outcome != Exited {
			t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
		}
		m.Close()
	}
	// Syscalls long enough for sysmon to retake the P, on 2 Ps, after
	// runtime.main's start-up with its locked M0.
	check(t, Config{Procs: 2, Seed: 1, RuntimeMain: true}, func(g *G) error {
		done, _ := g.Machine().NewChan(0)
		for i := range 4 {
			g.Go(func(g *G) error {
				g.Syscall(int64(i+1) * 50e3)
				g.Work(30e3)
				g.Sleep(20e3)
				return g.Send(done, i)
			}, "w")
		}
		for range 4 {
			g.Recv(done)
		}
		return nil
	})
	// A server that waits in netpoll for its client.
	check(t, netCfg(2), func(g *G) error {
		server(t, g, func(string, ...any) {})
		c, err := g.Dial(":80")
		if err != nil {
			return err
		}
		g.Sleep(300e3)
		return g.Write(c, 1)
	})
	for _, word := range []string{"running", "syscall", "syscall, no P", "spinning", "idle", "schedule", "starting", "locked", "netpoll"} {
		if !seen[word] {
			t.Errorf("no M was ever %q (seen %v)", word, seen)
		}
	}
}

// Config.TraceStates: every casgstatus is an EvGoStatus, so a G's edges
// chain (each starts where the last ended) through runtime2.go's machine;
// without it the stream has none.
func TestTraceStates(t *testing.T) {
	body := func(g *G) error {
		ch, _ := g.Machine().NewChan(0)
		done, _ := g.Machine().NewChan(0)
		g.Go(func(g *G) error {
			g.Recv(ch) // blocks: main is on the global queue
			g.Syscall(1000)
			return g.Send(done, 1) // main waits: a direct hand-off
		}, "w")
		g.Gosched()
		g.Send(ch, 1)
		g.Recv(done)
		return nil
	}
	events := func(traceStates bool) []Event {
		var evs []Event
		m := NewMachine(Config{Procs: 1, Seed: 1, TraceStates: traceStates,
			Tracer: TracerFunc(func(ev *Event) { evs = append(evs, *ev) })})
		m.Start(body)
		if res := m.Run(); res.Outcome != Exited {
			t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
		}
		m.Close()
		return evs
	}
	var edges []string
	last := Gidle
	for _, ev := range events(true) {
		if ev.Kind != EvGoStatus || ev.G != 2 {
			continue
		}
		from, to := Status(ev.Arg>>8), Status(ev.Arg&0xff)
		if from != last {
			t.Errorf("G2 moved from %v, but its last edge ended in %v", from, last)
		}
		last = to
		e := from.GoName() + "→" + to.GoName()
		if ev.Reason != "" {
			e += " (" + ev.Reason + ")"
		}
		edges = append(edges, e)
	}
	want := []string{
		"_Gidle→_Gdead", "_Gdead→_Grunnable", "_Grunnable→_Grunning",
		"_Grunning→_Gwaiting (chan receive)", "_Gwaiting→_Grunnable", "_Grunnable→_Grunning",
		"_Grunning→_Gsyscall", "_Gsyscall→_Grunning", "_Grunning→_Gdead",
	}
	if !slices.Equal(edges, want) {
		t.Errorf("G2's edges:\n%s\nwant:\n%s", strings.Join(edges, "\n"), strings.Join(want, "\n"))
	}
	for _, ev := range events(false) {
		if ev.Kind == EvGoStatus {
			t.Fatalf("GoStatus without TraceStates: %+v", ev)
		}
	}
}

// exitsyscallTryGetP: a G whose P sysmon retook, and which the M it was
// handed to has taken into a syscall of its own, takes that P back when
// its syscall ends, before any idle P: a ProcSteal by the returning M,
// its ProcStart, and the exit as one that lost its P ("old p"). The M
// robbed of the P does not get it back "fast" when its own syscall ends.
func TestExitsyscallTakesOldPBack(t *testing.T) {
	evs := events(t, Config{Procs: 4}, func(g *G, _ func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		for range 4 {
			g.Add(wg, 1)
			g.Go(func(g *G) error { g.Syscall(5e6); return g.Add(wg, -1) }, "blocker")
		}
		g.Work(8e6)
		g.Wait(wg)
		return nil
	})
	var seq []string
	found := false
	for i, ev := range evs {
		if ev.Kind != EvGoSyscallEnd || ev.Reason != "old p" {
			continue
		}
		found = true
		// ProcSteal and ProcStart of the same P by the same M come first.
		if i < 2 || evs[i-2].Kind != EvProcSteal || evs[i-1].Kind != EvProcStart ||
			evs[i-2].P != ev.P || evs[i-1].P != ev.P || evs[i-2].M != ev.M || evs[i-1].M != ev.M {
			t.Errorf("the %v at %d is not after a ProcSteal and ProcStart of P%d by M%d", ev.Kind, ev.Time, ev.P, ev.M)
		}
		// The robbed M: its G entered a syscall on that P, and leaves it
		// later without it.
		for _, later := range evs[i+1:] {
			if later.Kind == EvGoSyscallEnd && later.P == ev.P && later.Reason == "fast" && later.M != ev.M {
				t.Errorf("M%d leaves its syscall fast on P%d, which M%d took back at %d", later.M, later.P, ev.M, ev.Time)
			}
		}
	}
	for _, ev := range evs {
		if ev.Kind == EvGoSyscallEnd {
			seq = append(seq, ev.Reason)
		}
	}
	if !found {
		t.Errorf("no syscall exit took its old P back from another M's syscall: exits %v", seq)
	}
}
