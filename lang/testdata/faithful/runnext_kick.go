//go:build ignore

// runnext_kick: a goroutine spawned by a running goroutine jumps ahead of
// everything already queued (it takes runnext), and a second spawn kicks the
// first one out of runnext to the *tail* of the ring, behind g0 and g1.
// Decided by proc.go: runqput(next=true) ("Kick the old runnext out to the
// regular run queue"), runqget (runnext first).
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

func h(i int) {
	out("h %d", i)
	wg.Done()
}

func g(i int) {
	out("g %d", i)
	if i == 2 {
		wg.Add(2)
		go h(1) // runnext
		go h(2) // runnext; h1 kicked behind g0, g1
		out("g 2 spawned h 1 and h 2")
	}
	wg.Done()
}

func main() {
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go g(i)
	}
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
