// The memory limit.
//
// Steps, goroutines and virtual time are counted by the run itself, between
// two instructions, and a run that reaches one of them ends with a
// diagnosis. Memory is the host's, like the wall clock: a watchdog
// goroutine reads the Go runtime's metrics every memoryPoll and stops the
// run as the timeout does (run.stop) once the heap's objects and the
// goroutine stacks together stay above the limit after a garbage
// collection. The count is process-wide: it is meant for a command that
// does one run per process (schedlab run).
//
// Stopping acts between instructions. One builtin call can allocate
// without bound on its own (str() of a small list that holds one list many
// times builds its text piece by piece), and nothing interrupts it. So the
// watchdog also reads the process's anonymous resident set (the resident
// pages less those backed by a file, such as the executable's) from
// /proc/self/statm (on Linux, memory_linux.go; elsewhere, such as in the playground's
// WebAssembly build, there is no such reading and memory_other.go has
// none), which needs no lock of the Go runtime, and when the process
// holds half as much again as the limit after the run was stopped and
// while it has not ended, it calls OnMemoryOverrun, with which the
// command reports the limit and ends its process rather than let the Go
// runtime (or the kernel) kill it. Only after a stop: a watchdog that a
// loaded host let sleep while the run allocated finds the memory past
// both marks at once, and the run, which can still be stopped between
// two instructions, must be, rather than taken for one call that cannot. The command also sets the Go
// runtime's soft memory limit to the same value, so that garbage not yet
// returned to the system does not count against a program whose live
// memory fits. One single huge allocation (the array of list(range(n)))
// is zeroed with no point where any other goroutine may run, so the
// watchdog can only act once it is made.
//
// The limit holds until the run is over, not only while its goroutines
// run: after main returns, the leak check (leak.go) walks every value the
// globals hold, and for a script that keeps millions of them that walk
// holds as much again. It looks for a stop as it goes, and a run stopped
// there ends at the limit (exit 2) rather than exit 0 past it. When no
// goroutine is blocked there is nothing to leak and no walk at all.
//
// The REPL watches with the same function (WatchMemory), and interrupts
// the statement in progress instead.

package lang

import (
	"fmt"
	goruntime "runtime"
	"runtime/metrics"
	"time"

	"github.com/schedlab/schedlab/runtime"
)

// memoryPoll is how often the watchdog reads the memory in use.
const memoryPoll = 10 * time.Millisecond

// memoryInUse returns the bytes of the Go heap's objects (live, and dead
// but not yet swept) and of goroutine stacks.
func memoryInUse(samples []metrics.Sample) uint64 {
	metrics.Read(samples)
	var n uint64
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			n += s.Value.Uint64()
		}
	}
	return n
}

// watchMemory stops the run when it holds more than limit bytes, until
// done is closed.
func (r *run) watchMemory(limit uint64, every time.Duration, done <-chan struct{}) {
	le := memoryError(limit)
	var overrun func() bool
	if r.opts.OnMemoryOverrun != nil || r.opts.OnOverrun != nil {
		told := false // OnMemoryOverrun was called
		overrun = func() bool {
			if r.isEnded() {
				return false // the run was stopped and is over
			}
			if r.opts.OnMemoryOverrun != nil && !told {
				told = true
				r.opts.OnMemoryOverrun(le)
			}
			return r.overrun(le) // the report; false while the run is busy elsewhere than in one call (overrun.go)
		}
	}
	WatchMemory(limit, every, func() { r.stop(le) }, overrun, done)
}

// WatchMemory watches the memory the process holds, every `every`, until
// done is closed. It calls onLimit each time the Go heap's objects and the
// goroutine stacks rise above limit bytes and stay above it after a
// garbage collection. Once onLimit was called, and while the memory stays
// above the limit, it calls onOverrun, if not nil, when the resident set
// reaches half as much again as the limit (read without any lock of the
// Go runtime, so also while one call allocates); onOverrun reports
// whether it acted, and then WatchMemory returns, or not (what was
// stopped had already ended, or cannot be reported on yet), and it goes
// on watching. Never before
// onLimit: a resident set past both marks at one look (the watchdog slept
// on a loaded host) is first a stop. Both are called on the watchdog's
// own goroutine. The REPL uses it to interrupt a statement.
func WatchMemory(limit uint64, every time.Duration, onLimit func(), onOverrun func() bool, done <-chan struct{}) {
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/stacks:bytes"},
	}
	rss := openRSS()
	if rss != nil {
		defer rss.close()
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	above := false // onLimit was called, and the memory has not gone below since
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		if n, ok := rss.read(); ok && above && n > limit+limit/2 && onOverrun != nil {
			if onOverrun() {
				return
			}
		}
		if memoryInUse(samples) <= limit {
			above = false
			continue
		}
		if above {
			continue
		}
		// Garbage counts until it is swept: collect, and look again.
		goruntime.GC()
		if memoryInUse(samples) <= limit {
			continue
		}
		above = true
		onLimit()
	}
}

// memoryError is the limit error of MaxMemory n.
func memoryError(n uint64) *runtime.LimitError {
	return &runtime.LimitError{What: "memory", Msg: MemoryLimitMessage(n)}
}

// MemoryLimitMessage is what a run stopped by --max-memory=n reports.
func MemoryLimitMessage(n uint64) string {
	s := FormatBytes(n)
	return fmt.Sprintf("memory limit of %s reached (--max-memory=%s)", s, s)
}

// FormatBytes writes a byte count as --max-memory takes it: in the largest
// binary unit (KiB, MiB, GiB, TiB) that divides it, or in bytes.
func FormatBytes(n uint64) string {
	units := []string{"TiB", "GiB", "MiB", "KiB"}
	for i, u := range units {
		size := uint64(1) << (10 * (len(units) - i))
		if n >= size && n%size == 0 {
			return fmt.Sprintf("%d%s", n/size, u)
		}
	}
	return fmt.Sprintf("%dB", n)
}
