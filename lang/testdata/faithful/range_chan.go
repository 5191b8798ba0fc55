//go:build ignore

// range_chan: `for v := range ch` receives until ch is closed and drained.
// Two consumers range over one unbuffered channel, but c0 gets every value:
// each handoff readies the other side of the pair into runnext, so the
// producer and c0 keep trading the P while c1 waits in the ring; c1 first
// runs after the close and finds the channel closed.
// Decided by chan.go: chansend/chanrecv (direct handoff, goready),
// closechan; proc.go runqput(next=true), runqget (runnext first).
package main

import (
	"fmt"
	"strings"
	"sync"
)

var buf strings.Builder

// out records one line; everything is printed once at the end of main so
// that writing to stdout is never a scheduling point.
func out(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }

var (
	wg sync.WaitGroup
	ch = make(chan int)
)

func consumer(i int) {
	for v := range ch {
		out("c %d got %d", i, v)
	}
	out("c %d done", i)
	wg.Done()
}

func producer() {
	for v := 1; v <= 4; v++ {
		out("p sends %d", v)
		ch <- v
	}
	out("p closes")
	close(ch)
	wg.Done()
}

func main() {
	wg.Add(3)
	go consumer(0)
	go consumer(1)
	go producer() // runnext; ring: c0, c1
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
