//go:build ignore

// plain_incr: two goroutines each run x = x + 1 a thousand times on a shared
// counter. Outcome: whether updates were lost.
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
	go incr(1000, &wg)
	go incr(1000, &wg)
	wg.Wait()
	if x == 2000 {
		fmt.Println("exact")
	} else {
		fmt.Println("lost")
	}
}
