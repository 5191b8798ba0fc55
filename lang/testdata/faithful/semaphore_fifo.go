//go:build ignore

// semaphore_fifo: golang.org/x/sync/semaphore serves its waiters in FIFO
// order: a request at the head that does not fit holds back smaller ones
// behind it, even when they would fit. A Release that serves several
// waiters closes their ready channels in queue order, each readying its
// goroutine into runnext, so the last one served runs first.
// Decided by x/sync/semaphore: Acquire, Release, notifyWaiters; chan.go:
// closechan (goready).
package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sync/semaphore"
)

var buf strings.Builder

// out records one line; everything is printed once at the end of main so
// that writing to stdout is never a scheduling point.
func out(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }

var (
	ctx = context.Background()
	sem = semaphore.NewWeighted(3)
)

func want(name string, n int64) {
	sem.Acquire(ctx, n)
	out("%s acquired %d", name, n)
}

func main() {
	sem.Acquire(ctx, 2)
	out("main holds 2")
	go want("big", 3)
	time.Sleep(100 * time.Millisecond)
	go want("small", 1)
	time.Sleep(100 * time.Millisecond)
	out("try 1: %v", sem.TryAcquire(1))
	out("release 2")
	sem.Release(2)
	time.Sleep(100 * time.Millisecond)
	out("release 3")
	sem.Release(3)
	time.Sleep(100 * time.Millisecond)
	sem.Acquire(ctx, 2)
	out("main holds 2 more")
	for _, name := range []string{"a", "b", "c"} {
		go want(name, 1)
	}
	time.Sleep(100 * time.Millisecond)
	out("release 3")
	sem.Release(3)
	time.Sleep(100 * time.Millisecond)
	fmt.Print(buf.String())
}
