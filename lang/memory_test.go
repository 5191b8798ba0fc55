package lang

import (
	"strings"
	"sync/atomic"
	"testing"

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
