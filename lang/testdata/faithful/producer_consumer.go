//go:build ignore

// producer_consumer: two producers fill a 2-slot buffer, one consumer drains
// it, and a closer closes the channel once both producers are done. Who runs
// when follows from the channel rules alone: a producer runs until the
// buffer is full and parks on sendq; each receive from a full buffer pulls
// the head sender's value in behind it and readies that sender into
// runnext, kicking the previous runnext to the ring.
// Decided by chan.go: chansend, chanrecv -> recv, closechan;
// sync/waitgroup.go + sema.go for the closer; proc.go runqput(next=true).
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
	items = make(chan int, 2)
	pwg   sync.WaitGroup
	done  = make(chan bool)
)

func producer(p int) {
	for i := 0; i < 3; i++ {
		v := 10*p + i
		out("p %d sends %d", p, v)
		items <- v
	}
	out("p %d done", p)
	pwg.Done()
}

func consumer() {
	for v := range items {
		out("c got %d", v)
	}
	out("c done")
	done <- true
}

func closer() {
	pwg.Wait()
	out("closer closes")
	close(items)
}

func main() {
	pwg.Add(2)
	go consumer()
	go closer()
	go producer(1)
	go producer(2) // runnext; ring: consumer, closer, p1
	<-done
	out("main done")
	fmt.Print(buf.String())
}
