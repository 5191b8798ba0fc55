//go:build ignore

// Go by Example: Range over Channels
// (https://gobyexample.com/range-over-channels).
package main

import "fmt"

func main() {
	queue := make(chan string, 2)
	queue <- "one"
	queue <- "two"
	close(queue)

	for elem := range queue {
		fmt.Println(elem)
	}
}
