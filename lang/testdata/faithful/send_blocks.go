//go:build ignore

// send_blocks: an unbuffered send with no receiver parks the sender on the
// channel's sendq; the receiver that arrives later takes the value directly
// from the parked sender and readies it into runnext, so the sender resumes
// before x, which was queued ahead of it.
// Decided by chan.go: chansend (gopark on sendq), chanrecv -> recv
// (sendq.dequeue) -> goready -> proc.go runqput(next=true).
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
	out("r receives")
	v := <-ch
	out("r got %d", v)
	wg.Done()
}

func bystander() {
	out("x runs")
	wg.Done()
}

func sender() {
	out("s sends 7")
	ch <- 7
	out("s sent 7")
	wg.Done()
}

func main() {
	wg.Add(3)
	go receiver()
	go bystander()
	go sender() // runnext; ring: receiver, bystander
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
