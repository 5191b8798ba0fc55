//go:build ignore

// rwmutex_writer_preference: a writer waiting for the readers inside makes
// new readers queue behind it, although only readers hold the lock. The
// last reader out lets the writer in; the writer's Unlock releases the
// queued readers in the order they came, each readied into runnext, so the
// last one released runs first.
// Decided by sync/rwmutex.go: RLock, RUnlock (rUnlockSlow), Lock, Unlock;
// sema.go: semrelease1 (goready into runnext).
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

var rw sync.RWMutex

func writer() {
	rw.Lock()
	out("writer has the lock")
	rw.Unlock()
	out("writer unlocked")
}

func reader(name string) {
	rw.RLock()
	out("%s has the read lock", name)
	rw.RUnlock()
}

func main() {
	rw.RLock()
	out("main has the read lock")
	go writer()
	time.Sleep(100 * time.Millisecond)
	go reader("r1")
	time.Sleep(100 * time.Millisecond)
	go reader("r2")
	time.Sleep(100 * time.Millisecond)
	out("main unlocks its read lock")
	rw.RUnlock()
	time.Sleep(100 * time.Millisecond)
	fmt.Print(buf.String())
}
