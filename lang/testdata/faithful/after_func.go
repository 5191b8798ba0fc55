//go:build ignore

// after_func: time.AfterFunc runs its function in a goroutine of its own,
// started by the timer when it fires. Stop before it fires reports true
// and nothing runs; Reset after it fired reports false and it runs again.
// Decided by time/sleep.go: AfterFunc, goFunc; time.go: stop, modify.
package main

import (
	"fmt"
	"strings"
	"time"
)

var buf strings.Builder

// out records one line; everything is printed once at the end of main so
// that writing to stdout is never a scheduling point.
func out(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }

func main() {
	never := time.AfterFunc(time.Hour, func() { out("never runs") })
	out("stop before it fires: %v", never.Stop())

	done := make(chan bool)
	n := 0
	t := time.AfterFunc(100*time.Millisecond, func() {
		n++
		out("f runs, time %d", n)
		done <- true
	})
	out("main waits")
	<-done
	out("reset after it fired: %v", t.Reset(100*time.Millisecond))
	<-done
	out("stop after it fired: %v", t.Stop())
	fmt.Print(buf.String())
}
