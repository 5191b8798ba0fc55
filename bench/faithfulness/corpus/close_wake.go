//go:build ignore

// close_wake: three goroutines block receiving from one channel; main
// sleeps 1ms, then closes it. Outcome: the order in which they woke.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

var (
	next  atomic.Int32
	order [3]int
)

func waiter(id int, ch <-chan struct{}, wg *sync.WaitGroup) {
	<-ch
	order[next.Add(1)-1] = id
	wg.Done()
}

func main() {
	ch := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(3)
	for i := 0; i < 3; i++ {
		go waiter(i, ch, &wg)
	}
	time.Sleep(time.Millisecond)
	close(ch)
	wg.Wait()
	fmt.Println(order[0], order[1], order[2])
}
