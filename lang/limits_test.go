package lang

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/runtime"
)

// spinThenOther: G2 spins in a Starlark loop that never reaches a
// scheduling point; G1 yields to it first, then starts G3, which prints.
// On one P, G3 runs only if G2 is preempted.
const spinThenOther = `def spin():
    while True:
        pass
def other(done):
    print("other ran")
    done.send(1)
spawn(spin)
gosched()
done = chan()
spawn(other, done)
done.recv()
print("main returns")
`

// TestTightLoopPreempted: with preemption on, a tight loop is preempted
// at the default step budget that stands for the 10ms slice, and the other
// goroutines run.
func TestTightLoopPreempted(t *testing.T) {
	stdout, stderr, res := runSrc(t, spinThenOther, Options{Preempt: true, Alive: true})
	if res.ExitCode != 0 || stdout != "other ran\nmain returns\n" {
		t.Fatalf("exit %d, stdout %q; stderr:\n%s", res.ExitCode, stdout, stderr)
	}
	// G2 is still there, preempted to a run queue: runnable, not leaked.
	if !strings.Contains(stderr, "goroutine 2 [runnable]:\n  x.star:1:1: in spin\n") {
		t.Errorf("stderr:\n%s\nwant goroutine 2 runnable in spin", stderr)
	}
}

// TestWedged: with preemption off, the same loop wedges the only P, and
// the run ends after runtime.DefaultWedgeSteps steps of G2 with the diagnosis
// naming it, then the dump.
func TestWedged(t *testing.T) {
	if testing.Short() {
		t.Skip("10 million steps")
	}
	stdout, stderr, res := runSrc(t, spinThenOther, Options{Preempt: false})
	want := "schedlab: goroutine 2 ran 10000000 steps without a scheduling point; the cooperative scheduler is wedged; run with --preempt=on\n\n" +
		"goroutine 1 [runnable]:\n  x.star:8:8: in <toplevel>\n\n" +
		"goroutine 2 [running]:\n  x.star:1:1: in spin\ncreated by <toplevel> in goroutine 1\n  x.star:7:6\n"
	if res.ExitCode != ExitFailed || res.Run.Outcome != runtime.Limit || stdout != "" || stderr != want {
		t.Errorf("exit %d, outcome %v, stdout %q, stderr:\n%s\nwant:\n%s", res.ExitCode, res.Run.Outcome, stdout, stderr, want)
	}
}

// TestLimits: every limit ends the run with outcome Limit, exit status 2,
// a one-line diagnosis and the dump of every goroutine.
func TestLimits(t *testing.T) {
	spin := "def spin():\n    while True:\n        pass\n"
	for _, tc := range []struct {
		name string
		src  string
		opts Options
		diag string // regexp of the diagnosis line
	}{
		{"steps", spin + "spawn(spin)\nspin()\n", Options{MaxSteps: 5000, Preempt: true, SliceSteps: 1000},
			`^schedlab: step limit of 5000 reached \(--max-steps=5000\)$`},
		{"goroutines", "for i in range(100):\n    spawn(park)\n", Options{MaxGoroutines: 10},
			`^schedlab: goroutine limit reached: 10 goroutines alive \(--max-goroutines=10\)$`},
		{"virtual time", "spawn(lambda: work('1s'))\nwork('1s')\n", Options{MaxTime: 1_000_000, Procs: 2},
			`^schedlab: virtual time limit of 1ms reached$`},
		{"wall time", spin + "spawn(spin)\nspin()\n", Options{Timeout: 20 * time.Millisecond, Preempt: true, SliceSteps: 1000},
			`^schedlab: wall-clock timeout of 20ms reached \(--timeout=20ms\)$`},
		{"wall time, preemption off", spin + "spin()\n", Options{Timeout: 20 * time.Millisecond},
			`^schedlab: wall-clock timeout of 20ms reached \(--timeout=20ms\)$`},
		{"wedged", spin + "spawn(spin)\nsleep(1)\n", Options{WedgeSteps: 20000},
			`^schedlab: goroutine 2 ran 20000 steps without a scheduling point; the cooperative scheduler is wedged; run with --preempt=on$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, stderr, res := runSrc(t, tc.src, tc.opts)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			if res.ExitCode != ExitFailed || res.Run == nil || res.Run.Outcome != runtime.Limit {
				t.Fatalf("exit %d, result %+v; stderr:\n%s", res.ExitCode, res.Run, stderr)
			}
			var le *runtime.LimitError
			if !errors.As(res.Run.Err, &le) {
				t.Errorf("Err = %T %v, want a *runtime.LimitError", res.Run.Err, res.Run.Err)
			}
			diag, dump, ok := strings.Cut(stderr, "\n\n")
			if !ok || !regexp.MustCompile(tc.diag).MatchString(diag) {
				t.Errorf("diagnosis %q, want %s", diag, tc.diag)
			}
			if !strings.HasPrefix(dump, "goroutine 1 [") || strings.Contains(dump, "(leaked)") {
				t.Errorf("dump:\n%s\nwant every goroutine from G1, none leaked", dump)
			}
		})
	}
}

// TestCanceled: Machine.Interrupt (the REPL's Ctrl-C, a host's cancel)
// ends a run that never reaches a scheduling point by itself, with the
// dump.
func TestCanceled(t *testing.T) {
	var m *runtime.Machine
	opts := Options{Preempt: true, SliceSteps: 1000, OnStart: func(mm *runtime.Machine) {
		m = mm
		time.AfterFunc(10*time.Millisecond, func() { m.Interrupt(errors.New("interrupted by the host")) })
	}}
	_, stderr, res := runSrc(t, "def spin():\n    while True:\n        pass\nspin()\n", opts)
	if res.ExitCode != ExitFailed || res.Run.Outcome != runtime.Canceled ||
		!strings.HasPrefix(stderr, "schedlab: interrupted by the host\n\ngoroutine 1 [") {
		t.Errorf("exit %d, outcome %v; stderr:\n%s", res.ExitCode, res.Run.Outcome, stderr)
	}
}
