//go:build ignore

// waitgroup_waiters: when the counter drops to zero, Done releases every
// waiter, one semrelease each, in the order they parked (sema queue FIFO);
// each release goready's into runnext and kicks the previous one, so the
// last waiter to park runs first, then the others in order. The Done caller
// keeps running until it blocks or exits.
// Decided by sync/waitgroup.go: Add (loop of runtime_Semrelease);
// sema.go: semrelease1 -> readyWithTime -> goready; proc.go runqput(next=true).
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
	wg  sync.WaitGroup // what the waiters wait for
	fin sync.WaitGroup // what main waits for
)

func waiter(i int) {
	out("w %d waits", i)
	wg.Wait()
	out("w %d wakes", i)
	fin.Done()
}

func doer(i int) {
	out("d %d done", i)
	wg.Done()
	out("d %d returns", i)
	fin.Done()
}

func main() {
	wg.Add(2)
	fin.Add(5)
	for i := 0; i < 3; i++ {
		go waiter(i)
	}
	go doer(0)
	go doer(1) // runnext; ring: w0 w1 w2 d0
	fin.Wait()
	out("main done")
	fmt.Print(buf.String())
}
