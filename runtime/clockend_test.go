package runtime

import (
	"math"
	"strings"
	"testing"
)

// TestClockSaturates: every sum that makes a deadline saturates at the end
// of the clock (clockend.go), the cost model's timer lateness, a wake-up
// and newm included. Each case must end with the clock-end limit: a sum
// that wrapped puts the action in the past, and the run ends in a false
// deadlock or a wrapped now(). Broken on purpose (addtimer's
// addWhen(d, lateness) back to d+lateness), sleep(maxint64) and the
// deadline 1µs before the end fail with a false deadlock.
//
// The last case, every cost 2^63-1 on two Ps, hung before sysmonSkip
// skipped the passes while a P's G sits in newproc's charge (not
// preemptible) with its preemption request posted: sysmon stepped 10ms at
// a time towards the end of the clock, 10^12 passes.
func TestClockSaturates(t *testing.T) {
	huge := &Costs{Name: "huge"}
	for _, k := range CostKinds() {
		huge.Dists[k] = Const(math.MaxInt64)
	}
	late := costsOf(CostTimerLate, 165_000, CostTimerLateShort, 887_000)
	var woke int64
	for _, tc := range []struct {
		name string
		cfg  Config
		main func(g *G) error
	}{
		{"sleep(maxint64), late timers", Config{Procs: 1, Costs: late}, func(g *G) error { g.Sleep(math.MaxInt64); return nil }},
		{"sleep(1<<62) twice, late timers", Config{Procs: 1, Costs: late}, func(g *G) error {
			g.Sleep(1 << 62)
			woke = g.Now()
			g.Sleep(1 << 62)
			return nil
		}},
		{"after(maxint64), late timers", Config{Procs: 1, Costs: late}, func(g *G) error {
			g.Sleep(1)
			g.Recv(g.After(math.MaxInt64))
			return nil
		}},
		{"a deadline 1µs before the end, late timers", Config{Procs: 1, Costs: late}, func(g *G) error {
			g.Sleep(math.MaxInt64 - 1000)
			return nil
		}},
		{"every cost 2^63-1, 2 Ps", Config{Procs: 2, Costs: huge}, func(g *G) error {
			g.Go(func(g *G) error { return nil }, "f")
			return nil
		}},
		{"every cost 2^63-1, 2 Ps, preemption off", Config{Procs: 2, Costs: huge, NoPreempt: true}, func(g *G) error {
			g.Go(func(g *G) error { return nil }, "f")
			g.Work(1e6)
			return nil
		}},
		{"ticker past the end", Config{Procs: 1, Costs: late}, func(g *G) error {
			tm, err := g.NewTicker(math.MaxInt64/2 + 1)
			if err != nil {
				return err
			}
			for {
				g.Recv(tm.C())
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, res := run(t, tc.cfg, func(g *G, log func(string, ...any)) error { return tc.main(g) })
			le, ok := res.Err.(*LimitError)
			if res.Outcome != Limit || !ok || !strings.Contains(le.Msg, "the end of the virtual clock") {
				t.Fatalf("outcome %v: %v; want the limit at the end of the virtual clock", res.Outcome, res.Err)
			}
			if res.Time < 0 || res.Time == math.MaxInt64 {
				t.Errorf("the run ended at %d: wrapped, or at the end itself", res.Time)
			}
		})
	}
	if want := int64(1<<62 + 165_000); woke != want {
		t.Errorf("sleep(1<<62) woke at %d, want %d (the deadline and the lateness)", woke, want)
	}
}

// TestAddTime: the language's deadlines (context.WithTimeout's now+d)
// saturate at both ends instead of wrapping.
func TestAddTime(t *testing.T) {
	for _, tc := range []struct{ t, d, want int64 }{
		{1, math.MaxInt64, math.MaxInt64},
		{1 << 62, 1 << 62, math.MaxInt64},
		{5, -3, 2},
		{-5, math.MinInt64, math.MinInt64},
		{100, 1, 101},
	} {
		if got := AddTime(tc.t, tc.d); got != tc.want {
			t.Errorf("AddTime(%d, %d) = %d, want %d", tc.t, tc.d, got, tc.want)
		}
	}
}
