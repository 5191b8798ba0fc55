// Test inputs shared by every test of the package.
//
// scenario is a small hand-written run that uses every event kind once or
// more, in an order the Machine could produce; the golden files in testdata
// are its renderings in every format, so a change to any writer shows up as
// a readable diff (go test -update rewrites them, only when they differ).
// randomEvents makes long plausible streams for the benchmarks and the
// tests that need volume (100,000-event timelines, buffer boundaries).

package trace

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedlab/schedlab/runtime"
)

var update = flag.Bool("update", false, "update golden files")

// golden compares got with testdata/name. With -update it rewrites the file
// when, and only when, they differ.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	want, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if bytes.Equal(got, want) {
		return
	}
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated %s", path)
		return
	}
	if err != nil {
		t.Fatalf("%s: %v (run go test -update to create it)", path, err)
	}
	t.Errorf("%s differs (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
}

// testHeader is the header of the synthetic runs.
var testHeader = Header{Settings: []KV{{"procs", "2"}, {"seed", "1"}, {"preempt", "on"}, {"script", "demo one.star"}}}

// evb builds event sequences, numbering them from 1.
type evb struct{ evs []runtime.Event }

// add appends an event with the common fields and returns it for the
// kind-specific ones.
func (b *evb) add(t int64, p, m int32, g int64, k runtime.EventKind) *runtime.Event {
	b.evs = append(b.evs, runtime.Event{Seq: uint64(len(b.evs) + 1), Time: t, P: p, M: m, G: g, Kind: k, P2: -1})
	return &b.evs[len(b.evs)-1]
}

