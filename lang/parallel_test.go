package lang

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// TestParallel runs every testdata/parallel/NAME.star on two Ps with the
// default costs profile and compares its stdout with NAME.want: what its
// Go twin NAME.go prints most often under GOMAXPROCS=2 (each prints one
// line naming its outcome). Unlike the one-P pairs of TestFaithful, the
// twin's output varies from run to run; the .want is its mode over many
// runs, as bench/faithfulness records them.
func TestParallel(t *testing.T) {
	stars, err := filepath.Glob("testdata/parallel/*.star")
	if err != nil || len(stars) == 0 {
		t.Fatalf("no testdata/parallel/*.star: %v", err)
	}
	for _, star := range stars {
		base := strings.TrimSuffix(star, ".star")
		t.Run(filepath.Base(base), func(t *testing.T) {
			want, err := os.ReadFile(base + ".want")
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			res := RunFile(star, nil, Options{Procs: 2, Preempt: true, Costs: runtime.DefaultCosts(), Stdout: &stdout, Stderr: &stderr})
			if res.ExitCode != 0 {
				t.Fatalf("exit status %d; stderr:\n%s", res.ExitCode, stderr.String())
			}
			if got := stdout.String(); got != string(want) {
				t.Errorf("stdout %q, want Go's most frequent %q", got, want)
			}
		})
	}
}

// Plain Starlark values shared by goroutines on two Ps race: the
// goroutines' steps interleave a quantum at a time, so a list both append
// to shows runs of one goroutine no longer than a quantum holds, and
// with the zero profile (code takes no time) each goroutine's loop runs
// whole.
func TestSharedValuesInterleave(t *testing.T) {
	const src = `
log = []
wg = waitgroup()
def w(id):
    for i in range(N):
        log.append(id)
    wg.done()
wg.add(2)
spawn(w, "a")
spawn(w, "b")
wg.wait()
lengths = [1]
for i in range(1, len(log)):
    if log[i] != log[i-1]:
        lengths.append(0)
    lengths[-1] += 1
# The first run is one goroutine alone, before the M woken for P1 runs;
# the last, the other alone after the first is done.
print(len(lengths), max(lengths[1:-1]) if len(lengths) > 2 else 0)
`
	run := func(costs *runtime.Costs, quantum uint64, n int) (runs, longest int) {
		var stdout, stderr bytes.Buffer
		res := RunFile("interleave.star", []byte(strings.Replace(src, "N", fmt.Sprint(n), 1)), Options{Procs: 2, Preempt: true, Costs: costs, Quantum: quantum, Stdout: &stdout, Stderr: &stderr})
		if res.ExitCode != 0 {
			t.Fatalf("exit %d: %s", res.ExitCode, stderr.String())
		}
		if _, err := fmt.Sscan(stdout.String(), &runs, &longest); err != nil {
			t.Fatalf("output %q: %v", stdout.String(), err)
		}
		return runs, longest
	}
	// Each goroutine appends N times (src's N). A turn of the loop is
	// about 9 steps: a quantum of 64 holds about seven appends, one of 16
	// about two. At the default profile's step (99ps) a turn takes about a
	// nanosecond, so each loop must outlast by far the tens of
	// microseconds before the second P's M runs.
	for _, q := range []uint64{16, 64} {
		runs, longest := run(runtime.DefaultCosts(), q, 200000)
		if runs < 100 {
			t.Errorf("quantum %d: %d runs of one writer in 400000 appends: the Ps do not run in parallel", q, runs)
		}
		if max := int(q)/4 + 2; longest > max {
			t.Errorf("quantum %d: %d appends in a row by one goroutine while both ran, want at most %d", q, longest, max)
		}
	}
	if runs, _ := run(runtime.ZeroCosts(), 0, 30000); runs != 2 {
		t.Errorf("zero costs: %d runs of one writer, want 2: each loop whole", runs)
	}
}
