// Command waketimes times the waker's side of a thread wake-up in real
// Go: what a go statement costs the goroutine that makes it when its
// wakep has to wake a parked M (startm → notewakeup, a futex wake; on a
// virtual machine, the interrupt that wakes the other vCPU out of its
// halt), against one right after, when an M already spins and wakep does
// nothing. Run once, at GOMAXPROCS 2, it does -n rounds of: sleep 200µs
// (the other M finds nothing, stops spinning and parks), time a go
// statement, wait for its goroutine; time a second go statement at once,
// wait for it. It prints the first kind's durations on a "wake" line and
// the second's on a "spin" line, in ns:
//
//	GOMAXPROCS=2 go run ./bench/faithfulness/waketimes -n 200
//	wake 13346 1623 ...
//	spin 200 149 ...
//
// With -summarize it reads such lines (a recording, lines starting with #
// ignored) and prints the quantiles of both and the notewakeup entry of
// a costs profile: a wake line's samples less the spin lines' median,
// what waking the M added (docs/faithfulness.md, "What waking a thread
// costs the waker").
package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/schedlab/schedlab/bench/faithfulness/samples"
)

func main() {
	summarize := flag.String("summarize", "", "summarize the recording in `FILE` instead of running (the files named after the flags too, pooled)")
	n := flag.Int("n", 200, "rounds: `N` go statements that wake an M, and N that do not")
	flag.Parse()
	if *summarize != "" {
		samples.Summarize("waketimes", append([]string{*summarize}, flag.Args()...), summary)
		return
	}
	wake, spin := rounds(*n)
	fmt.Println(samples.Line("wake", wake))
	fmt.Println(samples.Line("spin", spin))
}

//go:noinline
func done(ch chan struct{}) { ch <- struct{}{} }

// rounds times n go statements that wake a parked M and n that do not.
func rounds(n int) (wake, spin []int64) {
	ch := make(chan struct{}, 1)
	for range n {
		time.Sleep(200 * time.Microsecond)
		t := time.Now()
		go done(ch)
		wake = append(wake, int64(time.Since(t)))
		<-ch
		t = time.Now()
		go done(ch)
		spin = append(spin, int64(time.Since(t)))
		<-ch
	}
	return wake, spin
}

// summary reads a recording's wake and spin lines and prints their
// quantiles and the profile's notewakeup: each wake sample less the spin
// samples' median, no less than 0, its p100 the p99.5.
func summary(r io.Reader, w io.Writer) error {
	series, err := samples.ReadLines(r, "wake", "spin")
	if err != nil {
		return err
	}
	wake, spin := series["wake"], series["spin"]
	if len(wake) == 0 || len(spin) == 0 {
		return fmt.Errorf("want wake and spin lines, got %d and %d samples", len(wake), len(spin))
	}
	fmt.Fprintf(w, "go statement that wakes a parked M: n %d, quantiles 0%%, 5%%, ..., 100%%: %s\n", len(wake), samples.Format(samples.Quantiles(wake)))
	fmt.Fprintf(w, "go statement with an M spinning:    n %d, quantiles: %s\n", len(spin), samples.Format(samples.Quantiles(spin)))
	s := slices.Clone(spin)
	slices.Sort(s)
	base := s[(len(s)-1)/2]
	added := make([]int64, len(wake))
	for i, v := range wake {
		added[i] = max(v-base, 0)
	}
	fmt.Fprintf(w, "notewakeup for a costs profile (each wake less the spin median %dns, p100 the p99.5): {\"n\": %d, \"quantiles\": %s}\n", base, len(added), samples.Format(samples.Capped(added)))
	return nil
}
