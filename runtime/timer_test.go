package runtime

import (
	"errors"
	"testing"
)

// TestTickerNobodyReads: a ticker nobody waits on is on no heap, so it
// keeps nothing alive: main blocked for good is a deadlock at once, as in
// Go 1.23 (needsAdd: a channel timer is added only while blocked > 0).
func TestTickerNobodyReads(t *testing.T) {
	_, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		if _, err := g.NewTicker(1000); err != nil {
			return err
		}
		g.NewTimer(5000)
		g.After(5000)
		c, _ := g.Machine().NewChan(0)
		g.Recv(c)
		return nil
	})
	if res.Outcome != Deadlock || res.Time != 0 {
		t.Fatalf("got %v at %d, want a deadlock at 0", res.Outcome, res.Time)
	}
}

// TestTimerChanOnTheSpot: a receive on an expired timer that is on no
// heap runs it on the spot (maybeRunChan) and gets its deadline without
// parking; a ticker late by several periods skips the ticks it missed.
func TestTimerChanOnTheSpot(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		tm := g.NewTimer(100)
		g.Work(350)
		d0 := g.Dispatches()
		v, _ := g.Recv(tm.C())
		log("timer: %v at %d, parked %v", v, g.Now(), g.Dispatches() != d0)
		tk, _ := g.NewTicker(100)
		g.Work(350)
		v, _ = g.Recv(tk.C())
		log("tick: %v at %d", v, g.Now())
		v, _ = g.Recv(tk.C())
		log("tick: %v at %d", v, g.Now())
		g.StopTimer(tk)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Err)
	}
	want := "timer: 100 at 350, parked false\ntick: 450 at 700\ntick: 750 at 750\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// TestTimerStopDrains: Stop and Reset leave no stale value, and count a
// buffered value as not fired; Reset of a fired timer reports false.
func TestTimerStopDrains(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		a := g.NewTimer(10)
		b := g.NewTimer(10)
		g.Work(20)
		// A select looks at both: both run, one is taken, the other's
		// value stays buffered.
		i, _, _, _ := g.Select([]SelectCase{{Chan: a.C()}, {Chan: b.C()}}, true)
		other := b
		if i == 1 {
			other = a
		}
		log("len %d, stop of the other: %v", other.C().Len(), g.StopTimer(other))
		_, _, ok := g.chanrecv(other.C(), false)
		log("stale value: %v", ok)
		tm := g.NewTimer(10)
		g.Recv(tm.C())
		log("reset of a fired timer: %v", g.ResetTimer(tm, 10, 0))
		log("stop: %v", g.StopTimer(tm))
		if _, err := g.NewTicker(0); !errors.Is(err, ErrNonPositiveTicker) {
			return err
		}
		tk, _ := g.NewTicker(5)
		if err := g.ResetTicker(tk, -1); !errors.Is(err, ErrNonPositiveTickerReset) {
			return err
		}
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Err)
	}
	want := "len 0, stop of the other: true\nstale value: false\nreset of a fired timer: false\nstop: true\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// TestZombieTicker: the receiver of a ticker leaves, making it a zombie;
// the P drops it at its next check, and the run, with nothing else to do,
// deadlocks instead of ticking forever.
func TestZombieTicker(t *testing.T) {
	_, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		tk, _ := g.NewTicker(10)
		g.Recv(tk.C())
		g.Recv(tk.C())
		c, _ := g.Machine().NewChan(0)
		g.Recv(c)
		return nil
	})
	if res.Outcome != Deadlock {
		t.Fatalf("got %v, want deadlock", res.Outcome)
	}
	if res.Time > 30 {
		t.Errorf("deadlock found at %d, want by the zombie's deadline 30", res.Time)
	}
}

// TestAfterFuncGoroutine: a func timer starts its goroutine from the P
// that runs it, into runnext; stopped, it starts none.
func TestAfterFuncGoroutine(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		start := func(msg string) func() (Func, string, func(*G)) {
			return func() (Func, string, func(*G)) {
				return func(g *G) error { log("%s at %d, created by %d", msg, g.Now(), g.CreatedBy()); return nil }, msg, nil
			}
		}
		never := g.AfterFunc(5, nil, start("never"))
		log("stop: %v", g.StopTimer(never))
		g.AfterFunc(10, nil, start("f"))
		g.Sleep(20)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Err)
	}
	if want := "stop: true\nf at 10, created by 0\n"; out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}
