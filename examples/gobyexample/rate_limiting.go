//go:build ignore

// Go by Example: Rate Limiting (https://gobyexample.com/rate-limiting).
// Go by Example prints time.Now() with each request; this twin prints how
// long after the start it was served, rounded to 100ms, so that the output
// is the same on every run.
package main

import (
	"fmt"
	"time"
)

func main() {
	start := time.Now()
	since := func() int64 { return time.Since(start).Round(100 * time.Millisecond).Milliseconds() }

	requests := make(chan int, 5)
	for i := 1; i <= 5; i++ {
		requests <- i
	}
	close(requests)

	limiter := time.Tick(200 * time.Millisecond)

	for req := range requests {
		<-limiter
		fmt.Printf("request %d %dms\n", req, since())
	}

	burstyLimiter := make(chan time.Time, 3)

	for i := 0; i < 3; i++ {
		burstyLimiter <- time.Now()
	}

	go func() {
		for t := range time.Tick(200 * time.Millisecond) {
			burstyLimiter <- t
		}
	}()

	burstyRequests := make(chan int, 5)
	for i := 1; i <= 5; i++ {
		burstyRequests <- i
	}
	close(burstyRequests)
	for req := range burstyRequests {
		<-burstyLimiter
		fmt.Printf("request %d %dms\n", req, since())
	}
}
