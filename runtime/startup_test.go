package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// atMain runs a Machine with runtime.main's start-up and returns the
// snapshot taken at main's first statement, with main's P and the names
// of the Gs in that P's runnext and ring.
func atMain(t *testing.T, cfg Config) (snap *Snapshot, mainP int, runnext string, ring []string, m *Machine) {
	t.Helper()
	cfg.RuntimeMain = true
	m = NewMachine(cfg)
	name := func(id int64) string {
		for _, gp := range m.allg {
			if gp.goid == id {
				return gp.name
			}
		}
		return fmt.Sprint("G", id)
	}
	m.Start(func(g *G) error {
		snap = m.Snapshot()
		mainP = g.P()
		ps := snap.Ps[mainP]
		if ps.Runnext != 0 {
			runnext = name(ps.Runnext)
		}
		for _, id := range ps.Runq {
			ring = append(ring, name(id))
		}
		if g.LockedM() != -1 {
			t.Errorf("main is still locked to M%d at main.main", g.LockedM())
		}
		return nil
	})
	if r := m.Run(); r.Outcome != Exited {
		t.Fatalf("outcome %v: %v", r.Outcome, r.Err)
	}
	return snap, mainP, runnext, ring, m
}

// TestStartupOneP: on one P runtime.main's goroutines ran and parked in
// gcenable (forcegchelper, bgsweep, bgscavenge), and the last two it
// started wait on main's P: runFinalizers in runnext, kicked there last,
// updateMaxProcsGoroutine on the ring. They are the runtime's: not counted
// and not listed as the program's goroutines, and G1 ran on M0 again after
// M0 slept in stoplockedm. Mirrors runtime.main, gcenable, stoplockedm and
// startlockedm.
func TestStartupOneP(t *testing.T) {
	snap, mainP, runnext, ring, m := atMain(t, Config{Procs: 1, Costs: DefaultCosts()})
	defer m.Close()
	if mainP != 0 || runnext != sysFinalizers || fmt.Sprint(ring) != "["+sysMaxProcs+"]" {
		t.Errorf("main on P%d, runnext %q, ring %v; want P0, %s, [%s]", mainP, runnext, ring, sysFinalizers, sysMaxProcs)
	}
	if snap.Goroutines != 1 {
		t.Errorf("goroutines alive at main.main: %d, want 1 (the runtime's are not counted)", snap.Goroutines)
	}
	if n := len(m.Goroutines()); n != 0 { // main has exited
		t.Errorf("Goroutines() lists %d after main returned, want 0", n)
	}
	var sys []string
	for _, gp := range m.AllGoroutines() {
		if !gp.System() {
			t.Errorf("G%d %s is listed alive but is not the runtime's", gp.goid, gp.name)
		}
		sys = append(sys, fmt.Sprintf("G%d %s %v %s", gp.goid, gp.name, gp.status, gp.WaitReason()))
	}
	// main returned before the last two ran.
	want := "[G2 runtime.forcegchelper waiting force gc (idle) G3 runtime.bgsweep waiting GC sweep wait G4 runtime.bgscavenge waiting GC scavenge wait " +
		"G5 runtime.updateMaxProcsGoroutine runnable  G6 runtime.runFinalizers runnable ]"
	if fmt.Sprint(sys) != want {
		t.Errorf("the runtime's goroutines after main:\n%v\nwant\n%s", sys, want)
	}
	// gcenable's two receives put M0 to sleep twice (stoplockedm) and
	// another M ran the runtime's goroutines on P0 meanwhile.
	if len(snap.Ms) != 2 || snap.Ms[1].Idle != true {
		t.Errorf("Ms at main.main: %+v; want M0 running main and M1 idle", snap.Ms)
	}
}

