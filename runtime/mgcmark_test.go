package runtime

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// markRun runs main under GCMark on procs Ps, with pauses of 10µs and a
// mark that scans 1 byte a ns (gc_mark_mib = 1<<20), nothing else costing
// time, and returns the machine and its events.
func markRun(t *testing.T, procs int, noDedicated bool, main Func) (*Machine, []Event) {
	t.Helper()
	var evs []Event
	cfg := Config{Procs: procs, GCCycle: GCMark, Costs: costsOf(CostGCSweepTerm, 10_000, CostGCMarkTerm, 10_000, CostGCMarkMiB, 1<<20)}
	cfg.Tracer = TracerFunc(func(ev *Event) { evs = append(evs, *ev) })
	m := NewMachine(cfg)
	m.gc.noDedicated = noDedicated
	m.Start(main)
	if res := *m.Run(); res.Outcome != Exited {
		t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
	}
	return m, evs
}

// fourPsGC is main for the four-P tests: three goroutines work 20ms, each
// stolen by a P of its own; main retains 3 MiB (below the first trigger) and calls gc(), which
// waits for the cycle.
func fourPsGC(g *G) error {
	const ms = 1_000_000
	for i := range 3 {
		if _, err := g.Go(func(g *G) error { g.Work(20 * ms); return nil }, fmt.Sprintf("user%d", i+1)); err != nil {
			return err
		}
	}
	g.Work(1000) // the three are stolen meanwhile
	if err := g.Retain(3 << 20); err != nil {
		return err
	}
	g.GC()
	return nil
}

// markWorkers checks the mark phase of the first cycle in evs: exactly
// one worker marked, dedicated, for all of the mark work (mark ns), and
// while it marked every other P ran a user goroutine.
func markWorkers(evs []Event, procs int, mark int64) error {
	running := map[int32]int64{} // P → the G running there
	names := map[int64]string{}
	var starts, stops []Event
	var others string
	for _, ev := range evs {
		switch ev.Kind {
		case EvGoCreate:
			names[ev.G2] = ev.Reason
		case EvGoStart:
			running[ev.P] = ev.G
		case EvGoBlock, EvGoDestroy, EvGoPreempt, EvGoSched:
			delete(running, ev.P)
		case EvGCWorkerStart:
			starts = append(starts, ev)
		case EvGCWorkerStop:
			stops = append(stops, ev)
			if len(stops) == 1 {
				var b strings.Builder
				for p := range int32(procs) {
					if p != ev.P {
						fmt.Fprintf(&b, "P%d:%s ", p, names[running[p]])
					}
				}
				others = b.String()
			}
		}
	}
	if len(starts) != 1 || len(stops) != 1 {
		return fmt.Errorf("%d worker starts, %d stops; want 1 and 1", len(starts), len(stops))
	}
	if starts[0].Reason != "dedicated" {
		return fmt.Errorf("the worker is %s, want dedicated", starts[0].Reason)
	}
	if stops[0].Arg != mark {
		return fmt.Errorf("the worker marked %dns, want %dns", stops[0].Arg, mark)
	}
	if strings.Count(others, ":user") != procs-1 {
		return fmt.Errorf("while the worker marked on P%d, the other Ps ran %s; want a user goroutine each", stops[0].P, others)
	}
	return nil
}

// At 4 Ps a cycle has one dedicated mark worker (startCycle: 4 × 0.25):
// it takes a P for the whole mark, 3 MiB retained plus the globals plus
// four 2 KiB stacks at 1 byte a ns, while the three other Ps run the
// three user goroutines; gc() returns after mark termination.
func TestGCMarkDedicatedWorkerTakesAP(t *testing.T) {
	m, evs := markRun(t, 4, false, fourPsGC)
	mark := int64(3<<20 + globalsScanBytes + 4*fixedStack)
	if err := markWorkers(evs, 4, mark); err != nil {
		t.Error(err)
	}
	if s := m.GCStats(); s.Cycles != 1 || s.Dedicated != 1 || s.PauseTotal != 20_000 {
		t.Errorf("cycles %d, dedicated %d, pauses %dns; want 1, 1, 20000", s.Cycles, s.Dedicated, s.PauseTotal)
	}
}

