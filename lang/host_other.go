//go:build !js

// Elsewhere the host's scheduler preempts the run's goroutine by itself:
// the wall-clock limit's timer fires on time without help (host_js.go).

package lang

// The run never yields to the host's scheduler.
const (
	hostYields     = false
	hostYieldEvery = 1
)

func hostYield() {}
