//go:build ignore

// chan_handoff: a send to a channel with a waiting receiver copies the value
// straight to the receiver and readies it into runnext, so R runs as soon as
// S is done, ahead of g0, which was queued long before.
// Decided by chan.go: chansend -> send (recvq.dequeue, direct copy) ->
// goready -> proc.go ready -> runqput(next=true).
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

func receiver() {
	out("r waits")
	v := <-ch
	out("r got %d", v)
	wg.Done()
}

func sender() {
	out("s sends 1")
	ch <- 1
	out("s sent 1")
	wg.Done()
}

func g(i int) {
	out("g %d", i)
	wg.Done()
}

func main() {
	wg.Add(4)
	go receiver()
	go sender()
	go g(0)
	go g(1) // runnext; ring: receiver, sender, g0
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
