//go:build ignore

// trace.go is built together with a copy of a corpus program by
// startup.sh, in place of probe.go: it starts runtime/trace in the main
// package's init (the earliest point user code runs: after runtime.main's
// doInit(runtime_inittasks) and gcenable, before main.main), marks the
// probe points with trace.Log, and stops the trace before the program
// prints its outcome. The trace goes to $PROBE_TRACE.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/trace"
)

var probeFile *os.File

func init() {
	f, err := os.Create(os.Getenv("PROBE_TRACE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		os.Exit(3)
	}
	probeFile = f
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		os.Exit(3)
	}
}

var probeNames = [...]string{"s0", "s1", "s2", "s3"}

// probeAt marks probe point i in the trace.
func probeAt(i int) { trace.Log(context.Background(), "probe", probeNames[i]) }

// probePrintln stops the trace and prints the program's outcome.
func probePrintln(args ...any) {
	trace.Stop()
	probeFile.Close()
	fmt.Println(args...)
}
