//go:build ignore

// select_default: a select with a default never blocks. A send succeeds only
// if the buffer has room or a receiver is already parked; a receive only if
// a value is buffered, a sender is parked, or the channel is closed.
// Decided by select.go: selectgo with block=false (pass 1 only, then
// return -1); chan.go: the non-blocking paths of chansend/chanrecv.
package main

import (
	"fmt"
	"strings"
	"time"
)

var buf strings.Builder

// out records one line; everything is printed once at the end of main so
// that writing to stdout is never a scheduling point.
func out(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }

var (
	ch   = make(chan int)
	done = make(chan bool)
)

func receiver() {
	out("receiver waits")
	v := <-ch
	out("receiver got %d", v)
	done <- true
}

func trySend(v int) {
	select {
	case ch <- v:
		out("sent %d", v)
	default:
		out("no receiver for %d", v)
	}
}

func tryRecv() {
	select {
	case v := <-ch:
		out("received %d", v)
	default:
		out("nothing to receive")
	}
}

func main() {
	tryRecv()
	trySend(1)
	go receiver()
	time.Sleep(100 * time.Millisecond) // receiver parks on ch
	trySend(2)                         // hands 2 to the parked receiver
	out("main after send")
	<-done
	close(ch)
	select {
	case _, ok := <-ch:
		if !ok {
			out("ch is closed")
		}
	default:
		out("default")
	}
	fmt.Print(buf.String())
}