// scenario is a small run on two Ps that uses every event kind: G1 (main)
// creates two workers; G2 is stolen by P1 and goes into a long syscall
// whose P is retaken; G3 readies G1, yields, and is later preempted; G1
// sleeps, wakes by timer, shrinks GOMAXPROCS, makes a fast syscall and
// exits.
func scenario() []runtime.Event {
	const us = 1000
	var b evb
	b.add(0, 0, 0, 0, runtime.EvProcStart)
	b.add(0, 0, 0, 1, runtime.EvGoStart)
	e := b.add(1*us, 0, 0, 1, runtime.EvGoCreate)
	e.G2, e.Arg, e.Reason = 2, 1, "worker"
	e = b.add(1500, 0, 0, 1, runtime.EvGoCreate)
	e.G2, e.Arg, e.Reason = 3, 1, "worker"
	e = b.add(1500, 1, 1, 0, runtime.EvMStart)
	e.Arg = 1
	b.add(1500, 1, 1, 0, runtime.EvProcStart)
	b.add(1500, 1, 1, 0, runtime.EvMSpinning)
	e = b.add(2*us, 1, 1, 0, runtime.EvRunqSteal)
	e.G2, e.P2, e.Arg = 2, 0, 1
	b.add(2*us, 1, 1, 2, runtime.EvGoStart)
	e = b.add(2*us, 0, 0, 1, runtime.EvPrint)
	e.Reason = "hello from main"
	e = b.add(2500, 0, 0, 1, runtime.EvGoBlock)
	e.Reason = "chan receive"
	e = b.add(2500, 0, 0, 3, runtime.EvGoStart)
	e.Arg = 1
	e = b.add(2600, 0, 0, 3, runtime.EvGoWork)
	e.Arg = 5 * us
	e = b.add(3*us, 1, 1, 2, runtime.EvGoSyscallBegin)
	e.Arg = 30 * us
	e = b.add(7600, 0, 0, 3, runtime.EvGoUnblock)
	e.G2, e.Arg = 1, 1
	b.add(7600, 0, 0, 3, runtime.EvGoSched)
	e = b.add(7600, 0, 0, 1, runtime.EvGoStart)
	e.Arg = 1
	e = b.add(8*us, 0, 0, 1, runtime.EvPrint)
	e.Reason = "tab\there \"quoted\" <b>&amp; ünïcode\n"
	e = b.add(8*us, 0, 0, 1, runtime.EvGoSleep)
	e.Arg = 1008 * us
	e = b.add(8*us, 0, 0, 1, runtime.EvGoBlock)
	e.Reason = "sleep"
	e = b.add(8*us, 0, 0, 0, runtime.EvGlobalRunqGet)
	e.Arg = 1
	b.add(8*us, 0, 0, 3, runtime.EvGoStart)
	b.add(23*us, 1, -1, 0, runtime.EvProcSteal)
	b.add(23*us, 1, 2, 0, runtime.EvMStart)
	b.add(23*us, 1, 2, 0, runtime.EvProcStart)
	b.add(23*us, 1, 2, 0, runtime.EvMSpinning)
	b.add(24*us, 1, 2, 0, runtime.EvProcStop)
	b.add(24*us, -1, 2, 0, runtime.EvMStop)
	b.add(33*us, 1, 1, 0, runtime.EvProcStart)
	e = b.add(33*us, 1, 1, 2, runtime.EvGoSyscallEnd)
	e.Reason = "idle p"
	e = b.add(34*us, 1, 1, 2, runtime.EvPrint)
	e.Reason = "worker 2 done"
	b.add(34*us, 1, 1, 2, runtime.EvGoDestroy)
	b.add(34*us, 1, 1, 0, runtime.EvProcStop)
	b.add(34*us, -1, 1, 0, runtime.EvMStop)
	e = b.add(1008*us, 0, 0, 0, runtime.EvTimerFire)
	e.G2, e.Arg, e.Reason = 1, 1008*us, "sleep"
	e = b.add(1008*us, 0, 0, 3, runtime.EvGoUnblock)
	e.G2, e.Arg = 1, 0
	b.add(10008*us, 0, 0, 3, runtime.EvGoPreempt)
	b.add(10008*us, 0, 0, 1, runtime.EvGoStart)
	e = b.add(10008500, 0, 0, 1, runtime.EvGoCreate)
	e.G2, e.Arg, e.Reason = 4, 2, "<lambda>"
	e = b.add(10008500, 0, 0, 1, runtime.EvGlobalRunqPut)
	e.Arg = 1
	e = b.add(10009*us, -1, 0, 1, runtime.EvProcResize)
	e.P2, e.Arg = 1, 2
	e = b.add(10010*us, 0, 0, 1, runtime.EvGoSyscallBegin)
	e.Arg = 1500
	e = b.add(10011500, 0, 0, 1, runtime.EvGoSyscallEnd)
	e.Reason = "fast"
	e = b.add(12345678901, 0, 0, 1, runtime.EvGoWork)
	e.Arg = 1
	e = b.add(12345678902, 0, 0, 1, runtime.EvGoStatus) // --trace-states
	e.Arg = int64(runtime.Grunning)<<8 | int64(runtime.Gdead)
	b.add(12345678902, 0, 0, 1, runtime.EvGoDestroy)
	// The network: G3 blocks in a read, M0 blocks in netpoll, data
	// arrives and the poller wakes it (netpoll.go).
	const t0 = 12345679000
	e = b.add(t0, 0, 0, 0, runtime.EvGlobalRunqGet)
	e.Arg = 1
	b.add(t0, 0, 0, 3, runtime.EvGoStart)
	e = b.add(t0+100, 0, 0, 3, runtime.EvGoBlock)
	e.Reason = "IO wait"
	b.add(t0+100, 0, 0, 0, runtime.EvProcStop)
	b.add(t0+100, -1, 0, 0, runtime.EvMNetpoll)
	e = b.add(t0+30*us, -1, -1, 0, runtime.EvNetReady)
	e.Arg, e.Reason = 3, "r"
	e = b.add(t0+74*us, -1, 0, 0, runtime.EvNetpoll)
	e.Arg, e.Reason = 1, "block"
	b.add(t0+74*us, 0, 0, 0, runtime.EvMStart)
	b.add(t0+74*us, 0, 0, 0, runtime.EvProcStart)
	e = b.add(t0+74*us, 0, 0, 0, runtime.EvGoUnblock)
	e.G2, e.Arg = 3, 3
	b.add(t0+74*us, 0, 0, 3, runtime.EvGoStart)
	b.add(t0+75*us, 0, 0, 3, runtime.EvGoDestroy)
	// The CPU quota ran out: every thread stops until the period ends.
	e = b.add(t0+80*us, -1, -1, 0, runtime.EvThrottle)
	e.Arg = 20 * us
	// A GC cycle under --gc-cycle=mark: G1 on P0 stops the world for
	// sweep termination, pays a mark assist for an allocation, and waits
	// for the cycle (gc()); the mark worker G4 marks on P0 and stops the
	// world for mark termination.
	b.add(t0+100*us, 0, 0, 1, runtime.EvGoStart)
	e = b.add(t0+100*us, 0, 0, 1, runtime.EvGCBegin)
	e.Arg, e.Reason = 1, "forced"
	e = b.add(t0+100*us, 0, 0, 1, runtime.EvSTWBegin)
	e.Reason = "GC sweep termination"
	e = b.add(t0+150*us, 0, 0, 1, runtime.EvSTWEnd)
	e.Arg, e.Reason = 50*us, "GC sweep termination"
	e = b.add(t0+150*us, 0, 0, 1, runtime.EvGCAssistBegin)
	e.Arg = 65536
	e = b.add(t0+151*us, 0, 0, 1, runtime.EvGCAssistEnd)
	e.Arg = 1 * us
	e = b.add(t0+151*us, 0, 0, 1, runtime.EvGoBlock)
	e.Reason = "wait for GC cycle"
	e = b.add(t0+151*us, 0, 0, 0, runtime.EvGoUnblock)
	e.G2, e.Arg = 4, 3
	b.add(t0+151*us, 0, 0, 4, runtime.EvGoStart)
	e = b.add(t0+151*us, 0, 0, 4, runtime.EvGCWorkerStart)
	e.Reason = "dedicated"
	e = b.add(t0+152*us, 0, 0, 4, runtime.EvGCWorkerStop)
	e.Arg, e.Reason = 1*us, "dedicated"
	e = b.add(t0+152*us, 0, 0, 4, runtime.EvSTWBegin)
	e.Reason = "GC mark termination"
	e = b.add(t0+156*us, 0, 0, 4, runtime.EvSTWEnd)
	e.Arg, e.Reason = 4*us, "GC mark termination"
	e = b.add(t0+156*us, 0, 0, 4, runtime.EvGCEnd)
	e.Arg = 1
	e = b.add(t0+156*us, 0, 0, 4, runtime.EvGoUnblock)
	e.G2 = 1
	e = b.add(t0+156*us, 0, 0, 4, runtime.EvGoBlock)
	e.Reason = "GC worker (idle)"
	b.add(t0+156*us, 0, 0, 1, runtime.EvGoStart)
	b.add(t0+157*us, 0, 0, 1, runtime.EvGoDestroy)
	// More threads than CPUs: the OS takes M0's CPU at the end of its
	// time slice and gives it back when another thread stops.
	e = b.add(t0+160*us, 0, 0, 0, runtime.EvMOffCPU)
	e.Arg, e.Reason = 1, "slice"
	e = b.add(t0+162*us, 0, 0, 0, runtime.EvMOnCPU)
	e.Arg = 2 * us
	return b.evs
}

