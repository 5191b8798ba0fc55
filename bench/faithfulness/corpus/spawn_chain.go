//go:build ignore

// spawn_chain: main spawns A and then burns 50µs; A spawns B and records
// itself; B records itself. main records itself after its burn. Outcome:
// the order of the three records.
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

func record(s string) { order[next.Add(1)-1] = s }

func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

func main() {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		go func() {
			record("B")
			wg.Done()
		}()
		record("A")
		wg.Done()
	}()
	spin(50 * time.Microsecond)
	record("M")
	wg.Wait()
	fmt.Println(order[0] + order[1] + order[2])
}
