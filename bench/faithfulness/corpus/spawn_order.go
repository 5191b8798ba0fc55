//go:build ignore

// spawn_order: main spawns four goroutines; each takes the next place in an
// arrival list. Outcome: the order in which they arrived.
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

func arrive(id int, wg *sync.WaitGroup) {
	order[next.Add(1)-1] = id
	wg.Done()
}

func main() {
	var wg sync.WaitGroup
	wg.Add(4)
	for i := 0; i < 4; i++ {
		go arrive(i, &wg)
	}
	wg.Wait()
	fmt.Println(order[0], order[1], order[2], order[3])
}
