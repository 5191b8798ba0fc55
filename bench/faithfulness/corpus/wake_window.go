//go:build ignore

// wake_window: a goroutine blocks on a channel; main burns 100µs of CPU,
// sends it a value and burns another 100µs. Outcome: whether the goroutine
// ran while main was still burning (on the other P) or only after.
package main

import (
	"fmt"
	"sync/atomic"
	"time"
)

var mainDone atomic.Bool

func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

func main() {
	ch := make(chan int)
	res := make(chan string)
	go func() {
		<-ch
		if mainDone.Load() {
			res <- "after"
		} else {
			res <- "during"
		}
	}()
	spin(100 * time.Microsecond)
	ch <- 1
	spin(100 * time.Microsecond)
	mainDone.Store(true)
	fmt.Println(<-res)
}
