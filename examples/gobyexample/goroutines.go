//go:build ignore

// Go by Example: Goroutines (https://gobyexample.com/goroutines).
// On one P the two goroutines run when main sleeps: the second one spawned
// first, from runnext, then the first from the ring (newproc, runqput).
package main

import (
	"fmt"
	"time"
)

func f(from string) {
	for i := 0; i < 3; i++ {
		fmt.Println(from, ":", i)
	}
}

func main() {
	f("direct")

	go f("goroutine")

	go func(msg string) {
		fmt.Println(msg)
	}("going")

	time.Sleep(time.Second)
	fmt.Println("done")
}
