//go:build ignore

// timer_stop_reset: Go 1.23 timer channels hold no stale value. A timer
// whose deadline passed while nobody received is still pending for Stop
// and Reset (they report true), and the value it would have sent is gone.
// Reset of a stopped timer reports false, and the timer fires again.
// A ticker nobody reads does not tick; the first receive runs it on the
// spot and gets the deadline of the tick it missed, and the next tick is
// the next one on the ticker's grid, the missed ones skipped.
// Decided by time.go: stop, modify (timerchandrain), unlockAndRun (a
// ticker's next when), sendTime (Now minus how late).
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

// spin burns d of CPU without a scheduling point.
func spin(d time.Duration) {
	start := time.Now()
	for time.Since(start) < d {
	}
}

// ms rounds d to 100ms and shows it in ms.
func ms(d time.Duration) int64 { return d.Round(100 * time.Millisecond).Milliseconds() }

func main() {
	t := time.NewTimer(time.Millisecond)
	spin(3 * time.Millisecond)
	out("stop of an expired timer nobody received from: %v", t.Stop())
	select {
	case <-t.C:
		out("a stale value")
	default:
		out("no stale value after stop")
	}
	out("stop again: %v", t.Stop())
	out("reset of a stopped timer: %v", t.Reset(time.Millisecond))
	spin(3 * time.Millisecond)
	out("reset of an expired timer: %v", t.Reset(100*time.Millisecond))
	<-t.C
	out("fired after the reset")

	start := time.Now()
	tk := time.NewTicker(100 * time.Millisecond)
	time.Sleep(350 * time.Millisecond)
	out("tick %dms", ms((<-tk.C).Sub(start)))
	out("tick %dms", ms((<-tk.C).Sub(start)))
	tk.Stop()
	tk.Reset(100 * time.Millisecond)
	out("tick %dms after stop and reset", ms((<-tk.C).Sub(start)))
	fmt.Print(buf.String())
}
