//go:build ignore

// sleep_same_deadline: goroutines that sleep for the same duration expire in
// one timers.check run: their deadlines differ by the microsecond or so
// between their Sleep calls, and the idle P, blocked in netpoll with an
// epoll timeout in whole milliseconds, wakes up after all three have
// expired. (In schedlab's virtual time the deadlines are equal, and the tie
// must go to the timer set first, as the real deadlines do.) The timers run in deadline order, s0 s1 s2, and each
// goready takes runnext and kicks the previous one to the ring: s2 wakes
// first, then s0, s1.
// Decided by time.go: timers.run (in when order), goroutineReady -> goready;
// proc.go ready -> runqput(next=true).
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

func sleeper(i int) {
	out("s %d sleeps", i)
	time.Sleep(10 * time.Millisecond)
	out("s %d wakes", i)
	wg.Done()
}

func main() {
	wg.Add(3)
	go sleeper(1)
	go sleeper(2)
	go sleeper(0) // runnext: sleeps first; then s1, s2
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
