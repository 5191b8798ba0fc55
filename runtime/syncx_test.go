package runtime

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"golang.org/x/sync/semaphore"
)

// TestWeightedMatchesXSync runs random sequences of TryAcquire and Release,
// which never block, on a Weighted and on golang.org/x/sync's, and checks
// that they agree step by step, up to the first release of more than is
// held, which both refuse (x/sync with its panic).
func TestWeightedMatchesXSync(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		size := int64(rng.IntN(6))
		ops := make([][2]int64, 40)
		for i := range ops {
			ops[i] = [2]int64{int64(rng.IntN(2)), int64(rng.IntN(4))}
		}
		_, res := run(t, Config{}, func(g *G, log func(string, ...any)) error {
			ours := g.Machine().NewWeighted(size)
			theirs := semaphore.NewWeighted(size)
			for i, op := range ops {
				n := op[1]
				if op[0] == 0 {
					a, b := g.TryAcquire(ours, n), theirs.TryAcquire(n)
					if a != b {
						return fmt.Errorf("trial %d op %d: TryAcquire(%d) = %v, x/sync says %v", trial, i, n, a, b)
					}
					continue
				}
				err := g.Release(ours, n)
				panicked := func() (p bool) {
					defer func() { p = recover() != nil }()
					theirs.Release(n)
					return false
				}()
				if (err != nil) != panicked {
					return fmt.Errorf("trial %d op %d: Release(%d) = %v, x/sync panicked: %v", trial, i, n, err, panicked)
				}
				if panicked {
					if err != ErrReleasedMore {
						return fmt.Errorf("trial %d op %d: Release error %v", trial, i, err)
					}
					return nil
				}
			}
			return nil
		})
		if res.Outcome != Exited {
			t.Fatal(res.Err)
		}
	}
}

// TestRWMutexWriterPreference: readers arriving while a writer waits for
// the readers inside queue behind it; the writer's Unlock lets them in
// in order, each goready taking runnext, so the last one runs first.
func TestRWMutexWriterPreference(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		m := g.Machine()
		rw := m.NewRWMutex()
		g.RLock(rw)
		g.Go(func(g *G) error {
			g.LockRW(rw)
			log("writer in")
			return g.UnlockRW(rw)
		}, "writer")
		g.Sleep(1)
		for i := range 2 {
			g.Go(func(g *G) error {
				g.RLock(rw)
				log("reader %d in", i)
				return g.RUnlock(rw)
			}, "reader")
			g.Sleep(1)
		}
		log("main runlocks; readers=%d writer=%v", rw.Readers(), rw.Writer())
		if err := g.RUnlock(rw); err != nil {
			return err
		}
		g.Sleep(1)
		if err := g.RUnlock(rw); err != ErrRUnlockOfUnlocked {
			return fmt.Errorf("RUnlock of an unlocked RWMutex: %v", err)
		}
		if err := g.UnlockRW(rw); err != ErrUnlockOfUnlockedRW {
			return fmt.Errorf("Unlock of an unlocked RWMutex: %v", err)
		}
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Err)
	}
	want := "main runlocks; readers=1 writer=true\nwriter in\nreader 1 in\nreader 0 in\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// TestCondTickets: a Signal between a waiter's ticket and its park is not
// lost (notifyListWait returns at once), and Signal wakes the oldest
// ticket.
func TestCondTickets(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		c := g.Machine().NewCond()
		early := g.CondAdd(c)
		g.Signal(c)
		g.CondWait(c, early) // notified already: returns at once
		log("early waiter not parked")
		for i := range 3 {
			g.Go(func(g *G) error {
				g.CondWait(c, g.CondAdd(c))
				log("w%d woke", i)
				return nil
			}, "w")
		}
		g.Sleep(1)
		g.Signal(c)
		g.Sleep(1)
		g.Broadcast(c)
		g.Sleep(1)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Err)
	}
	// w2 (runnext) took the first ticket, then w0, w1.
	want := "early waiter not parked\nw2 woke\nw1 woke\nw0 woke\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}
