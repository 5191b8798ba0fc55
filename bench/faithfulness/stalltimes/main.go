// Command stalltimes records what the OS takes from threads that run
// code, with every sample kept: calibrate's stall probe (one goroutine
// per P reading the monotonic clock in a tight loop; a gap of 1µs or
// more between two readings is a stall, the thread off its CPU), run for
// -d in a fresh process. calibrate keeps a profile's 21 quantiles of
// stall and stall_every, which say nothing of the shape of the top
// twentieth, where a thread's stalls run from tens of µs to
// milliseconds. This tool keeps each stall's start (since the probe
// began), its length, and how long its goroutine ran before it, in ns:
//
//	GOMAXPROCS=2 go run ./bench/faithfulness/stalltimes -d 200ms
//	run 200000000 2
//	at 1830 ...
//	len 16200 ...
//	every 1830 ...
//
// With -summarize it pools recordings and prints, for the stalls that
// began within -first of their process's probe, and -from or more after
// its start (all of them by default):
// how many there were, how much of the goroutines' time they took, the
// quantiles and tail of their lengths and of the running time between
// them, and the two costs (stall, stall_every) as
// bench/faithfulness/profiles/derive's -dist takes them, tails included
// (docs/faithfulness.md, "A thread's stalls, every one").
//
// With -sched it reads instead what sched.sh recorded, the OS's switches
// of threads while the probes ran, and says how long the probes' threads
// were off their CPUs while runnable, in each process's first -first
// (2ms by default) and after, by whether the CPU went to a thread of the
// process itself or of another program.
package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/schedlab/schedlab/bench/faithfulness/samples"
	"github.com/schedlab/schedlab/internal/calibrate"
)

func main() {
	summarize := flag.String("summarize", "", "summarize the recording in `FILE` instead of running (the files named after the flags too, pooled)")
	d := flag.Duration("d", 200*time.Millisecond, "how long each goroutine reads the clock")
	first := flag.Duration("first", 0, "with -summarize, count only the stalls that began within this long of their probe's start, and the goroutines' time up to it (0: all)")
	from := flag.Duration("from", 0, "with -summarize, count only the stalls that began this long or more after their probe's start, and the goroutines' time from it")
	sched := flag.String("sched", "", "summarize perf script's sched:sched_switch events in `FILE` (sched.sh writes it): how long the probes' threads were off their CPUs while runnable, within -first (default 2ms) and after, by whose thread took the CPU")
	flag.Parse()
	if *sched != "" {
		window := first.Nanoseconds()
		if window == 0 {
			window = int64(2 * time.Millisecond)
		}
		samples.Summarize("stalltimes", append([]string{*sched}, flag.Args()...), func(r io.Reader, w io.Writer) error {
			return schedSummary(r, w, "stalltimes", window)
		})
		return
	}
	if *summarize != "" {
		samples.Summarize("stalltimes", append([]string{*summarize}, flag.Args()...), func(r io.Reader, w io.Writer) error {
			return summary(r, w, from.Nanoseconds(), first.Nanoseconds())
		})
		return
	}
	procs := runtime.GOMAXPROCS(0)
	at, length, every := calibrate.Stalls(procs, *d)
	fmt.Println(samples.Line("run", []int64{d.Nanoseconds(), int64(procs)}))
	fmt.Println(samples.Line("at", at))
	fmt.Println(samples.Line("len", length))
	fmt.Println(samples.Line("every", every))
}

// summary reads a recording's run, at, len and every lines and prints
// the stalls that began from ns or more after their probe's start and
// within first ns of it (0: to the end).
func summary(r io.Reader, w io.Writer, from, first int64) error {
	series, err := samples.ReadLines(r, "run", "at", "len", "every")
	if err != nil {
		return err
	}
	at, length, every, run := series["at"], series["len"], series["every"], series["run"]
	if len(at) != len(length) || len(at) != len(every) {
		return fmt.Errorf("%d at, %d len and %d every samples: want as many of each", len(at), len(length), len(every))
	}
	if len(run)%2 != 0 || len(run) == 0 {
		return fmt.Errorf("%d numbers on the run lines: want a duration and GOMAXPROCS for each process", len(run))
	}
	var total int64 // the goroutines' time looked at, ns
	for i := 0; i < len(run); i += 2 {
		end := run[i]
		if first > 0 {
			end = min(end, first)
		}
		total += max(end-from, 0) * run[i+1]
	}
	var lens, evs []int64
	var lost, lostMs int64
	var nMs int
	for i := range at {
		if first > 0 && at[i] >= first || at[i] < from {
			continue
		}
		lens, evs = append(lens, length[i]), append(evs, every[i])
		lost += length[i]
		if length[i] >= int64(time.Millisecond) {
			nMs++
			lostMs += length[i]
		}
	}
	within := "all of each probe"
	switch {
	case from > 0 && first > 0:
		within = "from " + time.Duration(from).String() + " to " + time.Duration(first).String() + " of each probe"
	case from > 0:
		within = "each probe from " + time.Duration(from).String()
	case first > 0:
		within = "the first " + time.Duration(first).String() + " of each probe"
	}
	fmt.Fprintf(w, "%d processes, %s: %.3fs of the goroutines' time\n", len(run)/2, within, float64(total)/1e9)
	if len(lens) == 0 {
		fmt.Fprintln(w, "no stalls")
		return nil
	}
	fmt.Fprintf(w, "%d stalls, %.0f a second of a goroutine's time; they took %.2f%% of it\n", len(lens), float64(len(lens))/(float64(total)/1e9), 100*float64(lost)/float64(total))
	fmt.Fprintf(w, "%d of 1ms or more (%.2f%% of the stalls), %.2f%% of the time\n", nMs, 100*float64(nMs)/float64(len(lens)), 100*float64(lostMs)/float64(total))
	for _, c := range []struct {
		name string
		xs   []int64
	}{{"stall", lens}, {"stall_every", evs}} {
		q, t := samples.Quantiles(c.xs), samples.Tail(c.xs)
		fmt.Fprintf(w, "%s, ns, quantiles 0%%, 5%%, ..., 100%%: %s\n", c.name, samples.Format(q))
		fmt.Fprintf(w, "%s's tail, p96 p97 p98 p99 p99.5 p99.9: %v\n", c.name, t)
	}
	fmt.Fprintf(w, "for derive:\n  -dist stall=%s \\\n  -dist stall_every=%s\n", samples.DeriveArgTail(lens), samples.DeriveArgTail(evs))
	return nil
}
