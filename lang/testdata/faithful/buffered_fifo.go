//go:build ignore

// buffered_fifo: a buffered channel is a FIFO ring; a sender blocks only when
// it is full. A receive from a full buffer with a parked sender takes the
// head and moves the sender's value into the freed tail slot, then readies
// the sender into runnext (it runs after the receiver blocks). A send to a
// parked receiver bypasses the (empty) buffer.
// Decided by chan.go: chansend (buffer, then gopark on sendq), chanrecv ->
// recv (full-buffer case) -> goready; proc.go runqput(next=true).
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
	ch   = make(chan int, 3)
	done = make(chan bool)
)

func consumer() {
	for v := range ch {
		out("recv %d, len %d", v, len(ch))
	}
	out("consumer done")
	done <- true
}

func main() {
	go consumer()
	for i := 1; i <= 5; i++ {
		out("send %d, len %d", i, len(ch))
		ch <- i
	}
	out("close")
	close(ch)
	<-done
	out("main done")
	fmt.Print(buf.String())
}
