//go:build ignore

// ctx_fanout: three workers each loop on a short piece of CPU work until
// their context is cancelled, then print that they stopped; main cancels
// after 1ms and waits. Outcome: the order of the lines, joined on one
// line by record.sh.
package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

func worker(ctx context.Context, id int, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		select {
		case <-ctx.Done():
			fmt.Println("stop", id)
			return
		default:
			spin(20 * time.Microsecond)
		}
	}
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(3)
	for i := 1; i <= 3; i++ {
		go worker(ctx, i, &wg)
	}
	time.Sleep(time.Millisecond)
	cancel()
	wg.Wait()
}
