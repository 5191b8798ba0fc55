package main

import (
	"runtime/debug"
	"testing"
)

// TestTuneGC checks that the sweep commands, and only they, get
// sweepGCPercent, and that a GOGC of the environment wins.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tc := range []struct {
		args []string
		env  string
		want int
	}{
		{[]string{"check", "x.star"}, "", sweepGCPercent},
		{[]string{"explore", "x.star"}, "", sweepGCPercent},
		{[]string{"lab", "x.star"}, "", sweepGCPercent},
		{[]string{"run", "x.star"}, "", 100},
		{[]string{"repl"}, "", 100},
		{nil, "", 100},
		{[]string{"check", "x.star"}, "100", 100},
	} {
		t.Setenv("GOGC", tc.env)
		debug.SetGCPercent(100)
		tuneGC(tc.args)
		if got := debug.SetGCPercent(100); got != tc.want {
			t.Errorf("GOGC=%q, schedlab %v: GC percent %d, want %d", tc.env, tc.args, got, tc.want)
		}
	}
}
