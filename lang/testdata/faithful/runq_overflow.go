//go:build ignore

// runq_overflow: spawning 300 goroutines without blocking overflows the
// 256-slot local ring. When g257 kicks g256 out of runnext into a full ring,
// runqputslow moves the ring's older half (g0..g127) plus g256 to the global
// queue. Blocking then runs g299 (runnext), then the ring (g128..g255,
// g257..g298), except that on every 61st schedtick findRunnable takes one G
// from the global queue first (g0 after 60 ring picks, g1 after 60 more);
// once the ring is empty, globrunqgetbatch moves the rest of the global
// queue (up to 128) into the ring.
// Decided by proc.go: runqput, runqputslow, findRunnable (schedtick%61),
// globrunqget, globrunqgetbatch, runqputbatch, execute (schedtick++ unless
// the G came from runnext). sync61 fixes schedtick mod 61 first.
package main

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
)

var buf strings.Builder

// out records one line; everything is printed once at the end of main so
// that writing to stdout is never a scheduling point.
func out(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }

// sync61 brings this P's schedtick to 1 (mod 61), so that the next
// "every 61st schedtick, check the global queue first" (findRunnable) is
// exactly 60 run-queue picks away. The real runtime starts main.main at a
// schedtick that varies from run to run; see README.md. sync61 prints nothing.
//
// 64 fillers go to the local queue and main goes to the global queue
// (Gosched); main comes back through the 61-tick check, which leaves
// schedtick at 61k+1. Every filler that then runs from the ring (not from
// runnext) adds one tick, and each further Gosched adds one more.
func sync61() {
	const n = 64
	ran, after, synced := 0, 0, false
	done := make(chan bool)
	for i := 0; i < n; i++ {
		go func() {
			ran++
			if synced {
				after++
			}
			if ran == n {
				done <- true
			}
		}()
	}
	runtime.Gosched()
	synced = true
	before := ran
	<-done // the last filler readies main into runnext: no tick
	m := after
	if before == 0 {
		m-- // the runnext filler ran after main and took no tick
	}
	for k := (61 - m%61) % 61; k > 0; k-- {
		runtime.Gosched()
	}
}

var wg sync.WaitGroup

func g(i int) {
	out("g %d", i)
	wg.Done()
}

func main() {
	// Warm-up, prints nothing: 300 goroutines that exit at once leave 300
	// dead Gs with stacks on the free lists (gfput), so the spawn loop
	// below reuses them (gfget) instead of allocating stacks. That loop then
	// takes microseconds instead of milliseconds, far from sysmon's 10ms
	// forced preemption, which would otherwise push main to the global
	// queue mid-loop on a busy machine.
	for i := 0; i < 300; i++ {
		wg.Add(1)
		go func() { wg.Done() }()
	}
	wg.Wait()

	sync61()
	for i := 0; i < 300; i++ {
		wg.Add(1)
		go g(i)
	}
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
