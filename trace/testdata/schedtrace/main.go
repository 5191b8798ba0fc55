// A real Go program for TestSchedTraceMatchesGo: run with
// GODEBUG=schedtrace=1[,scheddetail=1], it prints Go's schedtrace lines
// for about 30ms of goroutines that compute, sleep and talk over a
// channel, then exits normally.
package main

import (
	"fmt"
	"sync"
	"time"
)

func main() {
	start := time.Now()
	ch := make(chan int)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(start) < 30*time.Millisecond {
				x := 0
				for j := 0; j < 100000; j++ {
					x += j
				}
				select {
				case ch <- x:
				default:
				}
				time.Sleep(100 * time.Microsecond)
			}
		}()
	}
	go func() {
		for range ch {
		}
	}()
	wg.Wait()
	fmt.Println("done")
}
