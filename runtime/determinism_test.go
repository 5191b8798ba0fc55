package runtime

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	goruntime "runtime"
	"strings"
	"testing"
)

// randomWorkload is a seeded random program: many goroutines doing work,
// syscalls, sleeps, channel traffic, selects, mutexes and gosched on 4 Ps.
// Its choices come from its own PRNG, seeded, so the program is the same
// every time; only the scheduler could make runs differ.
func randomWorkload(seed uint64, n int) Func {
	return func(g *G) error {
		r := rand.New(rand.NewPCG(seed, 7))
		m := g.Machine()
		chans := make([]*Chan, 4)
		for i := range chans {
			chans[i], _ = m.NewChan(r.IntN(3))
		}
		mu := m.NewMutex()
		wg := m.NewWaitGroup()
		for i := range n {
			ops := make([]int, 4+r.IntN(6))
			for j := range ops {
				ops[j] = r.IntN(9)
			}
			steps := uint64(1 + r.IntN(500))
			c := chans[r.IntN(len(chans))]
			d := int64(1+r.IntN(50)) * 1000
			g.Add(wg, 1)
			g.Go(func(g *G) error {
				defer g.Add(wg, -1)
				for _, op := range ops {
					switch op {
					case 0:
						g.Work(d)
					case 1:
						g.Syscall(d)
					case 2:
						g.Sleep(d)
					case 3:
						g.Gosched()
					case 4:
						g.Select([]SelectCase{{Dir: SelectSend, Chan: c, Send: i}, {Dir: SelectRecv, Chan: chans[(i+1)%len(chans)]}}, false)
					case 5:
						g.Lock(mu)
						g.Work(d / 10)
						g.Unlock(mu)
					case 6:
						g.Select([]SelectCase{{Dir: SelectRecv, Chan: c}, {Dir: SelectSend, Chan: chans[(i+2)%len(chans)], Send: -i}}, false)
					case 7:
						a := g.After(d)
						g.Recv(a)
					case 8:
						for range 10 {
							g.RanSteps(steps)
						}
					}
				}
				return nil
			}, fmt.Sprint("w", i))
		}
		g.Wait(wg)
		return nil
	}
}

// fingerprint runs the workload and returns a hash of its whole event
// stream and the number of events. With costs, the default profile is
// charged, each cost sampled from its distribution.
func fingerprint(t testing.TB, seed, wseed uint64, check, costs bool) (uint64, int64) {
	h := fnv.New64a()
	var n int64
	tr := TracerFunc(func(ev *Event) {
		n++
		fmt.Fprintf(h, "%d %d %d %d %d %d %d %d %s\n", ev.Time, ev.P, ev.M, ev.G, ev.Kind, ev.G2, ev.P2, ev.Arg, ev.Reason)
	})
	cfg := Config{Procs: 4, Seed: seed, Tracer: tr}
	if costs {
		cfg.Costs = DefaultCosts()
		cfg.Perturb = Perturb{SampleCosts: true, QuantumJitter: true}
	}
	m := NewMachine(cfg)
	defer m.Close()
	m.Start(randomWorkload(wseed, 200))
	for m.Step() {
		if check {
			if err := m.CheckInvariants(); err != nil {
				t.Fatalf("seed %d, after event %d at %d: %v", seed, n, m.Now(), err)
			}
		}
	}
	if res := m.Result(); res.Outcome != Exited {
		t.Fatalf("seed %d: outcome %v: %v", seed, res.Outcome, res.Err)
	}
	return h.Sum64(), n
}

// TestInvariantsRandomWorkload checks the scheduler's invariants after every
// action of random workloads.
func TestInvariantsRandomWorkload(t *testing.T) {
	for seed := range uint64(8) {
		fingerprint(t, seed, seed, true, false)
		fingerprint(t, seed, seed, true, true)
	}
}

// TestDeterminism runs the same seeded workload 20 times and requires the
// same event stream each time; then does it again in child processes with
// host GOMAXPROCS 1 and 8, which must agree with this one. The workload
// runs with sampled costs too, so that the parallel Ps and every cost
// are covered.
func TestDeterminism(t *testing.T) {
	want, n := fingerprint(t, 42, 42, false, false)
	if n < 1000 {
		t.Fatalf("workload too small: %d events", n)
	}
	wantCosts, nCosts := fingerprint(t, 42, 42, false, true)
	for i := range 20 {
		costs, w := i%2 == 1, want
		if costs {
			w = wantCosts
		}
		if got, _ := fingerprint(t, 42, 42, false, costs); got != w {
			t.Fatalf("run %d (costs %v): event stream differs", i, costs)
		}
	}
	if os.Getenv("SCHEDLAB_DETERMINISM_CHILD") != "" {
		fmt.Printf("fingerprint %x %d\n", want, n)
		fmt.Printf("fingerprint %x %d\n", wantCosts, nCosts)
		return
	}
	if testing.Short() {
		t.Skip("child processes skipped in -short")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	for _, procs := range []string{"1", "8"} {
		cmd := exec.Command(exe, "-test.run=^TestDeterminism$", "-test.v")
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs, "SCHEDLAB_DETERMINISM_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GOMAXPROCS=%s: %v\n%s", procs, err, out)
		}
		for _, line := range []string{fmt.Sprintf("fingerprint %x %d", want, n), fmt.Sprintf("fingerprint %x %d", wantCosts, nCosts)} {
			if !strings.Contains(string(out), line) {
				t.Errorf("GOMAXPROCS=%s: child disagrees: want %q in\n%s", procs, line, out)
			}
		}
	}
	_ = goruntime.GOMAXPROCS(0)
}

// Different Machine seeds give different schedules of the same program
// (the PRNG is really used).
func TestSeedsDiffer(t *testing.T) {
	a, _ := fingerprint(t, 1, 42, false, false)
	b, _ := fingerprint(t, 2, 42, false, false)
	if a == b {
		t.Errorf("seeds 1 and 2 gave the same event stream")
	}
}
