//go:build ignore

// select_timeout: time.After gives a channel that a timer fills at the
// deadline (a synchronous, unbuffered timer channel since Go 1.23); a select
// on it and a slow channel takes whichever becomes ready first. The first
// select times out at 100ms, the second gets the value sent at 400ms before
// its 1s timeout. (The gaps are wide so that a late wake-up of a loaded
// machine cannot fire two timers in one check.)
// Decided by select.go: selectgo; time.go: timer.unlockAndRun (sends on the
// channel, readying the select waiter); proc.go findRunnable (timers).
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

var ch = make(chan int, 1)

func slow() {
	time.Sleep(400 * time.Millisecond)
	out("slow sends 42")
	ch <- 42
}

func main() {
	go slow()
	select {
	case v := <-ch:
		out("got %d", v)
	case <-time.After(100 * time.Millisecond):
		out("timeout after 100ms")
	}
	select {
	case v := <-ch:
		out("got %d", v)
	case <-time.After(time.Second):
		out("timeout after 1s")
	}
	fmt.Print(buf.String())
}
