// Command wakestall measures in real Go how soon a thread that has just
// woken loses its CPU, and for how long: the stall_wake_at and
// stall_wake costs of a profile (docs/runtime.md). Run once, at
// GOMAXPROCS 2 as close_wake's main is, it does -n rounds of: sleep 1ms
// (its M parks, and the timer wakes it; the timer's goready also wakes
// the other M, as close_wake's does), then read the monotonic clock in a
// tight loop for -window. The first gap of 1µs or more between two
// readings is the round's stall: "at" is how long the loop ran before
// it, "len" how long it lasted; a round without one prints at -1 and
// len 0. It prints the window, an "at" line and a "len" line, in ns:
//
//	GOMAXPROCS=2 go run ./bench/faithfulness/wakestall -n 200
//	window 200000
//	at 1830 -1 5120 ...
//	len 16200 0 1450 ...
//
// With -summarize it reads such lines (a recording, lines starting with #
// ignored) and prints how many rounds stalled within the window, the
// quantiles of at and len over those, and the two costs for a profile:
// stall_wake_at, a round without a stall counted at the window (the
// first stall comes later than that; a recording without a window line,
// the first ones, at the longest round that stalled), and stall_wake
// over the rounds
// that stalled (docs/faithfulness.md, "A stall just after a wake-up,
// measured").
package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/schedlab/schedlab/bench/faithfulness/samples"
)

// gap is the shortest pause between two clock readings that counts as a
// stall, as calibrate's stall probe has it.
const gap = time.Microsecond

func main() {
	summarize := flag.String("summarize", "", "summarize the recording in `FILE` instead of running (the files named after the flags too, pooled)")
	n := flag.Int("n", 200, "`N` rounds of a 1ms sleep and a spin")
	window := flag.Duration("window", 200*time.Microsecond, "how long each round spins after its wake-up, looking for its first stall")
	flag.Parse()
	if *summarize != "" {
		samples.Summarize("wakestall", append([]string{*summarize}, flag.Args()...), summary)
		return
	}
	at, length := rounds(*n, *window)
	fmt.Println("window", window.Nanoseconds())
	fmt.Println(samples.Line("at", at))
	fmt.Println(samples.Line("len", length))
}

// rounds sleeps and spins n times and returns each round's first stall:
// when it came in the spin (-1: none in the window) and its length.
func rounds(n int, window time.Duration) (at, length []int64) {
	for range n {
		time.Sleep(time.Millisecond)
		start := time.Now()
		prev := start
		a, l := int64(-1), int64(0)
		for {
			now := time.Now()
			if d := now.Sub(prev); d >= gap {
				a, l = int64(prev.Sub(start)), int64(d)
				break
			}
			prev = now
			if now.Sub(start) >= window {
				break
			}
		}
		at, length = append(at, a), append(length, l)
	}
	return at, length
}

// summary reads a recording's at and len lines, pairs them round by
// round, and prints the share of rounds that stalled, and the profile's
// stall_wake_at and stall_wake.
func summary(r io.Reader, w io.Writer) error {
	series, err := samples.ReadLines(r, "window", "at", "len")
	if err != nil {
		return err
	}
	at, length := series["at"], series["len"]
	window := int64(0)
	for _, w := range series["window"] {
		window = max(window, w)
	}
	if len(at) == 0 || len(at) != len(length) {
		return fmt.Errorf("want as many at samples as len samples, and some: got %d and %d", len(at), len(length))
	}
	var stalledAt, stalledLen, wakeAt []int64
	longest := int64(0)
	for i, a := range at {
		if a >= 0 {
			stalledAt, stalledLen = append(stalledAt, a), append(stalledLen, length[i])
			longest = max(longest, a+length[i])
		}
	}
	if window == 0 {
		window = longest
	}
	if len(stalledAt) == 0 {
		return fmt.Errorf("no round stalled in %d", len(at))
	}
	for _, a := range at {
		if a < 0 {
			a = window // later than the window: the longest round seen
		}
		wakeAt = append(wakeAt, a)
	}
	fmt.Fprintf(w, "rounds %d, stalled within the window %d (%.1f%%)\n", len(at), len(stalledAt), 100*float64(len(stalledAt))/float64(len(at)))
	fmt.Fprintf(w, "at, the stalled rounds:  quantiles 0%%, 5%%, ..., 100%%: %s\n", samples.Format(samples.Quantiles(stalledAt)))
	fmt.Fprintf(w, "len, the stalled rounds: quantiles: %s\n", samples.Format(samples.Quantiles(stalledLen)))
	fmt.Fprintf(w, "stall_wake_at for a costs profile (a round without a stall at %dns): {\"n\": %d, \"quantiles\": %s}\n", window, len(wakeAt), samples.Format(samples.Quantiles(wakeAt)))
	fmt.Fprintf(w, "stall_wake for a costs profile (p100 the p99.5): {\"n\": %d, \"quantiles\": %s}\n", len(stalledLen), samples.Format(samples.Capped(stalledLen)))
	return nil
}
