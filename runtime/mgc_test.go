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
