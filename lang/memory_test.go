package lang

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedlab/schedlab/runtime"
)

// A run that keeps more than MaxMemory ends as a limit, with the
// diagnosis and the goroutine dump of the other limits.
func TestMaxMemory(t *testing.T) {
	src := `def grow():
    x = []
    for i in range(100000000):
        x.append([i, i, i, i, i, i, i, i])
grow()
`
	_, stderr, res := runSrc(t, src, Options{MaxMemory: 64 << 20, Preempt: true})
	if res.ExitCode != 2 || res.Run.Outcome != runtime.Limit {
		t.Fatalf("exit %d, outcome %v; stderr:\n%s", res.ExitCode, res.Run.Outcome, stderr)
	}
	// Where the run stopped depends on the host (as for the timeout):
	// somewhere in the loop.
	for _, want := range []string{
		"schedlab: memory limit of 64MiB reached (--max-memory=64MiB)",
		"goroutine 1 [running]:",
		": in grow\n",
		"x.star:5:5: in <toplevel>",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %q in stderr:\n%s", want, stderr)
		}
	}
}

// One builtin call that allocates on its own cannot be stopped between
// instructions: the watchdog calls OnMemoryOverrun once the memory grows
// half as much again, and the run still ends at the limit after the call.
func TestMaxMemoryOverrun(t *testing.T) {
	var called atomic.Pointer[runtime.LimitError]
	opts := Options{
		MaxMemory:       32 << 20,
		OnMemoryOverrun: func(le *runtime.LimitError) { called.Store(le) },
	}
	// x is small (the same list 20,000 times); str(x) makes 60 MB of text
	// in one call, which crosses both limits. (The resident set is the
	// test process's; cmd/schedlab/testdata/script/memory.txtar checks
	// the same in a process of its own.)
	src := "x = [[0] * 1000] * 20000\ns = str(x)\nprint(len(s))\n"
	_, stderr, res := runSrc(t, src, opts)
	le := called.Load()
	if le == nil || le.What != "memory" {
		t.Fatalf("OnMemoryOverrun not called (%v); stderr:\n%s", le, stderr)
	}
	if res.Run.Outcome != runtime.Limit || !strings.Contains(stderr, "memory limit of 32MiB reached") {
		t.Errorf("outcome %v; stderr:\n%s", res.Run.Outcome, stderr)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[uint64]string{
		0:             "0B",
		1000:          "1000B",
		1024:          "1KiB",
		1536:          "1536B",
		64 << 20:      "64MiB",
		4 << 30:       "4GiB",
		3 << 40:       "3TiB",
		1<<30 + 1:     "1073741825B",
		1<<30 + 1<<20: "1025MiB",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// stopAtExit is a Tracer that stops its run, as a host limit does from
// another goroutine, once G1 has returned.
type stopAtExit struct {
	m  **runtime.Machine
	le *runtime.LimitError
}

func (w *stopAtExit) Event(ev *runtime.Event) {
	if ev.Kind == runtime.EvGoDestroy && ev.G == 1 {
		runOf(*w.m).stop(w.le)
	}
}

// The limit holds until the run is over: a stop after main returned,
// while the leak check walks what the globals hold (for millions of
// values, as much memory again: issue 32, item 9), ends the run at the
// limit, not with exit 0.
func TestLimitAfterMain(t *testing.T) {
	var m *runtime.Machine
	var stderr strings.Builder
	opts := Options{
		Tracer:  &stopAtExit{m: &m, le: memoryError(256 << 20)},
		OnStart: func(mm *runtime.Machine) { m = mm },
		Stderr:  &stderr,
	}
	// A goroutine blocked for good, so that the leak check walks x.
	src := "ch = chan()\nspawn(lambda: ch.recv())\nsleep(\"1ms\")\nx = [[i] for i in range(20000)]\n"
	res := RunFile("x.star", []byte(src), opts)
	if res.ExitCode != ExitFailed || res.Run.Outcome != runtime.Limit {
		t.Fatalf("exit %d, outcome %v; stderr:\n%s", res.ExitCode, res.Run.Outcome, stderr.String())
	}
	for _, want := range []string{
		"schedlab: memory limit of 256MiB reached (--max-memory=256MiB)\n",
		"goroutine 2 [chan receive]:",
		"schedlab: main had returned; the limit was reached while looking for leaked goroutines\n",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("no %q in stderr:\n%s", want, stderr.String())
		}
	}
}

// The watchdog stops before it takes a run for one call that cannot be
// stopped: memory found past both marks at one look (a watchdog that a
// loaded host let sleep) is first onLimit, and onOverrun only comes at a
// later look, while the memory stays above, and only if it acts.
func TestWatchMemoryStopsFirst(t *testing.T) {
	var calls []string
	done := make(chan struct{})
	overruns := 0
	onLimit := func() { calls = append(calls, "limit") }
	onOverrun := func() bool {
		calls = append(calls, "overrun")
		overruns++
		return overruns == 2 // the first: what was stopped had ended
	}
	// One byte: the heap and the resident set are past both at once.
	WatchMemory(1, time.Millisecond, onLimit, onOverrun, done)
	got := strings.Join(calls, " ")
	if openRSS() == nil {
		t.Skipf("no resident set here; calls: %s", got)
	}
	if want := "limit overrun overrun"; got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
}

// TestRSSIsAnonymous: the resident set the watchdog reads is the
// anonymous one, the kernel's RssAnon: the executable's own pages are
// not counted.
func TestRSSIsAnonymous(t *testing.T) {
	r := openRSS()
	if r == nil {
		t.Skip("no resident set here")
	}
	defer r.close()
	// RssAnon and VmRSS of /proc/self/status, in bytes.
	status := func() (anon, all uint64) {
		data, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Skipf("no /proc/self/status: %v", err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			var kb uint64
			if _, err := fmt.Sscanf(line, "RssAnon: %d kB", &kb); err == nil {
				anon = kb << 10
			}
			if _, err := fmt.Sscanf(line, "VmRSS: %d kB", &kb); err == nil {
				all = kb << 10
			}
		}
		return anon, all
	}
	lo, all := status()
	got, ok := r.read()
	hi, _ := status()
	lo, hi = min(lo, hi), max(lo, hi)
	if !ok || got+1<<20 < lo || got > hi+1<<20 {
		t.Errorf("read %d (ok %v), want RssAnon: %d to %d", got, ok, lo, hi)
	}
	if got >= all {
		t.Errorf("read %d, the whole resident set %d: want less", got, all)
	}
}
