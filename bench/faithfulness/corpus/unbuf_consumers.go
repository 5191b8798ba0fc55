//go:build ignore

// unbuf_consumers: main sends four values on an unbuffered channel to two
// consumers ranging over it. Outcome: which consumer received each value.
package main

import (
	"fmt"
	"sync"
)

var got [4]byte

func consumer(c byte, ch <-chan int, wg *sync.WaitGroup) {
	for v := range ch {
		got[v] = c
	}
	wg.Done()
}

func main() {
	ch := make(chan int)
	var wg sync.WaitGroup
	wg.Add(2)
	go consumer('a', ch, &wg)
	go consumer('b', ch, &wg)
	for i := 0; i < 4; i++ {
		ch <- i
	}
	close(ch)
	wg.Wait()
	fmt.Println(string(got[:]))
}
