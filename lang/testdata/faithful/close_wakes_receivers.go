//go:build ignore

// close_wakes_receivers: closechan dequeues every parked receiver in recvq
// (FIFO) but pushes each onto a gList, which is a stack, then pops and
// goready's them one by one; each goready takes runnext and kicks the
// previous one to the ring. Receivers parked in the order r3 r0 r1 r2 are
// readied r2 r1 r0 r3, so they run r3 r2 r1 r0: the first to park runs
// first, the rest in reverse.
// Decided by chan.go: closechan (glist.push / glist.pop, goready);
// proc.go runqput(next=true).
package main

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

var buf strings.Builder

// out records one line; everything is printed once at the end of main so
// that writing to stdout is never a scheduling point.
func out(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }

var (
	wg sync.WaitGroup
	ch = make(chan int)
)

func receiver(i int) {
	out("r %d waits", i)
	_, ok := <-ch
	if !ok {
		out("r %d sees closed", i)
	}
	wg.Done()
}

func main() {
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go receiver(i)
	}
	time.Sleep(100 * time.Millisecond) // all four park on ch
	out("main closes")
	close(ch)
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
