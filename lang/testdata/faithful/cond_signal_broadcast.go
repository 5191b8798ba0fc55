//go:build ignore

// cond_signal_broadcast: Signal wakes the waiter that has waited longest
// (the oldest ticket); Broadcast readies every other waiter in the order
// they began to wait, each into runnext, so the last of them runs first
// and the others follow from the ring in order.
// Decided by sync/cond.go: Wait, Signal, Broadcast; sema.go:
// notifyListAdd, notifyListWait, notifyListNotifyOne, notifyListNotifyAll.
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

var mu sync.Mutex
var c = sync.NewCond(&mu)

func waiter(i int) {
	mu.Lock()
	out("w%d waits", i)
	c.Wait()
	out("w%d wakes", i)
	mu.Unlock()
}

func main() {
	for i := 0; i < 4; i++ {
		go waiter(i)
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	out("signal")
	c.Signal()
	mu.Unlock()
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	out("broadcast")
	c.Broadcast()
	mu.Unlock()
	time.Sleep(100 * time.Millisecond)
	fmt.Print(buf.String())
}
