package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// Tests added for the mutants of the mutation pass (bench/mutate) that no
// test killed: each fails when its rule is broken.

// stealWork: a thief takes another P's runnext only in the last of its
// four rounds; in the earlier rounds it steals rings only. P0 holds only a
// runnext (its M runs a G, so the runnext is stealable), P1 a ring of one
// G, and the thief P2 must take P1's G in the first round, whichever of
// the two it visits first. Over 16 seeds it visits P0 first for some
// (the order is random), where a thief that took runnext in every round
// would take P0's (mutant steal-runnext-every-round).
func TestStealWorkRunnextOnlyInLastRound(t *testing.T) {
	fn := func(*G) error { return nil }
	for seed := uint64(1); seed <= 16; seed++ {
		m := NewMachine(Config{Procs: 3, Seed: seed})
		p0, p1, p2 := m.allp[0], m.allp[1], m.allp[2]
		for _, pp := range []*P{p0, p1, p2} {
			m.pidleRemove(pp)
			m.acquirep(m.newm(), pp)
		}
		running := m.newproc1(fn, nil, p0, "running")
		a := m.newproc1(fn, nil, p0, "a")
		b := m.newproc1(fn, nil, p1, "b")
		m.runqput(p0, a, true)
		p0.m.curg = running
		m.runqput(p1, b, false)
		gp, _, _ := m.stealWork(p2.m)
		if gp != b {
			got := "nothing"
			if gp != nil {
				got = gp.name
			}
			t.Errorf("seed %d: the thief took %s, want b from P1's ring (P0's runnext only in the last round)", seed, got)
		}
		if p0.runnext != a {
			t.Errorf("seed %d: P0's runnext was taken", seed)
		}
	}
}

// closechan releases the readers before the writers. A select blocked on
// both a receive and a send of the same channel sits in both queues, and
// close wakes it once, from the queue it empties first (the other sudog is
// skipped: selectDone): the receive, as a receive from a closed channel,
// not the send, which would panic. Mutant close-senders-first.
func TestCloseReleasesReadersFirst(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		c, _ := g.Machine().NewChan(0)
		g.Go(func(g *G) error {
			chosen, v, ok, err := g.Select([]SelectCase{{Dir: SelectRecv, Chan: c}, {Dir: SelectSend, Chan: c, Send: 1}}, true)
			log("case %d: %v %v %v", chosen, v, ok, err)
			return nil
		}, "both")
		g.Sleep(1) // it blocks in both queues
		if err := g.Close(c); err != nil {
			return err
		}
		g.Sleep(1)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if want := "case 0: <nil> false <nil>\n"; out != want {
		t.Errorf("got %q, want %q (the receive case, from a closed channel)", out, want)
	}
}

// sysmonSkip skips only the passes that cannot act. After 60ms of short
// slices (a G working 3ms and yielding, 20 times) sysmon has seen nothing
// to do for long enough that its delay is at its 10ms ceiling; a G that
// then works for half a second with another G waiting in runnext must
// still be preempted a tick or two after its 10ms slice, not when its
// work ends (mutant sysmon-skips-preemptible: the passes skipped while
// the G is in the middle of work).
func TestSysmonSkipKeepsPreemption(t *testing.T) {
	var ran int64
	_, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		for range 20 {
			g.Work(3e6)
			g.Gosched()
		}
		if g.m.sysmonDelay != sysmonMaxDelay {
			return fmt.Errorf("sysmon's delay is %dµs, not yet at its ceiling: the test needs longer", g.m.sysmonDelay/1000)
		}
		start := g.Now()
		g.Go(func(g *G) error { ran = g.Now() - start; return nil }, "other")
		g.Work(500e6)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if ran < forcePreemptNS || ran > forcePreemptNS+2*sysmonMaxDelay {
		t.Errorf("the waiting G ran %dms after the worker started, want 10 to 30ms (a preemption)", ran/1e6)
	}
}

