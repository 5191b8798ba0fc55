//go:build ignore

// Go by Example: WaitGroups (https://gobyexample.com/waitgroups).
// wg.Go (Go 1.25) is Add(1) plus a goroutine that calls Done when its
// function returns.
package main

import (
	"fmt"
	"sync"
	"time"
)

func worker(id int) {
	fmt.Printf("Worker %d starting\n", id)

	time.Sleep(time.Second)
	fmt.Printf("Worker %d done\n", id)
}

func main() {
	var wg sync.WaitGroup

	for i := 1; i <= 5; i++ {
		wg.Go(func() {
			worker(i)
		})
	}

	wg.Wait()
}
