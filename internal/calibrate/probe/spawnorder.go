//go:build ignore

// The start-up probe of schedlab calibrate (internal/calibrate/startup.go):
// bench/faithfulness/corpus/spawn_order.go's main, timed. It prints how
// long each go statement took, in ns, the first from main.main's first
// statement, each later one from the return of the one before, then the
// order the goroutines arrived in.
//
// Run as "probe wait" or "probe chan" it times instead the process's first
// park: one go statement, then main waits for the goroutine in a
// WaitGroup's Wait (the process's first semaphore wait) or a channel
// receive, and it prints "park N", N the ns from the park to the
// goroutine's start (calibrate's sema_first).
package main

import (
	"fmt"
	"os"
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
	if len(os.Args) > 1 {
		firstPark(os.Args[1] == "chan")
		return
	}
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

// firstPark times the process's first park for a goroutine spawned just
// before: on a channel receive with viaChan, else in a WaitGroup's Wait.
func firstPark(viaChan bool) {
	var wg sync.WaitGroup
	var start time.Time
	ch := make(chan struct{})
	wg.Add(1)
	go func() {
		start = time.Now()
		if viaChan {
			ch <- struct{}{}
		}
		wg.Done()
	}()
	parked := time.Now()
	if viaChan {
		<-ch
	}
	wg.Wait()
	fmt.Println("park", start.Sub(parked).Nanoseconds())
}
