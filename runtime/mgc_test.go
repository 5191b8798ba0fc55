package runtime

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// gcRun runs main on a Machine of cfg and fails the test unless it exits.
func gcRun(t *testing.T, cfg Config, main func(g *G) error) *Machine {
	t.Helper()
	m := NewMachine(cfg)
	m.Start(main)
	res := *m.Run()
	if res.Outcome != Exited {
		t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
	}
	return m
}

// A heap that grows to the trigger starts a cycle, which marks the
// retained heap and sets the next goal and trigger from it: the numbers
// are Go's arithmetic on 10 MiB retained by main alone (2 KiB of stack,
// 154,570 bytes of globals). The first cycle comes when the 10 MiB cross
// 61/64 of the initial 4 MiB goal; the goal is then 21,128,138 and the
// trigger 61/64 of the way from 10 MiB, 20,629,267: 155 allocations of
// 64 KiB later, not 154.
func TestGCTriggerStartsCycle(t *testing.T) {
	var got []string
	gcRun(t, Config{}, func(g *G) error {
		note := func(what string) {
			s := g.Machine().GCStats()
			got = append(got, fmt.Sprintf("%s: cycles=%d marked=%d live=%d goal=%d trigger=%d", what, s.Cycles, s.HeapMarked, s.HeapLive, s.HeapGoal, s.Trigger))
		}
		note("start")
		if err := g.Retain(10 * mib); err != nil {
			return err
		}
		note("retain")
		for range 154 {
			if err := g.Alloc(64 * kib); err != nil {
				return err
			}
		}
		note("154 allocs")
		if err := g.Alloc(64 * kib); err != nil {
			return err
		}
		note("155 allocs")
		return nil
	})
	want := []string{
		"start: cycles=0 marked=0 live=0 goal=4194304 trigger=3997696",
		"retain: cycles=1 marked=10485760 live=10485760 goal=21128138 trigger=20629267",
		"154 allocs: cycles=1 marked=10485760 live=20578304 goal=21128138 trigger=20629267",
		"155 allocs: cycles=2 marked=10485760 live=10485760 goal=21128138 trigger=20629267",
	}
	if g := strings.Join(got, "\n"); g != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", g, strings.Join(want, "\n"))
	}
}

// Released bytes stay in the heap until a cycle leaves them unmarked;
// runtime.GC forces a cycle whatever the heap, and GOGC=off (set by the
// configuration) stops the heap's cycles but not the forced ones.
func TestGCReleaseAndForced(t *testing.T) {
	off := int32(-1)
	gcRun(t, Config{GOGC: &off}, func(g *G) error {
		m := g.Machine()
		if err := g.Retain(64 * mib); err != nil {
			return err
		}
		if err := g.ReleaseHeap(48 * mib); err != nil {
			return err
		}
		if s := m.GCStats(); s.Cycles != 0 || s.HeapLive != 64*mib || s.Retained != 16*mib || s.GOGC != -1 {
			t.Errorf("before GC: %+v", s)
		}
		g.GC()
		if s := m.GCStats(); s.Cycles != 1 || s.Forced != 1 || s.HeapMarked != 16*mib || s.HeapLive != 16*mib {
			t.Errorf("after GC: %+v", s)
		}
		if old := g.SetGCPercent(100); old != -1 {
			t.Errorf("SetGCPercent(100) returned %d, want -1", old)
		}
		return nil
	})
}

// A memory limit below the live heap makes every allocation start a
// cycle, as Go collects continuously then (the CPU limiter, not modelled
// yet, is what keeps that in check).
func TestGCMemoryLimitBelowLiveHeap(t *testing.T) {
	limit := int64(8 * mib)
	gcRun(t, Config{MemoryLimit: &limit}, func(g *G) error {
		if err := g.Retain(16 * mib); err != nil {
			return err
		}
		before := g.Machine().GCStats().Cycles
		for range 10 {
			if err := g.Alloc(kib); err != nil {
				return err
			}
		}
		if n := g.Machine().GCStats().Cycles - before; n != 10 {
			t.Errorf("%d cycles for 10 allocations over the limit, want 10", n)
		}
		if old := g.SetMemoryLimit(-1); old != 8*mib {
			t.Errorf("SetMemoryLimit(-1) = %d, want %d", old, 8*mib)
		}
		if old := g.SetMemoryLimit(NoMemoryLimit); old != 8*mib {
			t.Errorf("SetMemoryLimit(none) = %d, want %d", old, 8*mib)
		}
		return nil
	})
}

