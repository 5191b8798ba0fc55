//go:build ignore

// fairness61: a goroutine on the global queue gets in ahead of the local
// queue on every 61st schedtick, but schedtick only counts Gs taken from the
// ring: a G taken from runnext inherits the time slice and does not tick.
// Phase 1: y yields to the global queue while a chain of 100 goroutines,
// each spawning the next into runnext, holds the P; the 61-tick check never
// fires and y resumes only after the whole chain. Phase 2: y yields while
// 100 goroutines wait in the ring; with schedtick at 1 mod 61 (sync61), y
// resumes after exactly 60 of them.
// Decided by proc.go: goschedImpl -> globrunqput; findRunnable
// (pp.schedtick%61 == 0 -> globrunqget); runqget (inheritTime for runnext);
// execute (schedtick++ only when !inheritTime).
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

var (
	wg  sync.WaitGroup
	ran int // goroutines of the current phase that have run
)

func yielder(phase int) {
	out("phase %d: y yields", phase)
	runtime.Gosched()
	out("phase %d: y resumes after %d", phase, ran)
	wg.Done()
}

func link(i int) {
	ran++
	if i < 100 {
		go link(i + 1)
	}
	wg.Done()
}

func worker() {
	ran++
	wg.Done()
}

func main() {
	sync61()
	ran = 0
	wg.Add(101)
	go link(1)
	go yielder(1) // runnext; ring: link 1
	wg.Wait()

	sync61()
	ran = 0
	wg.Add(101)
	for i := 0; i < 100; i++ {
		go worker()
	}
	go yielder(2) // runnext; ring: 100 workers
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
