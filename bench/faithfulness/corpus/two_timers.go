//go:build ignore

// two_timers: main arms two 1ms timers (time.AfterFunc), A then B, and
// burns 1ms of CPU. Outcome: the order in which A, B and main finished.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

var (
	next  atomic.Int32
	order [3]string
)

func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

func done(name string, wg *sync.WaitGroup) {
	order[next.Add(1)-1] = name
	wg.Done()
}

func main() {
	var wg sync.WaitGroup
	wg.Add(3)
	time.AfterFunc(time.Millisecond, func() { done("A", &wg) })
	time.AfterFunc(time.Millisecond, func() { done("B", &wg) })
	spin(time.Millisecond)
	done("M", &wg)
	wg.Wait()
	fmt.Println(order[0] + order[1] + order[2])
}
