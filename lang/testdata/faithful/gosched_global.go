//go:build ignore

// gosched_global: runtime.Gosched puts the caller on the *global* run queue,
// which is only looked at when the local queue is empty (or on every 61st
// schedtick). A yields first, yet B's children, spawned after A yielded, all
// run before A resumes. Had Gosched used the local queue, A would have run
// between b 2 and b 1.
// Decided by proc.go: goschedImpl -> globrunqput; findRunnable (local runq
// before global runq); sync61 keeps the 61-tick check out of the way.
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

func a() {
	out("a yields")
	runtime.Gosched()
	out("a resumes")
	wg.Done()
}

func child(i int) {
	out("b %d", i)
	wg.Done()
}

func b() {
	out("b spawns 1 and 2")
	wg.Add(2)
	go child(1)
	go child(2)
	wg.Done()
}

func main() {
	sync61()
	wg.Add(2)
	go b()
	go a() // runnext
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
