//go:build ignore

// twowriters: two goroutines each append two lines to one log, with no
// synchronization. Outcome: the order of the four lines.
package main

import (
	"fmt"
	"strings"
	"sync"
)

var log []string

func writer(name string, wg *sync.WaitGroup) {
	log = append(log, name+"1")
	log = append(log, name+"2")
	wg.Done()
}

func main() {
	var wg sync.WaitGroup
	wg.Add(2)
	go writer("A", &wg)
	go writer("B", &wg)
	wg.Wait()
	fmt.Println(strings.Join(log, " "))
}
