//go:build ignore

// loopvar: a loop spawns four goroutines, each capturing the loop variable
// (one variable per iteration, as since Go 1.22). Outcome: the order in
// which they ran.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

var (
	next  atomic.Int32
	order [4]int
)

func main() {
	var wg sync.WaitGroup
	wg.Add(4)
	for i := 0; i < 4; i++ {
		go func() {
			order[next.Add(1)-1] = i
			wg.Done()
		}()
	}
	wg.Wait()
	fmt.Println(order[0], order[1], order[2], order[3])
}
