//go:build ignore

// mutex_handoff: goroutines that block in Lock queue on the mutex's
// semaphore in FIFO order; each Unlock wakes the head waiter into runnext
// (no spinning with one P), and the woken one takes the lock because nobody
// else wants it. They get the lock in the order they parked: g3 g0 g1 g2.
// Decided by internal/sync/mutex.go: lockSlow (runtime_SemacquireMutex,
// FIFO on first wait), unlockSlow (runtime_Semrelease, handoff=false);
// sema.go: semrelease1 -> readyWithTime -> goready; proc.go
// runqput(next=true). main parks itself with Gosched (goschedImpl), after
// sync61 so the 61-tick check cannot pick main early.
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
	wg sync.WaitGroup
	mu sync.Mutex
)

func g(i int) {
	out("g %d locks", i)
	mu.Lock()
	out("g %d holds", i)
	mu.Unlock()
	wg.Done()
}

func main() {
	sync61()
	mu.Lock()
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go g(i)
	}
	runtime.Gosched() // all four block in Lock, then main comes back
	out("main unlocks")
	mu.Unlock()
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
