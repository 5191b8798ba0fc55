//go:build ignore

// ready_vs_spin: main spawns X, which burns 20µs and then records itself,
// and R, which waits on an unbuffered channel and records itself. main then
// sends to R and waits. Outcome: which recorded first.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

var (
	next  atomic.Int32
	order [2]string
)

func record(s string) { order[next.Add(1)-1] = s }

func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

func main() {
	ch := make(chan int)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		spin(20 * time.Microsecond)
		record("X")
		wg.Done()
	}()
	go func() {
		<-ch
		record("R")
		wg.Done()
	}()
	ch <- 1
	wg.Wait()
	fmt.Println(order[0] + order[1])
}
