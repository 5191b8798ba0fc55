package runtime

import (
	"testing"
)

// The bucket, worked by hand: capacity 2s (2 Ps). 1.5s of GC against
// 0.5s of the program fills it by 1s; 2s against 0.5s more fills it and
// overflows by 0.5s, and the limiter is on; any time of the program then
// turns it off, and the bucket never drains below empty.
func TestLimiterAccumulate(t *testing.T) {
	const s = int64(1e9)
	l := gcCPULimiterState{capacity: 2 * s}
	for _, step := range []struct {
		mutator, gc int64
		fill, over  int64
		on          bool
	}{
		{s / 2, 3 * s / 2, s, 0, false},
		{s / 2, 2 * s, 2 * s, s / 2, true},
		{s / 10, s / 10, 2 * s, s / 2, true}, // no change: still full
		{s / 10, 0, 2*s - s/10, s / 2, false},
		{5 * s, 0, 0, s / 2, false},
	} {
		l.accumulate(step.mutator, step.gc, 7)
		if l.fill != step.fill || l.overflow != step.over || l.enabled != step.on {
			t.Fatalf("after %v mutator, %v GC: fill %v, overflow %v, on %v; want %v, %v, %v",
				step.mutator, step.gc, l.fill, l.overflow, l.enabled, step.fill, step.over, step.on)
		}
	}
	if l.lastEnabledCycle != 7 {
		t.Errorf("last enabled in cycle %d, want 7", l.lastEnabledCycle)
	}
}

// continuousGC is main for the limiter tests: 60 MiB live under a 64 MiB
// memory limit, so that every cycle ends with the heap at its goal and
// the next starts at once, while main allocates 64 KiB every 20µs of
// work for 3 virtual seconds. It returns the time main took for its
// last 2,000 allocations.
func continuousGC(g *G, last *int64) error {
	if err := g.Retain(60 * mib); err != nil {
		return err
	}
	g.SetMemoryLimit(64 * mib)
	var mark int64
	for i := 0; g.m.now < 3e9; i++ {
		if i%2000 == 0 {
			*last, mark = g.m.now-mark, g.m.now
		}
		if err := g.Alloc(64 * kib); err != nil {
			return err
		}
		g.Work(20_000)
	}
	return nil
}

// Collecting continuously at one P, assists take most of the CPU until
// the limiter's bucket (1s of CPU) fills; from then on it turns assists
// off whenever the collector has had more than the program, and main
// keeps about 40% of the CPU (not quite half: at one P nothing updates
// the limiter during an assist, so each assist it lets through runs to
// its end): its last 2,000 allocations, with 40ms of work, take 103ms.
// With the limiter broken (never on) they take 1.36s.
func TestLimiterCapsAssists(t *testing.T) {
	run := func(broken bool) (int64, GCStats) {
		var last int64
		cfg := Config{Procs: 1, GCCycle: GCMark, Costs: costsOf(CostGCSweepTerm, 10_000, CostGCMarkTerm, 10_000, CostGCMarkMiB, 1<<20)}
		m := NewMachine(cfg)
		m.gc.limiter.broken = broken
		m.Start(func(g *G) error { return continuousGC(g, &last) })
		if res := *m.Run(); res.Outcome != Exited {
			t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
		}
		return last, m.GCStats()
	}
	last, s := run(false)
	if s.LimiterCycle == 0 || last >= 150e6 {
		t.Errorf("limiter last on in cycle %d; the last 2,000 allocations took %dns; want a cycle and < 150ms", s.LimiterCycle, last)
	}
	t.Logf("%d cycles, %dms of assists, the limiter last on in cycle %d, the last 2,000 allocations in %.1fms", s.Cycles, s.AssistTime/1e6, s.LimiterCycle, float64(last)/1e6)
	last, s = run(true)
	if s.LimiterCycle != 0 || last < 500e6 {
		t.Errorf("without the limiter: on in cycle %d, the last 2,000 allocations in %dns; want never and > 500ms", s.LimiterCycle, last)
	}
	t.Logf("without: %d cycles, %dms of assists, the last 2,000 allocations in %.1fms", s.Cycles, s.AssistTime/1e6, float64(last)/1e6)
}
