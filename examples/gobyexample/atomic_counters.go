//go:build ignore

// Go by Example: Atomic Counters (https://gobyexample.com/atomic-counters).
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

func main() {
	var ops atomic.Uint64

	var wg sync.WaitGroup

	for i := 0; i < 50; i++ {
		wg.Go(func() {
			for c := 0; c < 1000; c++ {
				ops.Add(1)
			}
		})
	}

	wg.Wait()

	fmt.Println("ops:", ops.Load())
}
