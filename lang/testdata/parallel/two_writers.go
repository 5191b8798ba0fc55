//go:build ignore

// two_writers: two goroutines each append two lines to one shared log,
// with no synchronization; main waits for both and prints the log. The M
// woken for P1 by the first spawn runs only after main has spawned both
// and blocked, so P0 runs B (runnext) and then A (the ring), one after the
// other. Decided by proc.go: newproc -> runqput(next=true), wakep ->
// startm (the wake-up cost).
package main

import (
	"fmt"
	"strings"
	"sync"
)

var (
	log []string
	wg  sync.WaitGroup
)

func writer(name string) {
	log = append(log, name+"1")
	log = append(log, name+"2")
	wg.Done()
}

func main() {
	wg.Add(2)
	go writer("A")
	go writer("B")
	wg.Wait()
	fmt.Println(strings.Join(log, " "))
}
