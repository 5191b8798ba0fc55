package runtime

import (
	"slices"
	"strings"
	"testing"
)

// The tests in this file pin the one rule each scheduler variant changes
// (variant.go), against Go's own rule on the same state.

// variantWorld is world under the variant named sched: procs Ps, M0
// holding P0, and n runnable Gs on no queue.
func variantWorld(t *testing.T, sched string, procs, n int) (*Machine, *M, []*G) {
	t.Helper()
	pol, err := ParsePolicy(sched)
	if err != nil {
		t.Fatal(err)
	}
	return worldOf(Config{Procs: procs, Seed: 1, Sched: pol}, n)
}

func TestParsePolicy(t *testing.T) {
	for _, name := range []string{"go", "central", "handoff", "eager", "no-runnext", "no-steal", "runq=1", "runq=16"} {
		p, err := ParsePolicy(name)
		if err != nil {
			t.Fatalf("ParsePolicy(%q): %v", name, err)
		}
		if p.String() != name {
			t.Errorf("ParsePolicy(%q).String() = %q", name, p.String())
		}
	}
	if p, _ := ParsePolicy("go"); p != (Policy{}) {
		t.Errorf("go is %+v, want the zero Policy", p)
	}
	for _, bad := range []string{"", "Go", "spinning", "runq=0", "runq=257", "runq=x"} {
		_, err := ParsePolicy(bad)
		if err == nil {
			t.Errorf("ParsePolicy(%q): no error", bad)
			continue
		}
		if !strings.HasPrefix(bad, "runq=") && !strings.Contains(err.Error(), strings.Join(PolicyNames, ", ")) {
			t.Errorf("ParsePolicy(%q): %v does not name the variants", bad, err)
		}
	}
}

// central: runqput puts every G on the global queue, runnext or not, and
// findRunnable takes one at a time, leaving the P's ring empty; Go's
// findRunnable takes a batch into the ring.
func TestVariantCentral(t *testing.T) {
	for _, tc := range []struct {
		sched      string
		wantGlobal int32
		wantRing   int
	}{{"go", 0, 0}, {"central", 4, 0}} {
		m, mp, gs := variantWorld(t, tc.sched, 2, 4)
		pp := m.allp[0]
		for _, g := range gs {
			m.runqput(pp, g, true)
		}
		if m.runq.size != tc.wantGlobal {
			t.Errorf("%s: global queue holds %d after runqput, want %d", tc.sched, m.runq.size, tc.wantGlobal)
		}
		if tc.sched == "go" {
			continue
		}
		if pp.runnext != nil || len(ring(pp)) != 0 {
			t.Errorf("central: P0 has runnext %v and ring %v, want nothing", pp.runnext, ring(pp))
		}
		pp.schedtick = 1 // past the every-61st look
		gp, _ := m.findRunnable(mp)
		if gp != gs[0] {
			t.Fatalf("central: findRunnable = %v, want G%d", gp, gs[0].goid)
		}
		if got := ring(pp); len(got) != tc.wantRing {
			t.Errorf("central: ring after findRunnable = %v, want empty", got)
		}
		if st := m.SchedStats(); st.LockAcquires != 5 {
			t.Errorf("central: %d sched.lock takes, want 5 (4 puts, 1 get)", st.LockAcquires)
		}
	}
	// Go's batch, for contrast: the other Gs go to the ring.
	m, mp, gs := variantWorld(t, "go", 1, 4)
	for _, g := range gs {
		m.globrunqput(g)
	}
	m.allp[0].schedtick = 1
	if gp, _ := m.findRunnable(mp); gp != gs[0] || len(ring(m.allp[0])) != 3 {
		t.Errorf("go: findRunnable = %v with ring %v, want G%d and the other 3 in the ring", gp, ring(m.allp[0]), gs[0].goid)
	}
}

// waiting makes the runnable gp waiting, as if it had parked.
func waiting(gp *G) {
	gp.status = Gwaiting
	gp.waitreason = "test"
}

// no-runnext: a G readied into runnext goes to the ring instead.
func TestVariantNoRunnext(t *testing.T) {
	for _, sched := range []string{"go", "no-runnext"} {
		m, _, gs := variantWorld(t, sched, 1, 1)
		pp := m.allp[0]
		waiting(gs[0])
		m.ready(gs[0], pp, nil, true)
		inRunnext := pp.runnext == gs[0]
		if want := sched == "go"; inRunnext != want {
			t.Errorf("%s: G in runnext = %v, want %v (ring %v)", sched, inRunnext, want, ring(pp))
		}
	}
}

// no-steal: an M with nothing local and an empty global queue parks
// instead of stealing the other P's ring.
func TestVariantNoSteal(t *testing.T) {
	for _, sched := range []string{"go", "no-steal"} {
		m, _, gs := variantWorld(t, sched, 2, 4)
		for _, g := range gs {
			m.runqput(m.allp[0], g, false)
		}
		m1 := m.newm()
		m.pidleRemove(m.allp[1])
		m.acquirep(m1, m.allp[1])
		gp, _ := m.findRunnable(m1)
		if sched == "go" {
			if gp == nil || m.stats.Steals != 1 {
				t.Errorf("go: findRunnable = %v after %d steals, want a stolen G", gp, m.stats.Steals)
			}
			continue
		}
		if gp != nil || m.stats.Steals != 0 || !m1.idle || m.allp[1].status != Pidle {
			t.Errorf("no-steal: findRunnable = %v, %d steals, M1 idle %v, P1 %v; want M1 parked and P1 idle", gp, m.stats.Steals, m1.idle, m.allp[1].status)
		}
		if got := ring(m.allp[0]); len(got) != 4 {
			t.Errorf("no-steal: P0's ring = %v, want all 4 Gs", got)
		}
	}
}

