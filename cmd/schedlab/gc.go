package main

import (
	"os"
	"runtime/debug"
)

// sweepGCPercent is this process's own GOGC for the commands that do
// thousands of short runs one after another: check, explore and lab.
// Each run builds an engine, a few MB at most, and throws it away, so the
// live heap is small and Go's default of 100 collects every few MB: on a
// check walk of 60,000 schedules, 294 collections on two workers. At 200
// the walk takes 17% less CPU on one worker and 28% less on two, for a
// peak of 27 and 83 MiB instead of 23 and 39 (docs/performance.md,
// "The host's GOGC for sweeps"). It changes no output: the host's
// collector is not the modelled one, which --gogc sets.
const sweepGCPercent = 200

// sweepCommands are the commands whose process gets sweepGCPercent.
var sweepCommands = map[string]bool{"check": true, "explore": true, "lab": true}

// tuneGC sets the process's GOGC to sweepGCPercent when it runs one of
// sweepCommands and the environment does not set GOGC itself, which
// always wins.
func tuneGC(args []string) {
	if len(args) > 0 && sweepCommands[args[0]] && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(sweepGCPercent)
	}
}