// The same run with the dedicated worker dropped (a broken startCycle)
// fails the check: the mark is done by idle workers or not at once.
func TestGCMarkNoDedicatedWorkerIsSeen(t *testing.T) {
	_, evs := markRun(t, 4, true, fourPsGC)
	mark := int64(3<<20 + globalsScanBytes + 4*fixedStack)
	if err := markWorkers(evs, 4, mark); err == nil {
		t.Error("markWorkers passed a run without a dedicated worker")
	} else {
		t.Log(err)
	}
}

// workerSpans returns the GCWorkerStop events of evs as "P<p> <mode>
// <ns>", in order, and the ns they marked in all.
func workerSpans(evs []Event) (spans []string, total int64) {
	for _, ev := range evs {
		if ev.Kind == EvGCWorkerStop {
			spans = append(spans, fmt.Sprintf("P%d %s %d", ev.P, ev.Reason, ev.Arg))
			total += ev.Arg
		}
	}
	return spans, total
}

// At 2 Ps startCycle wants no dedicated worker and a fractional goal of
// 0.25 a P. When the world starts again, both Ps take the fractional
// worker (no P has marked yet), each for one chunk of 100 KB, after which
// each is over 1.2 × 0.25 of the time (pollFractionalWorkerExit). P1 then
// runs its user goroutine again; P0, whose G waits in gc(), has nothing
// else to do and runs an idle worker for the rest of the mark.
func TestGCMarkFractionalThenIdle(t *testing.T) {
	m, evs := markRun(t, 2, false, func(g *G) error {
		if _, err := g.Go(func(g *G) error { g.Work(20_000_000); return nil }, "user"); err != nil {
			return err
		}
		g.Work(1000) // the user goroutine is stolen by P1
		if err := g.Retain(1 << 20); err != nil {
			return err
		}
		g.GC()
		return nil
	})
	mark := int64(1<<20 + globalsScanBytes + 2*fixedStack)
	spans, total := workerSpans(evs)
	want := []string{"P1 fractional 100000", "P0 fractional 100000", fmt.Sprintf("P0 idle %d", mark-200000)}
	if strings.Join(spans, ", ") != strings.Join(want, ", ") || total != mark {
		t.Errorf("workers %v (%dns in all); want %v (%dns)", spans, total, want, mark)
	}
	if s := m.GCStats(); s.Dedicated != 0 || s.Fractional != 0.25 {
		t.Errorf("split %d dedicated, %v fractional; want 0, 0.25", s.Dedicated, s.Fractional)
	}
}

// At 4 Ps with nothing else to run, the dedicated worker and three idle
// ones share the mark: enlistWorker wakes an idle P, and each worker
// found wakes another (findRunnable's tryWakeP). The mark takes a
// quarter of the time one worker would.
func TestGCMarkIdlePsHelp(t *testing.T) {
	_, evs := markRun(t, 4, false, func(g *G) error {
		if err := g.Retain(1 << 20); err != nil {
			return err
		}
		g.GC()
		return nil
	})
	mark := int64(1<<20 + globalsScanBytes + fixedStack)
	spans, total := workerSpans(evs)
	var dedicated, idle int
	for _, s := range spans {
		dedicated += strings.Count(s, " dedicated ")
		idle += strings.Count(s, " idle ")
	}
	if dedicated != 1 || idle != 3 || total != mark {
		t.Errorf("workers %v (%dns in all); want 1 dedicated and 3 idle marking %dns", spans, total, mark)
	}
	end := firstEvent(t, evs, EvGCEnd, 0).Time
	if want := int64(10_000 + 10_000 + 305_194); end != want {
		t.Errorf("the cycle ended at %dns, want %dns (the pauses and a quarter of the mark, in 100 KB chunks)", end, want)
	}
}

