//go:build ignore

// Go by Example: Tickers (https://gobyexample.com/tickers).
// Go by Example prints the wall-clock time of each tick; this twin prints
// how long after the start it came, rounded to 100ms, so that the output
// is the same on every run.
package main

import (
	"fmt"
	"time"
)

func main() {
	start := time.Now()
	ticker := time.NewTicker(500 * time.Millisecond)
	done := make(chan bool)

	go func() {
		for {
			select {
			case <-done:
				return
			case t := <-ticker.C:
				fmt.Printf("Tick at %dms\n", t.Sub(start).Round(100*time.Millisecond).Milliseconds())
			}
		}
	}()

	time.Sleep(1600 * time.Millisecond)
	ticker.Stop()
	done <- true
	fmt.Println("Ticker stopped")
}
