//go:build ignore

// runnext_order: a spawned goroutine goes into its P's runnext slot and the
// one it replaces is kicked to the tail of the local run queue, so after
// spawning g0..g9 and blocking, g9 runs first and then g0..g8 in FIFO order.
// Decided by proc.go: newproc -> runqput(pp, newg, next=true); runqget takes
// runnext before the ring.
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

var wg sync.WaitGroup

func g(i int) {
	out("g %d", i)
	wg.Done()
}

func main() {
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go g(i)
	}
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