// runq=N: the ring holds N Gs; the put that finds it full moves N/2 and
// the G to the global queue (runqputslow).
func TestVariantRunqN(t *testing.T) {
	m, _, gs := variantWorld(t, "runq=4", 1, 5)
	pp := m.allp[0]
	for _, g := range gs {
		m.runqput(pp, g, false)
	}
	if got, want := ring(pp), ids(gs[2:4]); !slices.Equal(got, want) {
		t.Errorf("ring = %v, want %v", got, want)
	}
	if got, want := ids(m.runq.slice()), append(ids(gs[:2]), gs[4].goid); !slices.Equal(got, want) {
		t.Errorf("global = %v, want %v", got, want)
	}
}

// handoff: a readied G goes to an idle P, with a thread started for it;
// Go's ready keeps it on the readying P and wakes a spinning M with an
// empty P.
func TestVariantHandoff(t *testing.T) {
	for _, sched := range []string{"go", "handoff"} {
		m, _, gs := variantWorld(t, sched, 2, 1)
		waiting(gs[0])
		m.ready(gs[0], m.allp[0], nil, true)
		p1 := m.allp[1]
		if p1.m == nil || p1.m.nextp != p1 {
			t.Fatalf("%s: no thread started for P1", sched)
		}
		onP1 := slices.Contains(ring(p1), gs[0].goid)
		if want := sched == "handoff"; onP1 != want || p1.m.spinning == want {
			t.Errorf("%s: G on P1 %v, P1's M spinning %v; want %v, %v", sched, onP1, p1.m.spinning, want, !want)
		}
		if got, want := m.SchedStats().DirectHandoffs, int64(len(ring(p1))); got != want {
			t.Errorf("%s: %d direct hand-offs, want %d", sched, got, want)
		}
	}
}

// eager: a ready while an M spins still wakes a thread for an idle P;
// Go's wakep does not.
func TestVariantEager(t *testing.T) {
	for _, sched := range []string{"go", "eager"} {
		m, _, gs := variantWorld(t, sched, 3, 1)
		m.wakep() // one spinning M, on P2 or P1
		if m.nmspinning != 1 || len(m.pidle) != 1 {
			t.Fatalf("%s: after wakep %d spinning, %d idle Ps", sched, m.nmspinning, len(m.pidle))
		}
		waiting(gs[0])
		m.ready(gs[0], m.allp[0], nil, true)
		woke := len(m.pidle) == 0
		if want := sched == "eager"; woke != want || (m.SchedStats().EagerWakes == 1) != want {
			t.Errorf("%s: ready woke a thread %v (%d eager wake-ups), want %v", sched, woke, m.SchedStats().EagerWakes, want)
		}
	}
}

// SchedStats: a thread woken for an idle P that finds nothing is a park
// and a wasted wake-up; its wake-up's latency is counted; a readied G
// that runs on the readying P counts as local, on another P not.
func TestSchedStats(t *testing.T) {
	m, _, gs := variantWorld(t, "go", 2, 3)
	m.cfg.Costs = DefaultCosts()
	m.initCosts()
	m.wakep() // M1 for P1, spinning
	m1 := m.allm[1]
	st := m.SchedStats()
	if st.NewMs != 1 || st.Unparks != 0 || st.WakeupTime != m.cost[CostWakeup]+m.cost[CostNewm] {
		t.Errorf("after wakep: %+v, want 1 new M and a wake-up time of wakeup+newm (%d)", st, m.cost[CostWakeup]+m.cost[CostNewm])
	}
	m.cfg.Costs, m.cost = nil, [NumCosts]int64{} // no steal passes to spend: M1 looks once and parks
	m.schedule(m1)
	if st := m.SchedStats(); !m1.idle || st.Parks != 1 || st.SpuriousWakes != 1 {
		t.Errorf("M1 found nothing: idle %v, %+v; want 1 park, 1 wasted wake-up", m1.idle, st)
	}

	// gs[0] and gs[2], readied by gs[1] on P0: the first ready wakes M1
	// again, which steals gs[0] and runs it on P1; gs[2] runs on P0.
	for _, g := range []*G{gs[0], gs[2]} {
		waiting(g)
		m.ready(g, m.allp[0], gs[1], false)
	}
	m.schedule(m1)
	if m1.curg != gs[0] || m1.p != m.allp[1] {
		t.Fatalf("M1 runs %v on %v, want G%d on P1", m1.curg, m1.p, gs[0].goid)
	}
	m.handoff = nil
	m.execute(m.allm[0], gs[2], false)
	if st := m.SchedStats(); st.Readied != 2 || st.ReadiedLocal != 1 || st.Unparks != 1 {
		t.Errorf("%+v; want 2 readied, 1 local, 1 unpark", st)
	}
}