// TestStartupTwoP: on two Ps, with the costs profile's timing drawn from
// its distributions, the state at main.main is the one real Go is
// measured in (docs/faithfulness.md, "Start-up": an M spinning in 98% of
// runs, main on P1 in 34-78%, runFinalizers in main's runnext in 99.8%,
// updateMaxProcsGoroutine on its ring in 69%): main moves to P1 in a fair
// share of the runs, because the M that finds runtime.main runnable gives
// its own P to the locked M0 (startlockedm).
func TestStartupTwoP(t *testing.T) {
	const runs = 1000
	var onP1, spinning, inRunnext, onRing int
	for seed := uint64(1); seed <= runs; seed++ {
		snap, mainP, runnext, ring, m := atMain(t, Config{Procs: 2, Seed: seed, Costs: DefaultCosts(),
			Perturb: Perturb{SampleCosts: true, QuantumJitter: true, Stalls: true}})
		m.Close()
		if mainP == 1 {
			onP1++
		}
		if snap.NMSpinning > 0 {
			spinning++
		}
		if runnext == sysFinalizers {
			inRunnext++
		}
		if len(ring) == 1 && ring[0] == sysMaxProcs {
			onRing++
		}
	}
	pct := func(n int) float64 { return 100 * float64(n) / runs }
	t.Logf("main on P1 %.1f%%, an M spinning %.1f%%, runFinalizers in runnext %.1f%%, updateMaxProcsGoroutine on the ring %.1f%%",
		pct(onP1), pct(spinning), pct(inRunnext), pct(onRing))
	if p := pct(onP1); p < 25 || p > 75 {
		t.Errorf("main on P1 in %.1f%% of runs, want 25-75%% (Go: 34-78%%)", p)
	}
	if p := pct(spinning); p < 90 {
		t.Errorf("an M spinning at main.main in %.1f%% of runs, want ≥ 90%% (Go: 98%%)", p)
	}
	if p := pct(inRunnext); p < 95 {
		t.Errorf("runFinalizers in main's runnext in %.1f%% of runs, want ≥ 95%% (Go: 99.8%%)", p)
	}
	if p := pct(onRing); p < 50 || p > 90 {
		t.Errorf("updateMaxProcsGoroutine on main's ring in %.1f%% of runs, want 50-90%% (Go: 69%%)", p)
	}
}

// TestStartupBare: without RuntimeMain, main starts alone and the first
// goroutine it spawns is G2.
func TestStartupBare(t *testing.T) {
	var id int64
	m := NewMachine(Config{Procs: 2, Costs: DefaultCosts()})
	m.Start(func(g *G) error {
		gp, _ := g.Go(func(*G) error { return nil }, "f")
		id = gp.goid
		return nil
	})
	m.Run()
	m.Close()
	if id != 2 || len(m.allm) != 2 {
		t.Errorf("bare start: first goroutine G%d with %d Ms, want G2 with 2 (M0 and the one wakep started)", id, len(m.allm))
	}
}

// TestOnMain: under RuntimeMain the OnMain function is called once, when
// runtime.main calls main.main: after the start-up's last event (the
// spawn of runFinalizers, then the inits after it), before main's first,
// with the time and main's P and M; a bare run never calls it.
func TestOnMain(t *testing.T) {
	for _, runtimeMain := range []bool{true, false} {
		var log []string
		tr := TracerFunc(func(ev *Event) {
			log = append(log, fmt.Sprintf("%d G%d %v %s", ev.Time, ev.G, ev.Kind, ev.Reason))
		})
		m := NewMachine(Config{Procs: 2, Costs: DefaultCosts(), RuntimeMain: runtimeMain, Tracer: tr})
		m.OnMain(func(now int64, p, mid int32) {
			log = append(log, fmt.Sprintf("main.main at %d on P%d M%d", now, p, mid))
		})
		var atMain string
		m.Start(func(g *G) error {
			atMain = fmt.Sprintf("main.main at %d on P%d M%d", m.now, g.P(), g.mp.id)
			g.Go(func(*G) error { return nil }, "f")
			return nil
		})
		if r := m.Run(); r.Outcome != Exited {
			t.Fatalf("outcome %v: %v", r.Outcome, r.Err)
		}
		m.Close()
		calls := 0
		for i, line := range log {
			if !strings.HasPrefix(line, "main.main") {
				continue
			}
			calls++
			if line != atMain {
				t.Errorf("OnMain: %q, want %q", line, atMain)
			}
			if i == 0 || !strings.HasSuffix(log[i-1], "GoCreate "+sysFinalizers) {
				t.Errorf("OnMain came after %q, want after the spawn of %s", log[max(i-1, 0)], sysFinalizers)
			}
			if i+1 >= len(log) || !strings.HasSuffix(log[i+1], "G1 GoCreate f") {
				t.Errorf("OnMain came before %q, want before main's spawn of f", log[min(i+1, len(log)-1)])
			}
		}
		if want := map[bool]int{true: 1, false: 0}[runtimeMain]; calls != want {
			t.Errorf("RuntimeMain=%v: OnMain called %d times, want %d", runtimeMain, calls, want)
		}
	}
}

