//go:build unix

package cputime

import "testing"

// Process grows while the process works.
func TestProcessGrows(t *testing.T) {
	start := Process()
	x := 0
	for i := 0; Process()-start <= 0 && i < 1e10; i++ {
		x += i
	}
	if Process() <= start {
		t.Errorf("the CPU time did not grow: %v, then %v (%d)", start, Process(), x)
	}
}
