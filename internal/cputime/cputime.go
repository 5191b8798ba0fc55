// Package cputime reads the CPU time the process has used, for
// benchmarks and tests that report it beside wall time: on a shared
// machine wall time also counts the time spent waiting for a CPU that
// another process held, and CPU time does not.
//
// It imports nothing of schedlab.
package cputime
