//go:build ignore

// burners: sixteen goroutines each burn 1ms of CPU. Outcome: which of them
// finished first.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

var (
	next  atomic.Int32
	first int
)

func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

func burn(id int, wg *sync.WaitGroup) {
	spin(time.Millisecond)
	if next.Add(1) == 1 {
		first = id
	}
	wg.Done()
}

func main() {
	var wg sync.WaitGroup
	wg.Add(16)
	for i := 0; i < 16; i++ {
		go burn(i, &wg)
	}
	wg.Wait()
	fmt.Println("first", first)
}
