//go:build ignore

// sleep_vs_spin: goroutine S sleeps 1ms while goroutine W burns 1ms of CPU.
// Outcome: which finished first.
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

func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

func main() {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		time.Sleep(time.Millisecond)
		order[next.Add(1)-1] = "S"
		wg.Done()
	}()
	go func() {
		spin(time.Millisecond)
		order[next.Add(1)-1] = "W"
		wg.Done()
	}()
	wg.Wait()
	fmt.Println(order[0] + order[1])
}
