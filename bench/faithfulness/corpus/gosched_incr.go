//go:build ignore

// gosched_incr: two goroutines each increment a shared counter three times
// as read, runtime.Gosched, write. Outcome: the final value (6 without a lost
// update).
package main

import (
	"fmt"
	"runtime"
	"sync"
)

var x int

func incr(wg *sync.WaitGroup) {
	for i := 0; i < 3; i++ {
		v := x
		runtime.Gosched()
		x = v + 1
	}
	wg.Done()
}

func main() {
	var wg sync.WaitGroup
	wg.Add(2)
	go incr(&wg)
	go incr(&wg)
	wg.Wait()
	fmt.Printf("x=%d\n", x)
}
