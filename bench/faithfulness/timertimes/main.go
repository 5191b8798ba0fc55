// Command timertimes times what a young Go process's first timer costs.
// Arming a process's first timer starts the network poller (addHeap calls
// netpollGenericInit: epoll_create1, eventfd, epoll_ctl) and takes the
// timer path's allocations for the first time; schedlab charges that as
// the profile's timer_first (docs/runtime.md, "Costs").
//
// Run once (a fresh process is a fresh start), main makes N time.Sleep(1ms)
// calls in a row (-sleep, 4 by default); before each it spawns a goroutine
// that reads the clock when it begins and exits. At GOMAXPROCS=1 that
// goroutine runs on main's P as soon as main has parked: the gap from the
// Sleep call to its start is the park, the timer's arming (done in
// gopark's unlockf, resetForSleep) and the switch. It prints the gaps in
// ns on one line:
//
//	GOMAXPROCS=1 go run ./bench/faithfulness/timertimes
//	sleep 33120 1210 1180 1150
//
// With -summarize it reads such lines (a recording: one run a line, lines
// starting with # ignored; files named after the flag are pooled) and
// prints the quantiles of the first gap and of the later ones, and
// timer_first for a costs profile: the first gap less the later gaps'
// median, which the engine's own switch stands for.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/bench/faithfulness/samples"
	"github.com/schedlab/schedlab/runtime"
)

func main() {
	summarize := flag.String("summarize", "", "summarize the recording in `FILE` instead of running (the files named after the flags too, pooled)")
	n := flag.Int("sleep", 4, "time `N` sleeps in a row")
	flag.Parse()
	if *summarize != "" {
		samples.Summarize("timertimes", append([]string{*summarize}, flag.Args()...), summary)
		return
	}
	fmt.Println(sleeps(*n))
}

// sleeps makes n sleeps of 1ms, each with a goroutine spawned before it
// waiting on main's P, and returns the -sleep line: how long after each
// Sleep call its goroutine began, in ns.
func sleeps(n int) string {
	var b strings.Builder
	b.WriteString("sleep")
	for range n {
		began := make(chan time.Time, 1)
		go func() { began <- time.Now() }()
		t := time.Now()
		time.Sleep(time.Millisecond)
		fmt.Fprintf(&b, " %d", (<-began).Sub(t))
	}
	return b.String()
}

// summary prints the quantiles of a recording's first and later gaps and
// the timer_first entry they make.
func summary(r io.Reader, w io.Writer) error {
	var first, later []int64
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if f[0] != "sleep" || len(f) < 2 {
			return fmt.Errorf("line %d: not a timertimes line: %q", line, sc.Text())
		}
		for i, s := range f[1:] {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return fmt.Errorf("line %d: %v", line, err)
			}
			if i == 0 {
				first = append(first, v)
			} else {
				later = append(later, v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(first) == 0 || len(later) == 0 {
		return fmt.Errorf("no runs with two sleeps or more")
	}
	q := samples.Quantiles(later)
	fmt.Fprintf(w, "time.Sleep's call to the start of the goroutine waiting on its P, ns, quantiles 0%%, 5%%, ..., 100%%\n")
	fmt.Fprintf(w, "first sleep, n %d: %s\n", len(first), samples.Format(samples.Quantiles(first)))
	fmt.Fprintf(w, "later sleeps, n %d: %s\n", len(later), samples.Format(q))
	// timer_first is what the first sleep's park takes more than a later
	// one's: the later ones' median is the park and the switch.
	median := q[runtime.NumQuantiles/2]
	extra := make([]int64, len(first))
	for i, v := range first {
		extra[i] = max(v-median, 0)
	}
	fmt.Fprintf(w, "timer_first for a costs profile (less the later sleeps' median, %dns; p100 the p99.5): {\"n\": %d, \"quantiles\": %s}\n", median, len(extra), samples.Format(samples.Capped(extra)))
	return nil
}
