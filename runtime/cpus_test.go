package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// workers runs k goroutines that each work d ns, on a Machine of cfg, and
// returns when each finished, in ms, in the order they finished, and the
// Machine's CPU counters.
func workers(t *testing.T, cfg Config, k int, d int64) (string, int64, int64) {
	t.Helper()
	var preempts, waited int64
	out, res := run(t, cfg, func(g *G, log func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, int64(k))
		for i := range k {
			g.Go(func(g *G) error {
				g.Work(d)
				log("w%d %.2fms", i, float64(g.Now())/1e6)
				return g.Add(wg, -1)
			}, fmt.Sprintf("w%d", i))
		}
		g.Wait(wg)
		_, preempts, waited = g.Machine().CPUs()
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	return out, preempts, waited
}

// Four Ps busy on two CPUs take twice as long: the four threads take
// turns, 1.5ms slices each (the base slice on 2 CPUs), so 4 × 30ms of work
// ends at about 60ms instead of 30. Breaking the time slice (no tick)
// leaves two threads waiting until the first two are done (30ms, then
// 60ms, not all near 60ms); breaking cpuGet (a CPU for every thread)
// finishes everything at 30ms.
func TestCPUsThreadsTakeTurns(t *testing.T) {
	out, _, _ := workers(t, Config{Procs: 4}, 4, 30e6)
	if strings.Count(out, " 30.00ms") != 4 {
		t.Fatalf("without --cpus: %q, want all four done at 30ms", out)
	}
	out, preempts, waited := workers(t, Config{Procs: 4, CPUs: 2}, 4, 30e6)
	t.Logf("on 2 CPUs:\n%s%d preemptions, %s waited", out, preempts, FormatDuration(waited))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("got %q", out)
	}
	for _, l := range lines {
		var i int
		var ms float64
		if _, err := fmt.Sscanf(l, "w%d %fms", &i, &ms); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if ms < 57 || ms > 60.01 {
			t.Errorf("on 2 CPUs: %s, want every worker done at 57-60ms (they take turns)\n%s", l, out)
		}
	}
	// Each worker waits half the time: about 4 × 30ms in all.
	if preempts < 70 || waited < 110e6 || waited > 125e6 {
		t.Errorf("%d preemptions, %s waited; want about 80 (120ms of work / 1.5ms) and about 120ms", preempts, FormatDuration(waited))
	}
}

// A thread blocked in a system call leaves its CPU to another: on one CPU,
// a worker runs during a 10ms syscall and is done at 5ms. Breaking the
// drop at entersyscall makes it wait until the syscall returns.
func TestCPUsSyscallFreesTheCPU(t *testing.T) {
	out, res := run(t, Config{Procs: 2, CPUs: 1}, func(g *G, log func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, 2)
		g.Go(func(g *G) error {
			g.Work(5e6)
			log("worker done at %s", FormatDuration(g.Now()))
			return g.Add(wg, -1)
		}, "worker")
		g.Go(func(g *G) error {
			g.Syscall(10e6)
			log("syscall done at %s", FormatDuration(g.Now()))
			return g.Add(wg, -1)
		}, "sys")
		g.Wait(wg)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if !strings.Contains(out, "worker done at 5ms\n") {
		t.Errorf("got\n%s\nwant the worker done at 5ms, while sys is in its syscall", out)
	}
}

// With as many CPUs as threads, nothing waits: the run is the run without
// Config.CPUs, event for event.
func TestCPUsEnoughChangeNothing(t *testing.T) {
	prog := func(g *G, log func(string, ...any)) error {
		done, _ := g.Machine().NewChan(0)
		for i := range 6 {
			g.Go(func(g *G) error {
				g.Work(int64(i+1) * 3e6)
				g.Sleep(1e6)
				return g.Send(done, i)
			}, fmt.Sprintf("g%d", i))
		}
		for range 6 {
			g.Recv(done)
		}
		return nil
	}
	format := func(evs []Event) string {
		var b strings.Builder
		for _, ev := range evs {
			fmt.Fprintf(&b, "%d %v P%d M%d G%d %d %s\n", ev.Time, ev.Kind, ev.P, ev.M, ev.G, ev.Arg, ev.Reason)
		}
		return b.String()
	}
	costs := costsOf(CostWakeup, 20_000, CostSwitch, 100, CostNewproc, 200)
	want := format(events(t, Config{Procs: 4, Costs: costs}, prog))
	got := format(events(t, Config{Procs: 4, CPUs: 64, Costs: costs}, prog))
	if got != want {
		t.Errorf("64 CPUs changed the run:\n%s\nwant\n%s", got, want)
	}
}

// sysmon's preemption of a G whose thread is off its CPU lands when the
// thread runs again: two hogs on one P each and one CPU still take turns
// at the P, and the preempted G goes to the global queue as usual.
func TestCPUsPreemptionWaitsForTheThread(t *testing.T) {
	evs := events(t, Config{Procs: 2, CPUs: 1}, func(g *G, log func(string, ...any)) error {
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, 3)
		for i := range 3 {
			g.Go(func(g *G) error { g.Work(40e6); return g.Add(wg, -1) }, fmt.Sprintf("hog%d", i))
		}
		g.Wait(wg)
		return nil
	})
	var off, on, preempt int
	var end int64
	for _, ev := range evs {
		switch ev.Kind {
		case EvMOffCPU:
			off++
		case EvMOnCPU:
			on++
		case EvGoPreempt:
			preempt++
		}
		end = ev.Time
	}
	if off == 0 || on == 0 || preempt == 0 {
		t.Errorf("%d MOffCPU, %d MOnCPU, %d GoPreempt: want the threads to take turns and sysmon to preempt", off, on, preempt)
	}
	// 120ms of work on one CPU.
	if end < 120e6 || end > 121e6 {
		t.Errorf("the run ended at %s, want 120ms of work on one CPU", FormatDuration(end))
	}
}

// osSlice is EEVDF's base slice scaled by 1 + log2(CPUs), up to 8 CPUs.
func TestOSSlice(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want int64
	}{{1, 750_000}, {2, 1_500_000}, {3, 1_500_000}, {4, 2_250_000}, {8, 3_000_000}, {64, 3_000_000}} {
		if got := osSlice(tc.n); got != tc.want {
			t.Errorf("osSlice(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}
