//go:build ignore

// arrive: close_wake (../corpus/close_wake.go) with the order in which
// the three waiters reached their receive. Each waiter counts itself in
// before it blocks, so the first line is, but for two waiters on two Ps
// that pass each other between the count and the channel's lock, the
// order of the channel's queue of receivers when main closes it.
// Outcome: "arrive A B C wake X Y Z".
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

var (
	arrived, next atomic.Int32
	arrive, order [3]int
)

func waiter(id int, ch <-chan struct{}, wg *sync.WaitGroup) {
	arrive[arrived.Add(1)-1] = id
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
	fmt.Println("arrive", arrive[0], arrive[1], arrive[2], "wake", order[0], order[1], order[2])
}