// sync.Mutex's starvation mode: a waiter that has waited more than 1ms
// when it is woken switches the mutex to starvation mode, and the next
// Unlock hands the mutex to it. A holder on one P that unlocks and locks
// again at once (barging) then cannot keep it: the waiter on the other P
// gets it a few of the holder's 100µs turns after its first millisecond,
// not when the holder's 200 turns are over (mutant mutex-no-starvation).
func TestMutexStarvationHandsOff(t *testing.T) {
	var got, holderDone int64
	_, res := run(t, Config{Procs: 2}, func(g *G, log func(string, ...any)) error {
		mu := g.Machine().NewMutex()
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, 2)
		g.Go(func(g *G) error {
			for range 200 {
				g.Lock(mu)
				g.Work(100e3)
				if err := g.Unlock(mu); err != nil {
					return err
				}
			}
			holderDone = g.Now()
			return g.Add(wg, -1)
		}, "holder")
		g.Go(func(g *G) error {
			g.Sleep(50e3)
			g.Lock(mu)
			got = g.Now()
			if err := g.Unlock(mu); err != nil {
				return err
			}
			return g.Add(wg, -1)
		}, "waiter")
		g.Wait(wg)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if got < starvationThresholdNs || got > 5*starvationThresholdNs || got >= holderDone {
		t.Errorf("the waiter got the mutex at %dµs (the holder was done at %dµs), want soon after its first millisecond of waiting", got/1000, holderDone/1000)
	}
}

// procresize: a P that GOMAXPROCS destroys gives its Gs to the head of
// the global queue, ahead of what was there: the ring from its tail (so
// that it keeps its order) and runnext last, at the very head (mutant
// procresize-tail: to the tail, behind the global queue's own Gs).
func TestProcresizeQueuesToGlobalHead(t *testing.T) {
	fn := func(*G) error { return nil }
	m := NewMachine(Config{Procs: 2})
	p1 := m.allp[1]
	x := m.newproc1(fn, nil, m.allp[0], "x")
	m.globrunqput(x)
	a := m.newproc1(fn, nil, p1, "a")
	b := m.newproc1(fn, nil, p1, "b")
	c := m.newproc1(fn, nil, p1, "c")
	m.runqput(p1, a, false)
	m.runqput(p1, b, false)
	m.runqput(p1, c, true)
	m.procresize(1)
	var got []string
	for !m.runq.empty() {
		got = append(got, m.runq.pop().name)
	}
	if want := "c a b x"; strings.Join(got, " ") != want {
		t.Errorf("global queue %v, want %s (P1's runnext, its ring in order, then the queue's own)", got, want)
	}
}

// gfput/gfget: a P keeps its dead Gs until it holds 64, then moves them
// to the global list down to 31 (while it holds 32 or more); an empty P
// takes up to 32 from the global list at once (mutants gfree-local-max-2
// and gfree-batch-1).
func TestGFreeLists(t *testing.T) {
	fn := func(*G) error { return nil }
	m := NewMachine(Config{Procs: 2})
	p0, p1 := m.allp[0], m.allp[1]
	var gs []*G
	for range 64 {
		gs = append(gs, m.newproc1(fn, nil, p0, "dead")) // made first: newproc1 reuses dead Gs
	}
	for i, gp := range gs {
		m.gfput(p0, gp)
		if i < 63 && (p0.gFree.size != int32(i+1) || !m.gFree.empty()) {
			t.Fatalf("after %d dead Gs: %d on P0, %d global; want all on P0 below 64", i+1, p0.gFree.size, m.gFree.size)
		}
	}
	if p0.gFree.size != 31 || m.gFree.size != 33 {
		t.Errorf("at 64 dead Gs: %d on P0, %d global; want 31 and 33", p0.gFree.size, m.gFree.size)
	}
	if gp := m.gfget(p1); gp == nil || p1.gFree.size != 31 || m.gFree.size != 1 {
		t.Errorf("gfget on an empty P1: %d left on P1, %d global; want a G, 31 and 1", p1.gFree.size, m.gFree.size)
	}
}