// assistRun runs main under GCMark on procs Ps, as markRun does, with
// assists on or off, and returns the machine and its events.
func assistRun(t *testing.T, procs int, noAssist bool, main Func) (*Machine, []Event) {
	t.Helper()
	var evs []Event
	cfg := Config{Procs: procs, GCCycle: GCMark, GCNoAssist: noAssist, Costs: costsOf(CostGCSweepTerm, 10_000, CostGCMarkTerm, 10_000, CostGCMarkMiB, 1<<20)}
	cfg.Tracer = TracerFunc(func(ev *Event) { evs = append(evs, *ev) })
	m := NewMachine(cfg)
	m.Start(main)
	if res := *m.Run(); res.Outcome != Exited {
		t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
	}
	return m, evs
}

// allocLoop is main for the one-P tests: it retains 2 MiB and allocates
// 64 KiB 80 times without blocking, which starts a cycle (the first
// trigger is 61/64 of 4 MiB) and goes on during its mark; then it waits
// in gc() for the cycle on, if any, and one more.
func allocLoop(g *G) error {
	if err := g.Retain(2 * mib); err != nil {
		return err
	}
	for range 80 {
		if err := g.Alloc(64 * kib); err != nil {
			return err
		}
	}
	g.GC()
	return nil
}

// At one P a G that allocates without blocking leaves no room for the
// fractional worker: it pays for its allocations with mark assists, each
// owing at least gcOverAssistWork (no worker has made credit to steal),
// marks the whole of the first cycle's work itself and ends the cycle
// (the assist that marks the last chunk runs gcMarkDone), all before it
// blocks in gc().
func TestGCAssistOneP(t *testing.T) {
	m, evs := assistRun(t, 1, false, allocLoop)
	mark := int64(2*mib + globalsScanBytes + fixedStack)
	var assisted, owedMin int64
	owedMin = math.MaxInt64
	endBy := int64(-1)
	open := false // an assist begun in the first cycle (the last ends after GCEnd)
	for _, ev := range evs {
		switch ev.Kind {
		case EvGCAssistBegin:
			owedMin = min(owedMin, ev.Arg)
			open = endBy < 0
		case EvGCAssistEnd:
			if open {
				assisted += ev.Arg
				open = false
			}
		case EvGCWorkerStart:
			if endBy < 0 {
				t.Errorf("a %s worker marked in the first cycle", ev.Reason)
			}
		case EvGoBlock:
			if endBy < 0 {
				t.Errorf("G%d blocked (%s) before the first cycle ended", ev.G, ev.Reason)
			}
		case EvGCEnd:
			if endBy < 0 {
				endBy = ev.G
			}
		}
	}
	if assisted != mark || endBy != 1 {
		t.Errorf("G1 assisted %dns and G%d ended the first cycle; want %dns (the whole mark) and G1", assisted, endBy, mark)
	}
	if owedMin < gcOverAssistWork {
		t.Errorf("an assist owed %d units, less than gcOverAssistWork (%d)", owedMin, gcOverAssistWork)
	}
	if s := m.GCStats(); s.AssistTime < mark {
		t.Errorf("assist time %dns, want at least the first mark, %dns", s.AssistTime, mark)
	}
}

// With assists off the same G never assists: the first cycle's mark
// waits for a worker, which runs only when G1 blocks in gc(), and the
// heap meanwhile overshoots the goal by every allocation of the loop.
func TestGCNoAssistOneP(t *testing.T) {
	m, evs := assistRun(t, 1, true, allocLoop)
	var block, end int64 = -1, -1
	for i, ev := range evs {
		switch ev.Kind {
		case EvGCAssistBegin:
			t.Fatalf("an assist with assists off: %v", ev)
		case EvGoBlock:
			if block < 0 {
				block = int64(i)
			}
		case EvGCEnd:
			if end < 0 {
				end = int64(i)
			}
		}
	}
	if block < 0 || end < block {
		t.Errorf("the first cycle ended at event %d, G1 first blocked at %d; want the end after the block", end, block)
	}
	if s := m.GCStats(); s.AssistTime != 0 || s.Cycles != 2 {
		t.Errorf("assist time %dns, %d cycles; want 0 and 2", s.AssistTime, s.Cycles)
	}
}

