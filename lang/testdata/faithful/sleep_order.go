//go:build ignore

// sleep_order: sleeping goroutines wake in deadline order, whatever order
// they went to sleep in. Each Sleep arms a timer in the P's timer heap; when
// the P has nothing to run it waits for the earliest deadline, runs the
// expired timer, and the timer's function goready's the sleeper into runnext.
// (The deadlines are 100ms apart so that a late wake-up on a loaded machine
// cannot expire two of them in one check; see sleep_same_deadline.)
// Decided by time.go: timeSleep, timers.check / timers.run (heap ordered by
// when), goroutineReady -> goready; proc.go findRunnable (timers, then
// blocking netpoll until the next deadline).
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

var wg sync.WaitGroup

func sleeper(name string, d time.Duration) {
	out("%s sleeps %v", name, d)
	time.Sleep(d)
	out("%s wakes", name)
	wg.Done()
}

func main() {
	wg.Add(3)
	go sleeper("a", 300*time.Millisecond)
	go sleeper("b", 100*time.Millisecond)
	go sleeper("c", 200*time.Millisecond) // runnext; ring: a, b
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
