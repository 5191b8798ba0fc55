package runtime

import "testing"

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
