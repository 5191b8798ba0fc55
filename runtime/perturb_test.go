package runtime

import (
	"fmt"
	"testing"
)

// lostUpdate is the read-gosched-write race on two Ps: without
// perturbation the default schedule never loses an update.
func lostUpdate(g *G) (int, error) {
	counter := 0
	wg := g.Machine().NewWaitGroup()
	for range 2 {
		g.Add(wg, 1)
		g.Go(func(g *G) error {
			for range 10 {
				v := counter
				g.Work(1000)
				counter = v + 1
			}
			return g.Add(wg, -1)
		}, "incr")
	}
	g.Wait(wg)
	return counter, nil
}

// Perturbations draw from the seed: the same seed replays, different seeds
// give different schedules, and with none of them set nothing changes.
func TestPerturbReplaysAndVaries(t *testing.T) {
	result := func(seed uint64, p Perturb) string {
		var got int
		out, res := run(t, Config{Procs: 2, Seed: seed, Perturb: p}, func(g *G, log func(string, ...any)) error {
			n, err := lostUpdate(g)
			got = n
			log("%d at %d", n, g.Now())
			return err
		})
		if res.Outcome != Exited {
			t.Fatal(res.Outcome, res.Err)
		}
		_ = got
		return out
	}
	base := result(1, Perturb{})
	if base != result(2, Perturb{}) {
		t.Errorf("without perturbation the seed changed this race-free-by-timing run")
	}
	p := Perturb{Jitter: 0.5, WakeupJitter: 5000, PreemptProb: 0.2}
	seen := map[string]bool{}
	for seed := range uint64(20) {
		a := result(seed, p)
		if b := result(seed, p); a != b {
			t.Fatalf("seed %d does not replay: %q vs %q", seed, a, b)
		}
		seen[a] = true
	}
	if len(seen) < 3 {
		t.Errorf("20 seeds gave only %d outcomes: %v", len(seen), seen)
	}
}

// RunnextFlip: a spawned G goes to the ring tail about half the time.
func TestRunnextFlip(t *testing.T) {
	flipped := 0
	for seed := range uint64(40) {
		out, _ := run(t, Config{Procs: 1, Seed: seed, Perturb: Perturb{RunnextFlip: true}}, func(g *G, log func(string, ...any)) error {
			done, _ := g.Machine().NewChan(0)
			for i := range 2 {
				g.Go(func(g *G) error { log("%d", i); return g.Send(done, 1) }, fmt.Sprint(i))
			}
			g.Recv(done)
			g.Recv(done)
			return nil
		})
		if out != "1\n0\n" {
			flipped++
		}
	}
	if flipped < 5 || flipped > 35 {
		t.Errorf("order changed in %d of 40 seeds, want about half", flipped)
	}
}

// PCT change points preempt the running G at the chosen safe points.
func TestPCTPreempts(t *testing.T) {
	evs := events(t, Config{Procs: 1, Seed: 3, Perturb: Perturb{PCTDepth: 3, PCTSteps: 10}}, func(g *G, _ func(string, ...any)) error {
		for range 10 {
			g.Work(1)
		}
		return nil
	})
	n := 0
	for _, ev := range evs {
		if ev.Kind == EvGoPreempt {
			n++
		}
	}
	if n < 1 || n > 3 {
		t.Errorf("%d preemptions, want 1 to 3 (3 change points, some may coincide)", n)
	}
}

// MarkLeaked moves a waiting G to _Gleaked and refuses others.
func TestMarkLeaked(t *testing.T) {
	m := NewMachine(Config{})
	defer m.Close()
	var blocked *G
	m.Start(func(g *G) error {
		c, _ := g.Machine().NewChan(0)
		blocked, _ = g.Go(func(g *G) error { g.Recv(c); return nil }, "b")
		g.Sleep(1)
		return nil
	})
	m.Run()
	if err := m.MarkLeaked(blocked); err != nil {
		t.Fatal(err)
	}
	if blocked.Status() != Gleaked || blocked.WaitReason() != "chan receive" {
		t.Errorf("status %v reason %q", blocked.Status(), blocked.WaitReason())
	}
	if err := m.MarkLeaked(blocked); err == nil {
		t.Errorf("marking a leaked G again succeeded")
	}
}