// Bad sizes are errors and change nothing.
func TestGCBadSizes(t *testing.T) {
	gcRun(t, Config{}, func(g *G) error {
		check := func(what string, err error, want string) {
			if err == nil || err.Error() != want {
				t.Errorf("%s: error %v, want %q", what, err, want)
			}
		}
		check("alloc(-1)", g.Alloc(-1), "negative size -1")
		check("retain(-1)", g.Retain(-1), "negative size -1")
		check("release(-1)", g.ReleaseHeap(-1), "negative size -1")
		check("release(1)", g.ReleaseHeap(1), "1 bytes released, but only 0 retained")
		if err := g.Retain(1 << 62); err != nil {
			return err
		}
		check("retain(2^62)", g.Retain(1<<62), fmt.Sprintf("the heap would overflow: %d bytes on a heap of %d", int64(1<<62), int64(1<<62)))
		check("alloc(MaxInt64)", g.Alloc(math.MaxInt64), fmt.Sprintf("the heap would overflow: %d bytes on a heap of %d", int64(math.MaxInt64), int64(1<<62)))
		if s := g.Machine().GCStats(); s.Retained != 1<<62 {
			t.Errorf("retained %d after the errors, want %d", s.Retained, int64(1<<62))
		}
		return nil
	})
}

// Until the cycle's phases are modelled, allocating changes no schedule:
// the same program on two Ps, with the default costs, gives the same
// events with and without its allocations, cycles and all.
func TestGCAllocationSchedulesAsBefore(t *testing.T) {
	events := func(alloc bool) (string, int64) {
		var b strings.Builder
		cfg := Config{Procs: 2, Costs: DefaultCosts(), Seed: 3}
		cfg.Tracer = TracerFunc(func(ev *Event) { fmt.Fprintf(&b, "%+v\n", *ev) })
		m := gcRun(t, cfg, func(g *G) error {
			wg := g.Machine().NewWaitGroup()
			g.Add(wg, 4)
			for i := range 4 {
				g.Go(func(g *G) error {
					for range 50 {
						if alloc {
							if err := g.Alloc(256 * kib); err != nil {
								return err
							}
							if err := g.Retain(int64(i) * kib); err != nil {
								return err
							}
						}
						g.Work(20 * 1000)
					}
					return g.Add(wg, -1)
				}, "worker")
			}
			if alloc {
				g.GC()
			}
			g.Wait(wg)
			return nil
		})
		return b.String(), m.GCStats().Cycles
	}
	with, cycles := events(true)
	without, none := events(false)
	if cycles < 5 || none != 0 {
		t.Fatalf("%d cycles with allocation, %d without; want some and none", cycles, none)
	}
	if with != without {
		t.Errorf("allocation changed the schedule:\nwith:\n%s\nwithout:\n%s", with, without)
	}
}

// stwTrace runs main under GCStopTheWorld on two Ps with pauses of 50µs
// (sweep termination) and 20µs (mark termination) and nothing else
// costing time, and returns the events as text lines.
func stwTrace(t *testing.T, main func(g *G, log func(string, ...any)) error) (string, *Machine) {
	t.Helper()
	var b strings.Builder
	cfg := Config{Procs: 2, GCCycle: GCStopTheWorld, Costs: costsOf(CostGCSweepTerm, 50_000, CostGCMarkTerm, 20_000)}
	cfg.Tracer = TracerFunc(func(ev *Event) {
		switch ev.Kind {
		case EvGoPreempt, EvGoSyscallEnd, EvProcSteal, EvTimerFire, EvGCBegin, EvGCEnd, EvSTWBegin, EvSTWEnd:
			fmt.Fprintf(&b, "%s %v G%d P%d %d %s\n", FormatDuration(ev.Time), ev.Kind, ev.G, ev.P, ev.Arg, ev.Reason)
		}
	})
	m := NewMachine(cfg)
	m.Start(func(g *G) error { return main(g, func(f string, a ...any) { fmt.Fprintf(&b, f+"\n", a...) }) })
	res := *m.Run()
	if res.Outcome != Exited {
		t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
	}
	return b.String(), m
}

