//go:build ignore

// timer_run_on_spot: since Go 1.23 a timer channel's timer is on a heap
// only while a goroutine is blocked on it. One whose deadline passed while
// nobody waited is run on the spot by the select or receive that looks at
// it: a select with default sees the value, and a receive does not park
// (so the goroutine in runnext does not get to run first).
// Decided by chan.go: chanrecv (c.timer.maybeRunChan); select.go: selectgo
// (maybeRunChan for every timer case); time.go: maybeRunChan, needsAdd.
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

// spin burns d of CPU without a scheduling point.
func spin(d time.Duration) {
	start := time.Now()
	for time.Since(start) < d {
	}
}

func main() {
	go func() { out("the goroutine in runnext runs") }()
	c := time.After(time.Millisecond)
	spin(3 * time.Millisecond)
	select {
	case <-c:
		out("select sees the expired timer")
	default:
		out("select takes default")
	}
	c2 := time.After(time.Millisecond)
	spin(3 * time.Millisecond)
	<-c2
	out("the receive did not park")
	time.Sleep(100 * time.Millisecond)
	fmt.Print(buf.String())
}
