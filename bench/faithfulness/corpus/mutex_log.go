//go:build ignore

// mutex_log: two goroutines each take a sync.Mutex three times and append
// their letter under it. Outcome: the letters in lock order.
package main

import (
	"fmt"
	"sync"
)

var (
	mu  sync.Mutex
	log []byte
)

func locker(c byte, wg *sync.WaitGroup) {
	for i := 0; i < 3; i++ {
		mu.Lock()
		log = append(log, c)
		mu.Unlock()
	}
	wg.Done()
}

func main() {
	var wg sync.WaitGroup
	wg.Add(2)
	go locker('A', &wg)
	go locker('B', &wg)
	wg.Wait()
	fmt.Println(string(log))
}