// randomEvents returns a plausible stream of n events on procs Ps: Gs are
// created, run, work, block, are readied, yield, are preempted, make
// syscalls, print and exit, with times that only move forward. It is
// deterministic for a given seed.
func randomEvents(n, procs int, seed uint64) []runtime.Event {
	r := rand.New(rand.NewPCG(seed, 1))
	var b evb
	now := int64(0)
	nextG := int64(2)
	running := make([]int64, procs) // G running on each P, 0 if idle
	var runnable, global, blocked []int64
	runnable = append(runnable, 1)
	reasons := []string{"chan receive", "chan send", "select", "sync.Mutex.Lock", "sleep"}
	take := func(s *[]int64, i int) int64 {
		g := (*s)[i]
		*s = append((*s)[:i], (*s)[i+1:]...)
		return g
	}
	for len(b.evs) < n {
		now += int64(r.IntN(3000))
		p := int32(r.IntN(procs))
		m := p
		g := running[p]
		if g == 0 {
			if len(runnable) == 0 && len(global) > 0 {
				e := b.add(now, p, m, 0, runtime.EvGlobalRunqGet)
				e.Arg = 1
				runnable = append(runnable, take(&global, 0))
				continue
			}
			if len(runnable) == 0 {
				if len(blocked) > 0 {
					e := b.add(now, p, m, 0, runtime.EvTimerFire)
					e.G2 = take(&blocked, r.IntN(len(blocked)))
					e.Arg, e.Reason = now, "sleep"
					runnable = append(runnable, e.G2)
				} else {
					runnable = append(runnable, nextG)
					nextG++
				}
				continue
			}
			g = take(&runnable, 0)
			running[p] = g
			e := b.add(now, p, m, g, runtime.EvGoStart)
			e.Arg = int64(r.IntN(2))
			continue
		}
		switch x := r.IntN(100); {
		case x < 35:
			e := b.add(now, p, m, g, runtime.EvGoWork)
			e.Arg = int64(r.IntN(20000))
		case x < 45 && len(runnable)+len(blocked) < 64:
			e := b.add(now, p, m, g, runtime.EvGoCreate)
			e.G2, e.Arg, e.Reason = nextG, 1, "worker"
			runnable = append(runnable, nextG)
			nextG++
		case x < 58:
			e := b.add(now, p, m, g, runtime.EvGoBlock)
			e.Reason = reasons[r.IntN(len(reasons))]
			blocked = append(blocked, g)
			running[p] = 0
		case x < 70 && len(blocked) > 0:
			e := b.add(now, p, m, g, runtime.EvGoUnblock)
			e.G2, e.Arg = take(&blocked, r.IntN(len(blocked))), int64(r.IntN(3))
			runnable = append(runnable, e.G2)
		case x < 76:
			b.add(now, p, m, g, runtime.EvGoSched)
			global = append(global, g)
			running[p] = 0
		case x < 80:
			b.add(now, p, m, g, runtime.EvGoPreempt)
			global = append(global, g)
			running[p] = 0
		case x < 85:
			d := int64(r.IntN(50000))
			e := b.add(now, p, m, g, runtime.EvGoSyscallBegin)
			e.Arg = d
			now += d
			e = b.add(now, p, m, g, runtime.EvGoSyscallEnd)
			e.Reason = "fast"
		case x < 92:
			e := b.add(now, p, m, g, runtime.EvPrint)
			e.Reason = "step"
		case x < 96 && len(runnable) > 1:
			e := b.add(now, p, m, 0, runtime.EvGlobalRunqPut)
			e.Arg = 1
			global = append(global, take(&runnable, len(runnable)-1))
		default:
			b.add(now, p, m, g, runtime.EvGoDestroy)
			running[p] = 0
		}
	}
	return b.evs[:n]
}

// run feeds evs to tr.
func run(tr runtime.Tracer, evs []runtime.Event) {
	for i := range evs {
		tr.Event(&evs[i])
	}
}

// TestScenarioCoversEveryKind keeps the golden scenario complete.
func TestScenarioCoversEveryKind(t *testing.T) {
	seen := map[runtime.EventKind]bool{}
	for _, ev := range scenario() {
		seen[ev.Kind] = true
	}
	for _, k := range runtime.EventKinds() {
		if !seen[k] {
			t.Errorf("scenario has no %v event", k)
		}
	}
}

// TestRandomEventsDeterministic checks the generator the benchmarks and
// large tests rely on.
func TestRandomEventsDeterministic(t *testing.T) {
	a, b := randomEvents(5000, 4, 7), randomEvents(5000, 4, 7)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("randomEvents is not deterministic:\n%s", diff)
	}
	for i := 1; i < len(a); i++ {
		if a[i].Time < a[i-1].Time {
			t.Fatalf("event %d goes back in time", i)
		}
	}
}
