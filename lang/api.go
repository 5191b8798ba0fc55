package lang

import (
	"io"
	"time"

	"github.com/schedlab/schedlab/runtime"
)

// Options configure one run of a script.
type Options struct {
	Procs   int    // GOMAXPROCS at start (--procs); 0 means 1
	Seed    uint64 // the run's one PRNG (--seed)
	Preempt bool   // sysmon preemption on (--preempt=on, the default)

	Stdout io.Writer // the program's print output
	Stderr io.Writer // panics, deadlock reports, the end-of-run summary

	// Tracer, if not nil, receives every scheduling event. When
	// PrintsInTrace is set, print() output is sent to the tracer only (as
	// runtime.EvPrint events, which the text trace writes inline) and not
	// to Stdout, so that trace and output interleave in one stream.
	Tracer        runtime.Tracer
	PrintsInTrace bool

	// Limits; zero means none.
	MaxSteps      uint64        // Starlark steps over all goroutines (--max-steps)
	MaxGoroutines int           // goroutines alive at once (--max-goroutines)
	MaxTime       int64         // virtual ns (--max-time)
	Timeout       time.Duration // wall-clock time (--timeout)
}

// Result is how a script run ended.
type Result struct {
	ExitCode int             // 0 when main returned, 2 for a panic, deadlock or limit, 1 for a load error
	Run      *runtime.Result // the engine's outcome; nil if the script never started
}
