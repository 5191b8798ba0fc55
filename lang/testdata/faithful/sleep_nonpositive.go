//go:build ignore

// sleep_nonpositive: time.Sleep(d) with d <= 0 returns at once, without
// giving up the P, so a goroutine waiting in runnext does not run until
// main really sleeps.
// Decided by time.go: timeSleep (if ns <= 0 return).
package main

import (
	"fmt"
	"strings"
	"time"
)

var buf strings.Builder

// out records one line; everything is printed once at the end of main so
// that writing to stdout is never a scheduling point.
func out(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }

func g() { out("g runs") }

func main() {
	go g()
	time.Sleep(0)
	out("main after Sleep(0)")
	time.Sleep(-time.Second)
	out("main after Sleep(-1s)")
	time.Sleep(100 * time.Millisecond)
	out("main after Sleep(100ms)")
	fmt.Print(buf.String())
}