// At 4 Ps three goroutines allocate 32 KiB every 20µs of work while the
// dedicated worker marks 8 MiB. Assists outrun the worker: a G in debt
// that finds no mark work left to take and no credit parks on the assist
// queue ("GC assist wait"), and is readied by a worker whose flushed
// credit pays its debt, or by mark termination; never into runnext, so
// that it does not jump ahead by the worker's priority.
func TestGCAssistParksUntilCredit(t *testing.T) {
	_, evs := assistRun(t, 4, false, func(g *G) error {
		if err := g.Retain(8 * mib); err != nil {
			return err
		}
		for i := range 3 {
			if _, err := g.Go(func(g *G) error {
				for range 400 {
					if err := g.Alloc(32 * kib); err != nil {
						return err
					}
					g.Work(20_000)
				}
				return nil
			}, fmt.Sprintf("user%d", i+1)); err != nil {
				return err
			}
		}
		g.Work(30_000_000)
		return nil
	})
	workers := map[int64]bool{}
	parked := map[int64]bool{} // Gs parked in an assist now
	var parks, byWorker, byEnd int
	for _, ev := range evs {
		switch ev.Kind {
		case EvGCWorkerStart:
			workers[ev.G] = true
		case EvGoBlock:
			if ev.Reason == "GC assist wait" {
				parked[ev.G] = true
				parks++
			}
		case EvGoUnblock:
			if !parked[ev.G2] {
				continue
			}
			delete(parked, ev.G2)
			if ev.Arg == 1 {
				t.Errorf("G%d, parked in an assist, readied into runnext by G%d", ev.G2, ev.G)
			}
			if workers[ev.G] {
				byWorker++
			} else {
				byEnd++
			}
		case EvGCEnd:
			// The wake-ups of mark termination come before GCEnd.
			if len(parked) != 0 {
				t.Errorf("at the end of cycle %d, Gs still parked in an assist: %v", ev.Arg, parked)
			}
		}
	}
	if parks == 0 || byWorker == 0 {
		t.Errorf("%d parks in an assist, %d readied by a worker's credit, %d by mark termination; want some of the first two", parks, byWorker, byEnd)
	}
	t.Logf("%d parks in an assist: %d readied by a worker's credit, %d by mark termination", parks, byWorker, byEnd)
}

// An assist is credited at the assist ratio from before its work, the one
// revise set when the heap last grew: Go revises the ratio when heapLive
// changes (gcController.update), never when work is done, and
// gcAssistAlloc1 loads it after gcDrainN. Revised after the work, with
// less work left for the same heap, the ratio is higher and the credit
// too large. Here G1's balance after each allocation that assisted
// without ending the cycle must be exactly what the ratio from before the
// allocation gives for the work it did.
func TestGCAssistCreditAtStoredRatio(t *testing.T) {
	const obj = 16 * kib
	var checked int
	assistRun(t, 1, false, func(g *G) error {
		m := g.m
		if err := g.Retain(2 * mib); err != nil {
			return err
		}
		for range 400 {
			marking, cycle := m.gc.marking, m.gc.cycles
			bpw, before, done := m.gc.ctl.assistBytesPerWork, g.gcAssistBytes, m.gc.markDone
			if g.gcAssistCycle != cycle {
				before = 0
			}
			if err := g.AllocNoscan(obj); err != nil {
				return err
			}
			g.Work(20_000)
			if !marking || !m.gc.marking || m.gc.cycles != cycle || m.gc.markDone == done {
				continue // no assist, or one that ended the cycle
			}
			want := before - obj + 1 + int64(bpw*float64(m.gc.markDone-done))
			if g.gcAssistBytes != want {
				t.Errorf("cycle %d: after an assist of %d units G1's balance is %d, want %d (%.4f bytes a unit, from before the work)",
					cycle, m.gc.markDone-done, g.gcAssistBytes, want, bpw)
			}
			checked++
		}
		return nil
	})
	if checked == 0 {
		t.Fatal("no assist checked")
	}
}

