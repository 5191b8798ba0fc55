package runtime

import (
	"strings"
	"testing"
)

// burners runs n goroutines that each work d on a Machine of cfg, and
// returns when the last finished and the times of the Throttle events.
func burners(t *testing.T, cfg Config, n int, d int64) (int64, []string) {
	t.Helper()
	var throttles []string
	cfg.Tracer = TracerFunc(func(ev *Event) {
		if ev.Kind == EvThrottle {
			throttles = append(throttles, FormatDuration(ev.Time)+"+"+FormatDuration(ev.Arg))
		}
	})
	var end int64
	_, res := run(t, cfg, func(g *G, log func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, int64(n))
		for range n {
			g.Go(func(g *G) error {
				g.Work(d)
				return g.Add(wg, -1)
			}, "burn")
		}
		g.Wait(wg)
		end = g.Now()
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	return end, throttles
}

// CFS bandwidth control: four Ps burning under a quota of two CPUs spend
// the 200ms of CPU a 100ms period allows in its first 50ms, and the
// process stands still for the other 50; the 1.2s of work takes 550ms
// (five throttled periods and 50ms) instead of 300. Breaking the throttle (quotaRunsOut never true) makes it
// 300ms with no Throttle event; not pushing the work in progress back
// (throttle's actResume clause) makes it finish early.
func TestQuotaThrottles(t *testing.T) {
	const ms = 1000 * 1000
	end, throttles := burners(t, Config{Procs: 4, CPUQuota: 2}, 4, 300*ms)
	if end != 550*ms {
		t.Errorf("done at %s, want 550ms", FormatDuration(end))
	}
	want := "50ms+50ms 150ms+50ms 250ms+50ms 350ms+50ms 450ms+50ms"
	if got := strings.Join(throttles, " "); got != want {
		t.Errorf("throttled at %s, want %s", got, want)
	}
}

// Within the quota nothing is throttled: two Ps under two CPUs run as
// with no quota at all; and a period of 10ms cuts the same burn into 59
// shorter pauses and 5ms.
func TestQuotaWithinAndPeriod(t *testing.T) {
	const ms = 1000 * 1000
	free, _ := burners(t, Config{Procs: 2}, 4, 300*ms)
	if end, throttles := burners(t, Config{Procs: 2, CPUQuota: 2}, 4, 300*ms); end != free || len(throttles) != 0 {
		t.Errorf("2 Ps, quota 2: done at %s with %d throttles, want %s as without a quota, and none", FormatDuration(end), len(throttles), FormatDuration(free))
	}
	end, throttles := burners(t, Config{Procs: 4, CPUQuota: 2, CPUPeriod: 10 * ms}, 4, 300*ms)
	if end != 595*ms || len(throttles) != 59 || throttles[0] != "5ms+5ms" {
		t.Errorf("period 10ms: done at %s with %d throttles (first %v), want 595ms, 59, 5ms+5ms", FormatDuration(end), len(throttles), throttles[:1])
	}
	// Half a CPU: one burner runs 50ms of every 100.
	if end, _ := burners(t, Config{Procs: 1, CPUQuota: 0.5}, 1, 100*ms); end != 150*ms {
		t.Errorf("quota 0.5: done at %s, want 150ms", FormatDuration(end))
	}
}

// What the process would do while throttled waits for the period's end:
// a sleeper due at 70ms, in the middle of the pause, runs at 100ms.
func TestQuotaDelaysTimers(t *testing.T) {
	const ms = 1000 * 1000
	out, res := run(t, Config{Procs: 2, CPUQuota: 1}, func(g *G, log func(string, ...any)) error {
		g.Go(func(g *G) error { g.Work(200 * ms); return nil }, "burn")
		g.Go(func(g *G) error { g.Work(200 * ms); return nil }, "burn")
		g.Sleep(70 * ms)
		log("woke at %s", FormatDuration(g.Now()))
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if out != "woke at 100ms\n" {
		t.Errorf("got %q, want the period's end", out)
	}
}

// Go 1.26's default GOMAXPROCS under a container's limit: the CPUs, or
// the quota rounded up and at least 2, whichever is less. Mirrors
// defaultGOMAXPROCS and adjustCgroupGOMAXPROCS.
func TestDefaultGOMAXPROCS(t *testing.T) {
	for _, tc := range []struct {
		cpus  int
		quota float64
		want  int
	}{
		{8, 0, 8}, {8, 2, 2}, {8, 0.5, 2}, {8, 2.5, 3}, {2, 4, 2}, {1, 0.5, 1}, {24, 2, 2},
	} {
		if got := DefaultGOMAXPROCS(tc.cpus, tc.quota); got != tc.want {
			t.Errorf("DefaultGOMAXPROCS(%d, %v) = %d, want %d", tc.cpus, tc.quota, got, tc.want)
		}
	}
}
