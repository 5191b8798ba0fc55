//go:build ignore

// long_counter: two goroutines each run x = x + 1 a hundred thousand times
// on a shared counter, with no synchronization. Outcome: whether updates
// were lost.
package main

import (
	"fmt"
	"sync"
)

var x int

//go:noinline
func incr(n int, wg *sync.WaitGroup) {
	for i := 0; i < n; i++ {
		x = x + 1
	}
	wg.Done()
}

func main() {
	var wg sync.WaitGroup
	wg.Add(2)
	go incr(100000, &wg)
	go incr(100000, &wg)
	wg.Wait()
	if x == 200000 {
		fmt.Println("exact")
	} else {
		fmt.Println("lost")
	}
}
