//go:build ignore

// select_ready: with exactly one ready case, select takes it without
// blocking (the random poll order only matters when several are ready).
// With none ready, select enqueues the goroutine on every case's channel
// and parks; the first channel operation on any of them wins, dequeues it
// from the others and readies it into runnext.
// Decided by select.go: selectgo (pass 1 - look for something already
// waiting; pass 2 - enqueue on all chans; pass 3 - dequeue from unsuccessful
// chans); chan.go: send -> goready; proc.go runqput(next=true).
package main

import (
	"fmt"
	"strings"
)

var buf strings.Builder

// out records one line; everything is printed once at the end of main so
// that writing to stdout is never a scheduling point.
func out(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }

var (
	a = make(chan int, 1)
	b = make(chan int, 1)
	c = make(chan int)
)

func sender() {
	out("sender sends 3 on c")
	c <- 3
	out("sender sent")
}

func main() {
	// One ready receive case.
	b <- 1
	select {
	case v := <-a:
		out("a %d", v)
	case v := <-b:
		out("b %d", v)
	}

	// One ready send case: a has room, c has no receiver.
	select {
	case a <- 2:
		out("sent 2 on a")
	case c <- 2:
		out("sent 2 on c")
	}

	// Nothing ready: main parks on b and c until sender hands 3 over on c.
	go sender()
	select {
	case v := <-b:
		out("b %d", v)
	case v := <-c:
		out("c %d", v)
	}
	out("a holds %d", <-a)
	fmt.Print(buf.String())
}