// A cycle under GCStopTheWorld stops the world twice: a goroutine working
// on the other P is preempted into its P's runnext (stopTheWorldWithSema)
// and goes on once the world starts, 70µs later (50µs of sweep
// termination, 20µs of mark termination), its work pushed back by as
// much; the goroutine that started the cycle holds its P meanwhile.
// Without the pause (gcPause charging nothing) the worker would end at
// 1.1ms; without the stop (no stopTheWorldGC) it would not be preempted.
func TestGCStopTheWorldPreemptsAndPauses(t *testing.T) {
	const us = 1000
	out, m := stwTrace(t, func(g *G, log func(string, ...any)) error {
		mm := g.Machine()
		done, _ := mm.NewChan(1)
		g.Go(func(g *G) error {
			g.Work(1000 * us)
			log("%s worker done", FormatDuration(g.Now()))
			return g.Send(done, 1)
		}, "worker")
		g.Work(100 * us) // the worker is stolen by P1 meanwhile
		g.GC()
		log("%s GC returned", FormatDuration(g.Now()))
		g.Recv(done)
		return nil
	})
	want := `100µs GCBegin G1 P0 1 forced
100µs STWBegin G1 P0 0 GC sweep termination
100µs GoPreempt G2 P1 1 
150µs STWEnd G1 P0 50000 GC sweep termination
150µs STWBegin G1 P0 0 GC mark termination
170µs STWEnd G1 P0 20000 GC mark termination
170µs GCEnd G1 P0 1 
170µs GC returned
1.07ms worker done
`
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	if s := m.GCStats(); s.PauseTotal != 70*us || s.PauseMax != 50*us || s.Cycles != 1 {
		t.Errorf("pauses %d total, %d max, %d cycles; want 70µs, 50µs, 1", s.PauseTotal, s.PauseMax, s.Cycles)
	}
}

