//go:build ignore

// gosched_turns: two goroutines each take three turns, a turn being one
// place in a shared list followed by runtime.Gosched. Outcome: the order of
// the turns.
package main

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

var (
	next  atomic.Int32
	turns [6]byte
)

func player(c byte, wg *sync.WaitGroup) {
	for i := 0; i < 3; i++ {
		turns[next.Add(1)-1] = c
		runtime.Gosched()
	}
	wg.Done()
}

func main() {
	var wg sync.WaitGroup
	wg.Add(2)
	go player('A', &wg)
	go player('B', &wg)
	wg.Wait()
	fmt.Println(string(turns[:]))
}
