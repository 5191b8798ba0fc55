package lang

import (
	"fmt"
	"testing"

	"go.starlark.net/starlark"
)

// loopSrc is two goroutines that each run a plain Starlark loop of N/2
// turns (`x = x + 1` on a local), then finish; one op is one turn of a
// loop. On one P they run one after the other; on two, in parallel on
// the virtual clock, interleaving a quantum of steps at a time.
const loopSrc = `
wg = waitgroup()

def loop(n):
    x = 0
    for _ in range(n):
        x = x + 1
    wg.done()

wg.add(2)
spawn(loop, N // 2)
spawn(loop, N - N // 2)
reset_timer()
wg.wait()
`

// BenchmarkLoops is the CPU of Starlark code: the same loop turns on one
// P (procs=1) and on two Ps running at the same time (procs=2). Issue 12
// asks that procs=2 cost at most 1.5 times procs=1 (docs/performance.md),
// and that procs=1 cost at most 10% more than before code took virtual
// time.
func BenchmarkLoops(b *testing.B) {
	for _, procs := range []int{1, 2} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			opts := benchOptions()
			opts.Procs = procs
			b.ReportAllocs()
			benchRun(b, loopSrc, opts, starlark.StringDict{})
		})
	}
}
