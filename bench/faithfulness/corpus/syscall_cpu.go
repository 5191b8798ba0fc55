//go:build ignore

// syscall_cpu: goroutine Y makes a blocking system call of 1ms (nanosleep)
// while goroutines B and C each burn 1ms of CPU. Outcome: the order in
// which they finished.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

var (
	next  atomic.Int32
	order [3]string
)

func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

func done(name string, wg *sync.WaitGroup) {
	order[next.Add(1)-1] = name
	wg.Done()
}

func main() {
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		ts := syscall.NsecToTimespec(int64(time.Millisecond))
		syscall.Nanosleep(&ts, nil)
		done("Y", &wg)
	}()
	go func() {
		spin(time.Millisecond)
		done("B", &wg)
	}()
	go func() {
		spin(time.Millisecond)
		done("C", &wg)
	}()
	wg.Wait()
	fmt.Println(order[0] + order[1] + order[2])
}