// During a pause nothing of the process runs. A syscall that returns
// meanwhile finds its P taken (_Pgcstop, a ProcSteal) and no other: its G
// goes to the global queue ("no p", exitsyscallNoP) and runs once the world
// starts. A timer due meanwhile on a stopped P fires when the world
// starts, on that P. Without stwDefer the timer's wake-up finds no P and
// is lost: the sleeper is only found later, by a steal.
func TestGCStopTheWorldHoldsSyscallsAndTimers(t *testing.T) {
	const us = 1000
	out, _ := stwTrace(t, func(g *G, log func(string, ...any)) error {
		mm := g.Machine()
		done, _ := mm.NewChan(2)
		g.Go(func(g *G) error {
			g.Syscall(40 * us)
			log("%s syscall over", FormatDuration(g.Now()))
			return g.Send(done, 1)
		}, "syscaller")
		g.Go(func(g *G) error {
			g.Work(5 * us)
			g.Sleep(30 * us)
			log("%s slept", FormatDuration(g.Now()))
			return g.Send(done, 1)
		}, "sleeper")
		g.Work(10 * us) // P1 runs the syscaller, then the sleeper
		g.Sleep(5 * us)
		g.GC()
		log("%s GC returned", FormatDuration(g.Now()))
		g.Work(100 * us) // P0 stays busy: the others run on P1
		g.Recv(done)
		g.Recv(done)
		return nil
	})
	want := `15µs TimerFire G0 P0 15000 sleep
15µs GCBegin G1 P0 1 forced
15µs STWBegin G1 P0 0 GC sweep termination
15µs ProcSteal G0 P1 0 
40µs GoSyscallEnd G2 P-1 0 no p
65µs STWEnd G1 P0 50000 GC sweep termination
65µs STWBegin G1 P0 0 GC mark termination
85µs STWEnd G1 P0 20000 GC mark termination
85µs GCEnd G1 P0 1 
85µs GC returned
85µs syscall over
85µs TimerFire G0 P1 45000 sleep
85µs slept
`
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// A timer due during a pause on a stopped P fires when the world starts,
// though nothing else wakes that P: stwDefer holds its wake-up until
// then. Without it the wake-up finds no P during the pause and is lost,
// and the sleeper waits until the other P is free to steal it, 1ms on.
func TestGCStopTheWorldKeepsTimers(t *testing.T) {
	const us = 1000
	out, _ := stwTrace(t, func(g *G, log func(string, ...any)) error {
		done, _ := g.Machine().NewChan(1)
		g.Go(func(g *G) error {
			g.Sleep(30 * us)
			log("%s slept", FormatDuration(g.Now()))
			return g.Send(done, 1)
		}, "sleeper")
		g.Work(10 * us) // P1 runs the sleeper
		g.GC()
		g.Work(1000 * us)
		g.Recv(done)
		return nil
	})
	if !strings.Contains(out, "80µs slept") {
		t.Errorf("the sleeper did not wake when the world started at 80µs:\n%s", out)
	}
}

// Pointer-free memory is marked and counted in the heap goal, but not
// scanned: a cycle over 3 MiB retained without pointers does only the
// stacks' and globals' scan work, and the pacer's scannable heap
// (heapScan, lastHeapScan) leaves it out; over 3 MiB with pointers it
// does 3 MiB more. The marked heap and the next goal are the same.
func TestGCNoscan(t *testing.T) {
	type result struct {
		scanWork, lastHeapScan, heapScan, marked, goal uint64
		retained, noscan                               int64
	}
	cycle := func(retain func(g *G, n int64) error) result {
		m, _ := markRun(t, 1, false, func(g *G) error {
			if err := retain(g, 3<<20); err != nil {
				return err
			}
			if err := g.AllocNoscan(64 << 10); err != nil {
				return err
			}
			g.GC()
			return nil
		})
		c := &m.gc.ctl
		s := m.GCStats()
		return result{uint64(c.heapScanWork), c.lastHeapScan, c.heapScan, s.HeapMarked, s.HeapGoal, s.Retained, s.Noscan}
	}
	scan := cycle((*G).Retain)
	noscan := cycle((*G).RetainNoscan)
	if scan.scanWork != 3<<20 || scan.lastHeapScan != 3<<20 || scan.heapScan != 3<<20 || scan.noscan != 0 {
		t.Errorf("with pointers: %+v; want 3 MiB of heap scan work, lastHeapScan and heapScan, nothing pointer-free", scan)
	}
	if noscan.scanWork != 0 || noscan.lastHeapScan != 0 || noscan.heapScan != 0 || noscan.noscan != 3<<20 {
		t.Errorf("pointer-free: %+v; want no heap scan work, lastHeapScan and heapScan 0, 3 MiB pointer-free", noscan)
	}
	if noscan.marked != scan.marked || noscan.goal != scan.goal || noscan.retained != scan.retained || scan.marked != 3<<20 {
		t.Errorf("marked %d and goal %d pointer-free, %d and %d with pointers: want the same, 3 MiB marked", noscan.marked, noscan.goal, scan.marked, scan.goal)
	}
}

// Each kind of retained memory is released by its own call, and a
// release of more than is retained of that kind says what there is.
func TestGCReleaseNoscan(t *testing.T) {
	gcRun(t, Config{}, func(g *G) error {
		if err := g.Retain(mib); err != nil {
			return err
		}
		if err := g.RetainNoscan(2 * mib); err != nil {
			return err
		}
		check := func(what string, err error, want string) {
			t.Helper()
			if err == nil || err.Error() != want {
				t.Errorf("%s: error %v, want %q", what, err, want)
			}
		}
		check("ReleaseHeap(2 MiB)", g.ReleaseHeap(2*mib), "2097152 bytes released, but only 1048576 retained with pointers (2097152 more are pointer-free)")
		check("ReleaseNoscan(3 MiB)", g.ReleaseNoscan(3*mib), "3145728 pointer-free bytes released, but only 2097152 retained pointer-free")
		check("ReleaseNoscan(-1)", g.ReleaseNoscan(-1), "negative size -1")
		if err := g.ReleaseNoscan(2 * mib); err != nil {
			return err
		}
		if s := g.Machine().GCStats(); s.Retained != mib || s.Noscan != 0 {
			t.Errorf("after releasing the pointer-free 2 MiB: retained %d, pointer-free %d; want 1 MiB and 0", s.Retained, s.Noscan)
		}
		return nil
	})
}