// The assist ratio paces the mark to end by the heap goal: with every
// byte allocated paying its share at the ratio revise set, the work runs
// out before the heap passes the goal. At one P a G that allocates
// without blocking does all the mark work in assists, and each cycle's
// mark termination finds the heap at most one allocation past its goal.
func TestGCAssistMarkEndsByGoal(t *testing.T) {
	const obj = 16 * kib
	var cycles []GCCycleStats
	cfg := Config{Procs: 1, GCCycle: GCMark, Costs: costsOf(CostGCSweepTerm, 10_000, CostGCMarkTerm, 10_000, CostGCMarkMiB, 1<<20)}
	m := NewMachine(cfg)
	m.OnGCCycle(func(c *GCCycleStats) { cycles = append(cycles, *c) })
	m.Start(func(g *G) error {
		if err := g.RetainNoscan(8 * mib); err != nil {
			return err
		}
		for range 8000 {
			if err := g.AllocNoscan(obj); err != nil {
				return err
			}
			g.Work(21_500)
		}
		return nil
	})
	if res := *m.Run(); res.Outcome != Exited {
		t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
	}
	if len(cycles) < 10 {
		t.Fatalf("%d cycles, want at least 10", len(cycles))
	}
	for _, c := range cycles[2:] { // past the live heap's build-up
		if c.HeapMarkTerm > c.HeapGoal+obj {
			t.Errorf("cycle %d: mark termination at a heap of %d bytes, goal %d: past it by %d, more than one allocation (%d)",
				c.N, c.HeapMarkTerm, c.HeapGoal, c.HeapMarkTerm-c.HeapGoal, obj)
		}
	}
}

// GCs called together during a cycle wait for it, and then share one
// more cycle rather than start one each: with n the cycles started when
// it was called, runtime.GC starts cycle n+1 only if no one has started
// it since (gcTriggerCycle), then waits for it (gcWaitOnMark). Main
// forces cycle 1; three goroutines call GC during it, and each must
// return after cycle 2, the one the first of them starts.
func TestGCForcedCyclesCoalesce(t *testing.T) {
	var after []int64
	m, _ := markRun(t, 2, false, func(g *G) error {
		if err := g.Retain(3 << 20); err != nil {
			return err
		}
		for i := range 3 {
			if _, err := g.Go(func(g *G) error {
				g.Work(1000) // main's GC has started cycle 1 meanwhile
				g.GC()
				after = append(after, g.Machine().GCStats().Ended)
				return nil
			}, fmt.Sprintf("gc%d", i+1)); err != nil {
				return err
			}
		}
		g.GC()
		after = append(after, g.Machine().GCStats().Ended)
		g.Sleep(100_000_000)
		return nil
	})
	if s := m.GCStats(); s.Cycles != 2 || s.Forced != 2 || fmt.Sprint(after) != "[1 2 2 2]" {
		t.Errorf("cycles %d, forced %d, cycles ended when each GC returned %v; want 2, 2, [1 2 2 2]", s.Cycles, s.Forced, after)
	}
}

// With gc_mark_roots_mib in the profile, the root jobs (globals and
// stacks) are marked first and at their own rate: the dedicated worker's
// mark of fourPsGC takes the heap at 1 ns a byte and the roots at a
// quarter of that, and allocLoop's first assist, 64 KiB of work taken
// from the roots, takes a quarter of 64 KiB ns.
func TestGCMarkRootsFirstAtTheirRate(t *testing.T) {
	costs := costsOf(CostGCSweepTerm, 10_000, CostGCMarkTerm, 10_000, CostGCMarkMiB, 1<<20, CostGCMarkRootsMiB, 1<<18)
	run := func(procs int, main Func) []Event {
		var evs []Event
		cfg := Config{Procs: procs, GCCycle: GCMark, Costs: costs}
		cfg.Tracer = TracerFunc(func(ev *Event) { evs = append(evs, *ev) })
		m := NewMachine(cfg)
		m.Start(main)
		if res := *m.Run(); res.Outcome != Exited {
			t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
		}
		return evs
	}
	mark := int64(3<<20) + int64(globalsScanBytes+4*fixedStack)/4
	if err := markWorkers(run(4, fourPsGC), 4, mark); err != nil {
		t.Error(err)
	}
	first := firstEvent(t, run(1, allocLoop), EvGCAssistEnd, 1)
	if want := int64(gcOverAssistWork / 4); first.Arg != want {
		t.Errorf("the first assist marked for %dns, want %dns (64 KiB of roots at 4 bytes a ns)", first.Arg, want)
	}
}
