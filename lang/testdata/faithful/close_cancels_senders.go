//go:build ignore

// close_cancels_senders: closing a channel that has parked senders would
// make them panic (send on closed channel), so blocked senders are woken the
// usual way instead: each sends in a select that also receives from a done
// channel, and close(done) wakes them all through that receive case. Each
// select waiter sits in done's recvq, and closechan readies them through its
// gList stack: parked p2 p0 p1, readied p1 p0 p2, run p2 p1 p0.
// Decided by chan.go: closechan (glist.push / glist.pop, goready);
// select.go: selectgo (pass 2 enqueues on every case, pass 3 dequeues).
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
	wg      sync.WaitGroup
	results = make(chan int) // nobody ever receives
	done    = make(chan struct{})
)

func producer(i int) {
	out("p %d sends", i)
	select {
	case results <- i:
		out("p %d sent", i)
	case <-done:
		out("p %d cancelled", i)
	}
	wg.Done()
}

func main() {
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go producer(i)
	}
	time.Sleep(100 * time.Millisecond) // all three park in select
	out("main closes done")
	close(done)
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
