package calibrate

import (
	"fmt"
	"strconv"
	"strings"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// The step cost: what one Starlark step stands for in Go.
//
// A schedlab script is the Starlark twin of a Go program, and its code
// should take the time the Go program's code takes. A Starlark step
// (thread.Steps, about one bytecode instruction) is not a Go instruction:
// `x = x + 1` is one Go statement of about a nanosecond, and half a dozen
// Starlark steps. So the step is calibrated by equivalent statements: for
// each kind of statement in stepKinds, the compiled Go loop's time per
// iteration, measured here on the monotonic clock, divided by the steps
// per iteration of the same loop in Starlark, counted exactly. A Starlark
// loop of n iterations then costs, in virtual time, what the Go loop
// costs in real time. The kinds are the statements the racy programs of
// a scheduling lesson are made of: a shared counter, a list slot, a dict
// entry, an append, a call, string formatting; the distribution is over
// kinds and repeated measurements, so the median is a typical statement's
// and the tails are the cheap and dear kinds.

// A stepKind is one statement, in Go and in Starlark.
type stepKind struct {
	star   string           // the Starlark statement, in a loop over i; x, a, d, s, t, c and inc are there
	kind   runtime.StepKind // the kind a profile charges such a step as (its step_ps_* cost)
	goLoop func(n int)      // n iterations of the Go statement
}

// The Go loops' state lives in package variables, so that the compiler
// keeps every load and store, as it must for memory another goroutine
// may read.
var (
	stepX int
	stepA = make([]int, 8)
	stepD = map[string]int{"k": 0}
	stepS []int
	stepT string
)

//go:noinline
func stepInc(v int) int { return v + 1 }

var stepKinds = []stepKind{
	{"x = x + 1", runtime.StepPlain, func(n int) {
		for range n {
			stepX = stepX + 1
		}
	}},
	{"a[i % 8] = a[i % 8] + 1", runtime.StepIndex, func(n int) {
		for i := range n {
			stepA[i%8] = stepA[i%8] + 1
		}
	}},
	{`d["k"] = d["k"] + 1`, runtime.StepMap, func(n int) {
		for range n {
			stepD["k"] = stepD["k"] + 1
		}
	}},
	{"s.append(i)", runtime.StepAppend, func(n int) {
		stepS = stepS[:0]
		for i := range n {
			stepS = append(stepS, i)
		}
	}},
	{"x = inc(x)", runtime.StepCall, func(n int) {
		for range n {
			stepX = stepInc(stepX)
		}
	}},
	{`t = "n%d" % i`, runtime.StepFormat, func(n int) {
		for i := range n {
			stepT = "n" + strconv.Itoa(i)
		}
		stepX += len(stepT) // read it: the compiler keeps every store
	}},
	// A cell is Starlark's stand-in for a variable that Go's goroutines
	// share (a function cannot assign a global): the Go it stands for is
	// the plain statement's.
	{"c[0] = c[0] + 1", runtime.StepCell, func(n int) {
		for range n {
			stepX = stepX + 1
		}
	}},
}

// stepIters is the number of iterations of one Go timing.
const stepIters = 20_000

// starSteps returns the Starlark steps per iteration of each kind, exactly:
// the steps of a loop of n iterations less those of an empty one, over n.
func starSteps() ([]float64, error) {
	var src strings.Builder
	src.WriteString("def inc(v):\n    return v + 1\n\n")
	for k, sk := range stepKinds {
		fmt.Fprintf(&src, "def loop%d(n):\n    x, a, d, s, t, c = 0, [0] * 8, {\"k\": 0}, [], \"\", [0]\n    for i in range(n):\n        %s\n\n", k, sk.star)
	}
	thread := &starlark.Thread{Name: "calibrate"}
	globals, err := starlark.ExecFileOptions(lang.FileOptions(), thread, "step.star", src.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("step calibration: %w", err)
	}
	const n = 1000
	out := make([]float64, len(stepKinds))
	for k := range stepKinds {
		fn := globals["loop"+strconv.Itoa(k)]
		steps := func(iters int) (uint64, error) {
			before := thread.ExecutionSteps()
			_, err := starlark.Call(thread, fn, starlark.Tuple{starlark.MakeInt(iters)}, nil)
			return thread.ExecutionSteps() - before, err
		}
		full, err := steps(n)
		if err != nil {
			return nil, fmt.Errorf("step calibration: %s: %w", stepKinds[k].star, err)
		}
		empty, err := steps(0)
		if err != nil {
			return nil, fmt.Errorf("step calibration: %s: %w", stepKinds[k].star, err)
		}
		out[k] = float64(full-empty) / n
	}
	return out, nil
}

// A StepKind is one kind of statement of the step's calibration: the
// statement, its Starlark steps per iteration, and the median over the
// rounds of its Go time over those steps, in picoseconds.
type StepKind struct {
	Statement string
	Steps     float64
	MedianPs  float64
}

// stepKindMedians splits measureSteps' samples (one per kind, round after
// round) by kind: each kind's median step in ps.
func stepKindMedians(samples, per []float64) []StepKind {
	out := make([]StepKind, len(stepKinds))
	for k, sk := range stepKinds {
		out[k] = StepKind{Statement: sk.star}
		if own := kindSamples(samples, k); len(own) > 0 {
			out[k].MedianPs = median(own) * 1000
		}
		if k < len(per) {
			out[k].Steps = per[k]
		}
	}
	return out
}

// kindSamples returns kind k's samples of measureSteps' (one per kind,
// round after round).
func kindSamples(samples []float64, k int) []float64 {
	var own []float64
	for i := k; i < len(samples); i += len(stepKinds) {
		own = append(own, samples[i])
	}
	return own
}

// measureSteps returns rounds samples per kind of the Go-equivalent cost
// of one Starlark step in ns, and the steps per iteration of each kind.
func measureSteps(rounds int) ([]float64, []float64, error) {
	per, err := starSteps()
	if err != nil {
		return nil, nil, err
	}
	var out []float64
	for r := range rounds + 1 {
		for k, sk := range stepKinds {
			t0 := now()
			sk.goLoop(stepIters)
			ns := float64(now()-t0) / stepIters
			if r > 0 { // the first round warms the caches up
				out = append(out, ns/per[k])
			}
		}
	}
	return out, per, nil
}
