package runtime

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
)

// selectgo: the poll order is a seeded random permutation, so with two
// ready cases each wins about half the time, and the same seed gives the
// same choices.
func TestSelectUniformAndSeeded(t *testing.T) {
	count := func(seed uint64) [2]int {
		var n [2]int
		_, res := run(t, Config{Seed: seed}, func(g *G, log func(string, ...any)) error {
			a, _ := g.Machine().NewChan(1)
			b, _ := g.Machine().NewChan(1)
			for range 1000 {
				g.Send(a, 1)
				g.Send(b, 2)
				i, _, _, _ := g.Select([]SelectCase{{Chan: a}, {Chan: b}}, true)
				n[i]++
				g.Select([]SelectCase{{Chan: a}, {Chan: b}}, true) // drain the other
			}
			return nil
		})
		if res.Outcome != Exited {
			t.Fatal(res.Outcome, res.Err)
		}
		return n
	}
	n1 := count(1)
	if n1[0] < 400 || n1[1] < 400 {
		t.Errorf("choices %v are not about even", n1)
	}
	if n2 := count(1); n2 != n1 {
		t.Errorf("same seed, different choices: %v vs %v", n1, n2)
	}
	if n3 := count(2); n3 == n1 {
		t.Errorf("seeds 1 and 2 made the same choices %v", n1)
	}
}

