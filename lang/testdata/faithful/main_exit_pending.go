//go:build ignore

// main_exit_pending: when main returns the program exits at once; goroutines
// still runnable never run. g2 (runnext) runs and readies main into runnext
// by sending to it, so main runs next and returns while g0 and g1 are still
// in the ring: their lines never appear.
// Decided by proc.go: main (exit(0) right after main_main returns),
// runqput(next=true); chan.go: send -> goready.
package main

import (
	"fmt"
	"strings"
)

var buf strings.Builder

// out records one line; everything is printed once at the end of main so
// that writing to stdout is never a scheduling point.
func out(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }

var started = make(chan int)

func g(i int) {
	out("g %d runs", i)
	if i == 2 {
		started <- i
	}
	out("g %d ends", i)
}

func main() {
	for i := 0; i < 3; i++ {
		go g(i)
	}
	v := <-started
	out("main got %d and returns", v)
	fmt.Print(buf.String())
}
