//go:build ignore

// context_cancel: cancel closes the context's Done channel, which readies
// the goroutines blocked on it as closechan does: collected in queue order
// on a stack, readied from the top, each into runnext; parked w0 w1 w2
// run w2 w0 w1... no: w2 ends in runnext, w1 and w0 in the ring. A
// deadline is a timer whose AfterFunc goroutine cancels the context.
// Decided by context.go: WithCancel, cancelCtx.cancel, WithDeadline
// (time.AfterFunc); chan.go: closechan.
package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

var buf strings.Builder

// out records one line; everything is printed once at the end of main so
// that writing to stdout is never a scheduling point.
func out(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	for i := 0; i < 3; i++ {
		go func() {
			<-ctx.Done()
			out("w%d: %v", i, ctx.Err())
		}()
	}
	time.Sleep(100 * time.Millisecond)
	out("cancel")
	cancel()
	time.Sleep(100 * time.Millisecond)

	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()
	out("child of a canceled context: %v", child.Err())

	tctx, tcancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer tcancel()
	<-tctx.Done()
	out("after the timeout: %v", tctx.Err())
	fmt.Print(buf.String())
}
