//go:build ignore

// mutex_barging: sync.Mutex is not a FIFO handoff in normal mode. Unlock
// wakes the waiter w (into runnext) but does not give it the lock; main,
// still running, locks again at once and wins. When w finally runs it finds
// the mutex free only because main unlocked a second time. (Starvation mode,
// after a waiter has waited 1ms, would hand the lock over instead; this
// program never waits that long.)
// Decided by internal/sync/mutex.go: unlockSlow (sets mutexWoken,
// runtime_Semrelease with handoff=false), lockSlow (a non-woken locker takes
// an unlocked mutex even with waiters); sema.go: semrelease1.
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
	done = make(chan bool)
	mu   sync.Mutex
)

func w() {
	out("w locks")
	mu.Lock()
	out("w holds")
	mu.Unlock()
	done <- true
}

func main() {
	sync61()
	mu.Lock()
	go w()
	runtime.Gosched() // w blocks in Lock, then main comes back
	out("main unlocks")
	mu.Unlock() // w is readied, but does not own the mutex
	mu.Lock()   // main barges in before w runs
	out("main holds again")
	mu.Unlock()
	out("main unlocks again")
	<-done
	out("main done")
	fmt.Print(buf.String())
}
