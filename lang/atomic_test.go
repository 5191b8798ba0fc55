package lang

import (
	"fmt"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// atomicRace has two goroutines on two Ps count to N three ways: with
// atomic_int's add, with a cas loop, and with a get followed by a set
// (Load then Store: two calls, between which the other P's goroutine
// runs). It prints the three counts.
const atomicRace = `
N = 20000
a, b, c = atomic_int(), atomic_int(), atomic_int()
wg = waitgroup()
def incr():
    for i in range(N):
        a.add(1)
        for _ in range(100):
            old = c.get()
            if c.cas(old, old + 1):
                break
        b.set(b.get() + 1)
    wg.done()
wg.add(2)
spawn(incr)
spawn(incr)
wg.wait()
print(a.get(), c.get(), b.get())
`

// TestAtomicIntParallel: atomic_int is the one shared value with no race
// once Ps run in parallel. Each add and each cas is indivisible, so both
// counts are exact on two Ps, under several seeds; the get-then-set count,
// which is not one operation, loses updates, which shows that the two
// goroutines' calls did interleave: each loop's atomics take about as
// long as Go's (sync_op), longer than the other P's thread takes to wake.
func TestAtomicIntParallel(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		stdout, stderr, res := runSrc(t, atomicRace, Options{Procs: 2, Seed: seed, Preempt: true, Costs: runtime.DefaultCosts()})
		if res.ExitCode != 0 {
			t.Fatalf("seed %d: exit status %d; stderr:\n%s", seed, res.ExitCode, stderr)
		}
		var add, cas, getSet int
		if _, err := fmt.Sscan(stdout, &add, &cas, &getSet); err != nil {
			t.Fatalf("seed %d: stdout %q: %v", seed, stdout, err)
		}
		if add != 40000 || cas != 40000 {
			t.Errorf("seed %d: add counted %d, cas %d; want 40000 each", seed, add, cas)
		}
		if getSet >= 40000 {
			t.Errorf("seed %d: get then set counted %d of 40000: the two Ps did not run in parallel, so the test shows nothing", seed, getSet)
		}
	}
}
