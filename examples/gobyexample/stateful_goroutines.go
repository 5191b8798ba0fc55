//go:build ignore

// Go by Example: Stateful Goroutines
// (https://gobyexample.com/stateful-goroutines).
// Go by Example's readers and writers loop for a second of wall-clock time,
// so the counts it prints differ from run to run. Here each reader makes
// 100 reads and each writer 10 writes, with the same 1ms pauses, and main
// waits for them with a WaitGroup: the counts are fixed, the state still
// lives in one owning goroutine. The keys cycle instead of being random.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

type readOp struct {
	key  int
	resp chan int
}
type writeOp struct {
	key  int
	val  int
	resp chan bool
}

func main() {

	var readOps uint64
	var writeOps uint64

	reads := make(chan readOp)
	writes := make(chan writeOp)

	go func() {
		var state = make(map[int]int)
		for {
			select {
			case read := <-reads:
				read.resp <- state[read.key]
			case write := <-writes:
				state[write.key] = write.val
				write.resp <- true
			}
		}
	}()

	var wg sync.WaitGroup

	for r := 0; r < 100; r++ {
		wg.Go(func() {
			for i := 0; i < 100; i++ {
				read := readOp{
					key:  (r + i) % 5,
					resp: make(chan int)}
				reads <- read
				<-read.resp
				atomic.AddUint64(&readOps, 1)
				time.Sleep(time.Millisecond)
			}
		})
	}

	for w := 0; w < 10; w++ {
		wg.Go(func() {
			for i := 0; i < 10; i++ {
				write := writeOp{
					key:  (w + i) % 5,
					val:  i % 100,
					resp: make(chan bool)}
				writes <- write
				<-write.resp
				atomic.AddUint64(&writeOps, 1)
				time.Sleep(time.Millisecond)
			}
		})
	}

	wg.Wait()

	readOpsFinal := atomic.LoadUint64(&readOps)
	fmt.Println("readOps:", readOpsFinal)
	writeOpsFinal := atomic.LoadUint64(&writeOps)
	fmt.Println("writeOps:", writeOpsFinal)
}
