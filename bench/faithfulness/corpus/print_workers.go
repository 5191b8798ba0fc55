//go:build ignore

// print_workers: four goroutines each print their number; main waits for
// them. Outcome: the order of the lines, joined on one line by record.sh.
package main

import (
	"fmt"
	"sync"
)

func worker(id int, wg *sync.WaitGroup) {
	fmt.Println("w", id)
	wg.Done()
}

func main() {
	var wg sync.WaitGroup
	wg.Add(4)
	for i := 0; i < 4; i++ {
		go worker(i, &wg)
	}
	wg.Wait()
}
