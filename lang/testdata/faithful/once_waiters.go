//go:build ignore

// once_waiters: the first Do runs f holding Once's mutex; a second Do while
// f runs waits on that mutex (sync.Mutex.Lock), and the Unlock that ends
// the first Do readies it into runnext; it returns without calling f.
// Decided by sync/once.go: Do, doSlow; sync/mutex.go: lockSlow,
// unlockSlow.
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

var once sync.Once

func setup() {
	out("setup starts")
	time.Sleep(100 * time.Millisecond)
	out("setup ends")
}

func user(i int) {
	once.Do(setup)
	out("u%d after Do", i)
}

func main() {
	go user(0)
	go user(1)
	time.Sleep(300 * time.Millisecond)
	once.Do(setup)
	out("main after Do")
	fmt.Print(buf.String())
}
