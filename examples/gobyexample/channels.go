//go:build ignore

// Go by Example: Channels (https://gobyexample.com/channels).
package main

import "fmt"

func main() {
	messages := make(chan string)

	go func() { messages <- "ping" }()

	msg := <-messages
	fmt.Println(msg)
}
