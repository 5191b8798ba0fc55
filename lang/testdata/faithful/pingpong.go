//go:build ignore

// pingpong: two goroutines that hand control back and forth over unbuffered
// channels keep readying each other into runnext; a G taken from runnext
// inherits the time slice, so the pair runs all five rounds while x, queued
// in the ring since the start, waits (only sysmon's 10ms preemption would
// break in).
// Decided by chan.go: send/recv -> goready -> proc.go runqput(next=true);
// runqget returns inheritTime=true for runnext; execute.
package main

import (
	"fmt"
	"strings"
	"sync"
)

var buf strings.Builder

// out records one line; everything is printed once at the end of main so
// that writing to stdout is never a scheduling point.
func out(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }

var (
	wg   sync.WaitGroup
	ping = make(chan int)
	pong = make(chan int)
)

func bystander() {
	out("x runs")
	wg.Done()
}

func ponger() {
	for i := 0; i < 5; i++ {
		v := <-ping
		out("pong %d", v)
		pong <- v
	}
	wg.Done()
}

func main() {
	wg.Add(2)
	go bystander()
	go ponger() // runnext; ring: bystander
	for i := 1; i <= 5; i++ {
		ping <- i
		v := <-pong
		out("ping %d", v)
	}
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
