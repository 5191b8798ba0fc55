//go:build ignore

// nested_spawn: every spawn lands in runnext of the spawning goroutine's P,
// so a child cuts ahead of its parent's siblings, and a later child kicks an
// earlier one to the tail of the ring. The order is depth-first for the last
// child and breadth-first (FIFO) for the kicked ones.
// Decided by proc.go: newproc -> runqput(next=true), runqget.
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

var wg sync.WaitGroup

// node spawns `fanout` children, each one level deeper, until depth 2.
func node(name string, depth int) {
	out("%s runs", name)
	if depth < 2 {
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go node(fmt.Sprintf("%s.%d", name, i), depth+1)
		}
	}
	out("%s ends", name)
	wg.Done()
}

func main() {
	wg.Add(2)
	go node("a", 0)
	go node("b", 0)
	wg.Wait()
	out("main done")
	fmt.Print(buf.String())
}
