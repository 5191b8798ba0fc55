//go:build js

// The host's scheduler on js/wasm (the playground's engine): one thread,
// no preemption. A goroutine runs until it blocks, so the timer of the
// wall-clock limit (--timeout) fires only when the run's goroutine gives
// the Go scheduler a turn. The run gives it one every hostYieldEvery
// Machine steps and whenever a Starlark step budget runs out
// (onMaxSteps), which a loop that never calls a builtin reaches too.

package lang

import goruntime "runtime"

// The run yields to the host's scheduler every hostYieldEvery Machine
// steps.
const (
	hostYields     = true
	hostYieldEvery = 1024
)

// hostYield gives the host's scheduler a turn.
func hostYield() { goruntime.Gosched() }
