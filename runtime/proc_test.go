package runtime

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// run runs main on a Machine with cfg and returns what the goroutines
// logged and the result. The Machine is closed afterwards.
func run(t *testing.T, cfg Config, main func(g *G, log func(format string, args ...any)) error) (string, *Result) {
	t.Helper()
	var b strings.Builder
	log := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	m := NewMachine(cfg)
	m.Start(func(g *G) error { return main(g, log) })
	res := *m.Run()
	m.Close()
	return b.String(), &res
}

// TestRunnextOrder: spawn g0..g9 on one P, then block: g9 sits in runnext
// and runs first, then the ring in order. Mirrors runqput(next=true).
func TestRunnextOrder(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		done, _ := g.Machine().NewChan(0)
		for i := range 10 {
			g.Go(func(g *G) error {
				log("g%d", i)
				return g.Send(done, i)
			}, fmt.Sprintf("g%d", i))
		}
		for range 10 {
			g.Recv(done)
		}
		return nil
	})
	if res.Outcome != Exited {
		t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
	}
	want := "g9\ng0\ng1\ng2\ng3\ng4\ng5\ng6\ng7\ng8\n"
	if out != want {
		t.Errorf("order:\n%s\nwant:\n%s", out, want)
	}
}

// The action heap pops in (when, seq) order whatever order the actions
// were pushed in, interleaving pushes and pops as a run does.
func TestActionHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h actionHeap
	var seq uint64
	var lastWhen int64
	var lastSeq uint64
	popped := 0
	for round := range 20000 {
		if rng.IntN(3) != 0 || len(h) == 0 {
			seq++
			// Never earlier than what was popped last, as after() does.
			h.push(action{when: lastWhen + int64(rng.IntN(5)), seq: seq})
			continue
		}
		a := h.pop()
		if a.when < lastWhen || a.when == lastWhen && a.seq < lastSeq {
			t.Fatalf("round %d: popped (%d, %d) after (%d, %d)", round, a.when, a.seq, lastWhen, lastSeq)
		}
		lastWhen, lastSeq = a.when, a.seq
		popped++
	}
	for len(h) > 0 {
		a := h.pop()
		if a.when < lastWhen || a.when == lastWhen && a.seq < lastSeq {
			t.Fatalf("drain: popped (%d, %d) after (%d, %d)", a.when, a.seq, lastWhen, lastSeq)
		}
		lastWhen, lastSeq = a.when, a.seq
		popped++
	}
	if popped != int(seq) {
		t.Errorf("popped %d of %d", popped, seq)
	}
}

// A G is allocated at every spawn that finds no free G, and a program that
// spawns in a loop at one P holds every queued one at once: it must stay
// within the 320-byte size class (the next is 352), as docs/performance.md
// ("Lean goroutines") counts it.
func TestGSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(G{}); n > 320 {
		t.Errorf("the G is %d bytes: past the 320-byte size class, each new G allocates 352", n)
	}
}