// selectgo pass 2/3: a blocked select is woken by the first channel ready
// and leaves the other channel's queue; default is chosen when nothing is
// ready; a select with no cases blocks forever.
func TestSelectBlocksAndCleansUp(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		a, _ := g.Machine().NewChan(0)
		b, _ := g.Machine().NewChan(0)
		i, _, _, _ := g.Select([]SelectCase{{Chan: a}, {Chan: b}}, false)
		log("default %d", i)
		g.Go(func(g *G) error { return g.Send(b, "hi") }, "sender")
		i, v, ok, _ := g.Select([]SelectCase{{Chan: a}, {Chan: b}}, true)
		log("case %d %v %v", i, v, ok)
		recv, send := a.Waiting()
		log("left on a: %d %d", len(recv), len(send))
		g.Go(func(g *G) error { g.Select(nil, true); return nil }, "forever")
		g.Gosched()
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if want := "default -1\ncase 1 hi true\nleft on a: 0 0\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// sync.Mutex: an unlock readies the first waiter into runnext; waiters are
// served in FIFO order.
func TestMutexFIFO(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		m := g.Machine()
		mu := m.NewMutex()
		wg := m.NewWaitGroup()
		g.Lock(mu)
		for i := range 3 {
			g.Add(wg, 1)
			g.Go(func(g *G) error {
				g.Lock(mu)
				log("w%d", i)
				g.Unlock(mu)
				return g.Add(wg, -1)
			}, "w")
		}
		g.Sleep(1) // all three block in Lock: w2 w0 w1
		if err := g.Unlock(mu); err != nil {
			return err
		}
		g.Wait(wg)
		if err := g.Unlock(mu); err != ErrUnlockOfUnlocked {
			return fmt.Errorf("unlock of unlocked = %v", err)
		}
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if want := "w2\nw0\nw1\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// sync.WaitGroup: the Add that reaches zero releases every waiter, each
// into runnext in turn; a negative counter is an error.
func TestWaitGroup(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, 1)
		for i := range 3 {
			g.Go(func(g *G) error { g.Wait(wg); log("waiter %d", i); return nil }, "w")
		}
		g.Sleep(1) // they wait in order 2 0 1
		g.Add(wg, -1)
		g.Sleep(1)
		if err := g.Add(wg, -1); err != ErrNegativeWG {
			return fmt.Errorf("negative counter: %v", err)
		}
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	// Released 2, 0, 1: each goready into runnext kicks the previous, so
	// 1 runs first, then 2, then 0.
	if want := "waiter 1\nwaiter 2\nwaiter 0\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// procresize: GOMAXPROCS changes the number of Ps; work spreads over them.
func TestGOMAXPROCS(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		job := func(n int) {
			wg := g.Machine().NewWaitGroup()
			start := g.Now()
			for range n {
				g.Add(wg, 1)
				g.Go(func(g *G) error { g.Work(1e6); return g.Add(wg, -1) }, "job")
			}
			g.Wait(wg)
			log("%d procs: %dms", g.Machine().GOMAXPROCS(), (g.Now()-start)/1e6)
		}
		job(8)
		prev, _ := g.GOMAXPROCS(4)
		log("prev %d", prev)
		job(8)
		g.GOMAXPROCS(2)
		job(8)
		if _, err := g.GOMAXPROCS(100000); err == nil {
			return errors.New("GOMAXPROCS(100000) succeeded")
		}
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if want := "1 procs: 8ms\nprev 1\n4 procs: 2ms\n2 procs: 4ms\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// park/ready: ready passes a value; ready of a G that is not parked by
// park is an error.
func TestParkReady(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		var parked *G
		parked, _ = g.Go(func(g *G) error { log("got %v", g.Park("waiting for main")); return nil }, "p")
		if err := g.Ready(parked, 1); err == nil {
			return errors.New("ready of a runnable G succeeded")
		}
		g.Sleep(1)
		if parked.WaitReason() != "waiting for main" {
			return fmt.Errorf("wait reason %q", parked.WaitReason())
		}
		if err := g.Ready(parked, "hello"); err != nil {
			return err
		}
		g.Sleep(1)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if out != "got hello\n" {
		t.Errorf("got %q", out)
	}
}

// A Go panic in a goroutine ends the run as Panicked, with the value.
func TestGoroutinePanic(t *testing.T) {
	_, res := run(t, Config{Procs: 2}, func(g *G, log func(string, ...any)) error {
		g.Go(func(g *G) error { panic("boom") }, "bad")
		g.Sleep(10)
		return nil
	})
	var tp *TaskPanic
	if res.Outcome != Panicked || !errors.As(res.Err, &tp) || tp.Value != "boom" || res.G.Name() != "bad" {
		t.Errorf("outcome %v %v G=%v", res.Outcome, res.Err, res.G)
	}
}

// Limits end the run with a LimitError.
func TestLimits(t *testing.T) {
	_, res := run(t, Config{MaxGoroutines: 5}, func(g *G, log func(string, ...any)) error {
		for {
			if _, err := g.Go(func(g *G) error { g.Park("forever"); return nil }, "x"); err != nil {
				return err
			}
		}
	})
	if res.Outcome != Limit || !strings.Contains(res.Err.Error(), "goroutine limit") {
		t.Errorf("goroutines: %v %v", res.Outcome, res.Err)
	}
	_, res = run(t, Config{MaxTime: 5e6}, func(g *G, log func(string, ...any)) error {
		for {
			g.Sleep(1e6)
		}
	})
	if res.Outcome != Limit || res.Time != 5e6 {
		t.Errorf("time: %v %v at %d", res.Outcome, res.Err, res.Time)
	}
}

// Interrupt, from another goroutine, ends the run as Canceled.
func TestInterrupt(t *testing.T) {
	m := NewMachine(Config{})
	defer m.Close()
	m.Start(func(g *G) error {
		for {
			g.Sleep(1)
		}
	})
	for range 100 {
		m.Step()
	}
	go m.Interrupt(errors.New("stop"))
	for m.Step() {
		time.Sleep(time.Microsecond)
	}
	if res := m.Result(); res.Outcome != Canceled || res.Err.Error() != "stop" {
		t.Errorf("%v %v", res.Outcome, res.Err)
	}
}

// Close stops every live goroutine's coroutine: no host goroutine leaks,
// whatever the outcome.
func TestNoHostGoroutineLeak(t *testing.T) {
	base := goruntime.NumGoroutine()
	for range 50 {
		for _, f := range []Func{
			func(g *G) error { // exits with blocked goroutines
				c, _ := g.Machine().NewChan(0)
				for range 10 {
					g.Go(func(g *G) error { g.Recv(c); return nil }, "blocked")
				}
				g.Gosched()
				return nil
			},
			func(g *G) error { // deadlocks
				c, _ := g.Machine().NewChan(0)
				g.Go(func(g *G) error { g.Recv(c); return nil }, "blocked")
				g.Recv(c)
				return nil
			},
			func(g *G) error { // panics
				g.Go(func(g *G) error { g.Park("x"); return nil }, "parked")
				g.Gosched()
				panic("boom")
			},
		} {
			m := NewMachine(Config{Procs: 2})
			m.Start(f)
			m.Run()
			m.Close()
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for goruntime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := goruntime.NumGoroutine(); n > base {
		t.Errorf("%d goroutines left, baseline %d", n, base)
	}
}

// The idle outcome: a G parked for the host is not a deadlock, and
// ReadyHost lets the run go on.
func TestHostWaitIdle(t *testing.T) {
	m := NewMachine(Config{Procs: 2})
	defer m.Close()
	var got []any
	m.Start(func(g *G) error {
		for {
			v := g.ParkHost("repl input")
			if v == nil {
				return nil
			}
			got = append(got, v)
		}
	})
	if res := m.Run(); res.Outcome != Idle {
		t.Fatalf("outcome %v, want idle", res.Outcome)
	}
	m.ReadyHost(m.Main(), "a")
	if res := m.Run(); res.Outcome != Idle {
		t.Fatalf("outcome %v, want idle", res.Outcome)
	}
	m.ReadyHost(m.Main(), nil)
	if res := m.Run(); res.Outcome != Exited {
		t.Fatalf("outcome %v, want exited", res.Outcome)
	}
	if fmt.Sprint(got) != "[a]" {
		t.Errorf("got %v", got)
	}
}

// execute: Dispatches counts every time a G is put on a CPU, and its P's
// Schedtick advances only when the G does not inherit the time slice (a
// runnext hand-off from a G that blocked does).
func TestDispatchesAndSchedtick(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		m := g.Machine()
		ch, _ := m.NewChan(0)
		log("main: dispatches %d tick %d", g.Dispatches(), m.Schedtick(0))
		g.Gosched() // nothing else: straight back, a new slice
		log("after gosched: dispatches %d tick %d", g.Dispatches(), m.Schedtick(0))
		var child *G
		child, _ = g.Go(func(c *G) error {
			log("child: dispatches %d tick %d", c.Dispatches(), m.Schedtick(0))
			return c.Send(ch, 1) // main is blocked: it goes to runnext
		}, "child")
		g.Recv(ch) // blocks; the child runs from runnext, inheriting
		log("after recv: dispatches %d tick %d; child %d", g.Dispatches(), m.Schedtick(0), child.Dispatches())
		log("no such P: %d", m.Schedtick(5))
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	want := "main: dispatches 1 tick 1\n" +
		"after gosched: dispatches 2 tick 2\n" +
		"child: dispatches 1 tick 2\n" +
		"after recv: dispatches 3 tick 2; child 1\n" +
		"no such P: 0\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// acquireSudog/releaseSudog and the G's waitingOn array: a goroutine that
// blocks on a channel or a select again and again allocates nothing once
// warm, as in Go, whose sudogs come from a cache. The echo goroutine's
// goid is past 255, so that a goid boxed on the way (touch's GKey) would
// be an allocation.
func TestBlockingAllocatesNothing(t *testing.T) {
	for _, sel := range []bool{false, true} {
		m := NewMachine(Config{Procs: 1})
		var v any = "ball" // boxed once
		m.Start(func(g *G) error {
			ping, _ := g.Machine().NewChan(0)
			pong, _ := g.Machine().NewChan(0)
			quit, _ := g.Machine().NewChan(0)
			for range 300 {
				g.Go(func(*G) error { return nil }, "nop")
			}
			g.Go(func(g *G) error {
				for {
					if sel {
						g.Select([]SelectCase{{Chan: ping}, {Chan: quit}}, true)
					} else {
						g.Recv(ping)
					}
					g.Send(pong, v)
				}
			}, "echo")
			cases := []SelectCase{{Chan: pong}, {Chan: quit}}
			for {
				g.Send(ping, v)
				if sel {
					g.Select(cases, true)
				} else {
					g.Recv(pong)
				}
			}
		})
		defer m.Close()
		for range 1000 { // warm up
			m.Step()
		}
		allocs := testing.AllocsPerRun(1000, func() { m.Step() })
		if allocs != 0 {
			t.Errorf("select=%v: %.2f allocations per step, want 0", sel, allocs)
		}
	}
}

// A goroutine that sleeps again and again reuses its own timer (gp.timer),
// as time.Sleep does: once warm, a sleep allocates nothing.
func TestSleepAllocatesNothing(t *testing.T) {
	m := NewMachine(Config{Procs: 1})
	m.Start(func(g *G) error {
		for {
			g.Sleep(1000)
		}
	})
	defer m.Close()
	for range 100 {
		m.Step()
	}
	if allocs := testing.AllocsPerRun(1000, func() { m.Step() }); allocs != 0 {
		t.Errorf("%.2f allocations per step, want 0", allocs)
	}
}

// PendingAfterChans lists the channels of After timers that someone waits
// on (only those are on a heap, as in Go 1.23), until they fire.
func TestPendingAfterChans(t *testing.T) {
	out, res := run(t, Config{Procs: 2}, func(g *G, log func(string, ...any)) error {
		m := g.Machine()
		a := g.After(5)
		b := g.After(10)
		pending := func() string {
			var s []string
			for _, c := range m.PendingAfterChans() {
				switch c {
				case a:
					s = append(s, "a")
				case b:
					s = append(s, "b")
				default:
					s = append(s, "?")
				}
			}
			return strings.Join(s, ",")
		}
		log("before: %q", pending())
		if _, err := g.Go(func(g *G) error { g.Recv(b); return nil }, "waiter"); err != nil {
			return err
		}
		g.Sleep(1)
		log("b waited on: %s", pending())
		g.Recv(a)
		log("after a: %s", pending())
		g.Sleep(20)
		log("after both: %q", pending())
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if want := "before: \"\"\nb waited on: b\nafter a: b\nafter both: \"\"\n"; out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}
