//go:build ignore

// closetime: arrive.go with two clocks: how long main's close(ch) takes,
// and how long after it returns the first waiter runs (its first
// statement after the receive). Untraced, so nothing but the clock reads
// perturbs the run. Outcome: "arrive A B C wake X Y Z close NS first NS".
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
	woke          [3]time.Time
)

func waiter(id int, ch <-chan struct{}, wg *sync.WaitGroup) {
	arrive[arrived.Add(1)-1] = id
	<-ch
	i := next.Add(1) - 1
	woke[i] = time.Now()
	order[i] = id
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
	t0 := time.Now()
	close(ch)
	t1 := time.Now()
	wg.Wait()
	fmt.Printf("arrive %d %d %d wake %d %d %d close %d first %d\n", arrive[0], arrive[1], arrive[2], order[0], order[1], order[2], t1.Sub(t0).Nanoseconds(), woke[0].Sub(t1).Nanoseconds())
}
