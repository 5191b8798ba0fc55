//go:build ignore

// Go by Example: Channel Buffering (https://gobyexample.com/channel-buffering).
package main

import "fmt"

func main() {
	messages := make(chan string, 2)

	messages <- "buffered"
	messages <- "channel"

	fmt.Println(<-messages)
	fmt.Println(<-messages)
}
