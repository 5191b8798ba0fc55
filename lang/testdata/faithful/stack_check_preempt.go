//go:build ignore

// stack_check_preempt: with asynchronous preemption off (Go before 1.14,
// or Go 1.26 with GODEBUG=asyncpreemptoff=1), sysmon still asks a
// goroutine that has held its P for 10ms to yield (retake -> preemptone
// sets gp.preempt and stackguard0 = stackPreempt), but only the stack
// check in the prologue of the next function it calls honours the request
// (morestack -> newstack -> gopreempt_m -> goschedImpl: to the global
// queue). main loops 300,000 times over i = f(i), where f, not inlined and
// not a leaf, has that check: other, waiting in runnext, runs during the
// loop, soon after 10ms (10.3-10.6ms measured in Go, 11.2ms in schedlab:
// sysmon's tick). Then main burns CPU in a loop without calls: other2
// runs only after the loop.
// Decided by proc.go: sysmon -> retake -> preemptone; stack.go: newstack
// ("if preempt { ... gopreempt_m(gp) }"); preempt.go's comment on
// synchronous preemption at function prologues.
package main

import (
	"fmt"
	"strings"
)

var buf strings.Builder

// out records one line; everything is printed once at the end of main so
// that writing to stdout is never a scheduling point.
func out(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }

const (
	n     = 300000    // the loop of calls: about 25ms
	spins = 100000000 // the loop without calls: about 200ms
)

var (
	i, counter, sink int
)

//go:noinline
func step(x int) int { return x + 1 }

// f computes for about 80ns and calls step, so it is not a leaf: its
// prologue checks the stack bound, where a preemption request shows.
//
//go:noinline
func f(x int) int {
	s := x
	for k := 0; k < 60; k++ {
		s = s*31 + k
	}
	sink += s
	return step(x)
}

// other reports how far main's loop of calls had got when it ran.
func other(done chan int) {
	at := i
	done <- at
}

// other2 reports how far main's loop without calls had got when it ran.
func other2(done chan int) {
	at := counter
	done <- at
}

func main() {
	done := make(chan int)
	go other(done) // runnext: runs when main is preempted or blocks
	for i < n {
		i = f(i)
	}
	if at := <-done; at < n {
		out("other ran during the loop of calls")
	} else {
		out("other ran after the loop of calls")
	}

	go other2(done)
	for counter = 0; counter < spins; counter++ {
		sink += counter
	}
	if at := <-done; at < spins {
		out("other2 ran during the loop without calls")
	} else {
		out("other2 ran after the loop without calls")
	}
	out("main done")
	fmt.Print(buf.String())
}
