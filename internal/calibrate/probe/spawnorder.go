//go:build ignore

// The start-up probe of schedlab calibrate (internal/calibrate/startup.go):
// bench/faithfulness/corpus/spawn_order.go's main, timed. It prints how
// long each go statement took, in ns, the first from main.main's first
// statement, each later one from the return of the one before, then the
// order the goroutines arrived in.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

var (
	next  atomic.Int32
	order [4]int
	times [5]time.Time
)

func arrive(id int, wg *sync.WaitGroup) {
	order[next.Add(1)-1] = id
	wg.Done()
}

func main() {
	times[0] = time.Now()
	var wg sync.WaitGroup
	wg.Add(4)
	for i := 0; i < 4; i++ {
		go arrive(i, &wg)
		times[i+1] = time.Now()
	}
	wg.Wait()
	fmt.Print("spawns")
	for i := 1; i < len(times); i++ {
		fmt.Print(" ", times[i].Sub(times[i-1]).Nanoseconds())
	}
	fmt.Println("", order[0], order[1], order[2], order[3])
}