// TestLockedM: a G locked to its M that blocks hands its P to another M,
// which runs the other goroutines (stoplockedm, handoffp); readied, it
// runs on its own M again, and the M that found it gives that M its P and
// parks (startlockedm). Mirrors stoplockedm and startlockedm.
func TestLockedM(t *testing.T) {
	for _, costs := range []*Costs{nil, DefaultCosts()} {
		var log []string
		m := NewMachine(Config{Procs: 1, Costs: costs})
		m.Start(func(g *G) error {
			g.lockOSThread()
			c := m.newChan(0)
			g.Go(func(w *G) error {
				log = append(log, fmt.Sprintf("worker on M%d", w.mp.id))
				w.chansend(c, 1, true)
				log = append(log, fmt.Sprintf("worker after send on M%d", w.mp.id))
				return nil
			}, "worker")
			g.chanrecv(c, true)
			log = append(log, fmt.Sprintf("main on M%d, M1 %s", g.mp.id, m.Snapshot().Ms[1].Activity()))
			g.unlockOSThread()
			return nil
		})
		for m.Step() {
			if err := m.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
			if ms := m.Snapshot().Ms; len(ms) > 1 && ms[0].Locked && ms[0].Activity() != "locked" {
				t.Errorf("M0 asleep in stoplockedm shows as %q", ms[0].Activity())
			}
		}
		m.Close()
		// The worker's send readies main into runnext; the worker runs
		// on until it exits, then M1 finds main and hands P0 to M0.
		want := "[worker on M1 worker after send on M1 main on M0, M1 idle]"
		if fmt.Sprint(log) != want {
			t.Errorf("costs %v:\n%v\nwant\n%s", costs != nil, log, want)
		}
	}
}

// TestStartupInvariants runs runtime.main's start-up and a racy program
// on 1, 2 and 4 Ps over many seeds, with timing drawn from the profile,
// checking the scheduler's invariants after every step: the locked M's
// hand-offs must never lose or duplicate a G or a P.
func TestStartupInvariants(t *testing.T) {
	steps := 0
	defer func() { t.Logf("%d steps checked", steps) }()
	for _, procs := range []int{1, 2, 4} {
		for seed := uint64(1); seed <= 150; seed++ {
			m := NewMachine(Config{Procs: procs, Seed: seed, Costs: DefaultCosts(), RuntimeMain: true,
				Perturb: Perturb{SampleCosts: true, QuantumJitter: true, Stalls: true}})
			m.Start(func(g *G) error {
				c := m.newChan(0)
				for i := range 4 {
					g.Go(func(w *G) error { w.chansend(c, i, true); return nil }, fmt.Sprint("w", i))
				}
				for range 4 {
					g.chanrecv(c, true)
				}
				return nil
			})
			for m.Step() {
				steps++
				if err := m.CheckInvariants(); err != nil {
					t.Fatalf("procs %d seed %d at %d: %v", procs, seed, m.Now(), err)
				}
			}
			if r := m.Result(); r.Outcome != Exited {
				t.Fatalf("procs %d seed %d: %v %v", procs, seed, r.Outcome, r.Err)
			}
			m.Close()
		}
	}
}

// The start-up's init work is the profile's init_runtime, init_packages
// and init_after when it has them, and startup.go's constants when it
// does not: a profile with the constants starts main.main when one
// without them does, and 100µs more of init_after starts it 100µs later.
func TestStartupInitCosts(t *testing.T) {
	mainAt := func(c *Costs) int64 {
		var at int64 = -1
		m := NewMachine(Config{Procs: 1, Costs: c, RuntimeMain: true})
		defer m.Close()
		m.OnMain(func(now int64, _, _ int32) { at = now })
		m.Start(func(g *G) error { return nil })
		if r := m.Run(); r.Outcome != Exited {
			t.Fatalf("outcome %v: %v", r.Outcome, r.Err)
		}
		return at
	}
	base := mainAt(costsOf(CostStep, 1))
	same := mainAt(costsOf(CostStep, 1, CostInitRuntime, runtimeInitWork, CostInitPackages, packageInitWork, CostInitAfter, packageInitAfter))
	later := mainAt(costsOf(CostStep, 1, CostInitAfter, packageInitAfter+100_000))
	if base <= 0 || same != base {
		t.Errorf("main.main at %dns with the constants in the profile, %dns without, want the same", same, base)
	}
	if later != base+100_000 {
		t.Errorf("main.main at %dns with init_after 100µs longer, want %dns", later, base+100_000)
	}
}
