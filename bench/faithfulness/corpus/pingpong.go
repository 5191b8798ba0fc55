//go:build ignore

// pingpong: two goroutines pass a ball a thousand times over two
// unbuffered channels, each counting its turns on a counter the hand-off
// protects. Outcome: which of them finished first, and the count.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

var (
	count int
	next  atomic.Int32
	order [2]string
)

func finish(name string, wg *sync.WaitGroup) {
	order[next.Add(1)-1] = name
	wg.Done()
}

func ping(n int, toPong chan<- int, toPing <-chan int, wg *sync.WaitGroup) {
	for i := 0; i < n; i++ {
		toPong <- i
		<-toPing
		count++
	}
	finish("ping", wg)
}

func pong(n int, toPong <-chan int, toPing chan<- int, wg *sync.WaitGroup) {
	for i := 0; i < n; i++ {
		<-toPong
		count++
		toPing <- i
	}
	finish("pong", wg)
}

func main() {
	toPong, toPing := make(chan int), make(chan int)
	var wg sync.WaitGroup
	wg.Add(2)
	go ping(1000, toPong, toPing, &wg)
	go pong(1000, toPong, toPing, &wg)
	wg.Wait()
	fmt.Println(order[0], order[1], count)
}
