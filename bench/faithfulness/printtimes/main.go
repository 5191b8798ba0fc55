// Command printtimes times, in real Go, what a printed line costs before
// and during its write(2) in bench/faithfulness/corpus's print_workers:
// main spawns four workers and waits; each prints "w ID". Run once (a
// fresh process is a fresh start-up) at GOMAXPROCS 2 or more, each worker
// reads the clock as it starts, after fmt.Sprintln formats its line, and
// after the line's os.Stdout.Write, and notes its P (samples.P).
// Standard output should be a pipe, as the recordings' is (record.sh
// makes it one). It prints one "run" line of integers on standard error:
//
//	GOMAXPROCS=2 go run ./bench/faithfulness/printtimes | cat
//	run 0 3 1 2 0 1 0 31012 250910 269745 0 132013 132544 ...
//
// 1 with -warm (below) else 0, the order (four ids), main's P, then for worker 0 to 3 its P, its start,
// the end of its formatting and the end of its write, in ns since
// main.main's first statement. With -warm, main formats a line of its own
// before it spawns, so that fmt's code and main's P are warm and only
// the other Ps are not.
//
// With -summarize it reads such lines (a recording, lines starting with #
// ignored) and prints the order's distribution and, for a profile, the
// quantiles of:
//
//	print_first    the formatting of the run's first line, when it is on
//	               main's P and main formatted none (fmt's first touches:
//	               its code, its printer);
//	print_p_first  the formatting of the first line on another P than main's,
//	               begun when a line was already formatted (in a -warm run
//	               main's, else the run's first): what the P's own first
//	               allocations cost (its mcache and stack cache are empty);
//	write_first    the write of the run's first line (a fresh pipe's first
//	               page), against write, the later lines' writes.
//
// docs/faithfulness.md ("A P's first printed line") reads them.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schedlab/schedlab/bench/faithfulness/samples"
)

// workers is print_workers' number of goroutines.
const workers = 4

func main() {
	summarize := flag.String("summarize", "", "summarize the recording in `FILE` instead of running (the files named after the flags too, pooled)")
	warm := flag.Bool("warm", false, "format a line in main before spawning the workers")
	flag.Parse()
	if *summarize != "" {
		samples.Summarize("printtimes", append([]string{*summarize}, flag.Args()...), summary)
		return
	}
	fmt.Fprintln(os.Stderr, run(*warm))
}

// run runs print_workers once and returns its "run" line. The order is
// that of the writes' ends: two writes to one pipe are ordered by the
// pipe's lock.
func run(warm bool) string {
	var at [workers][4]int64 // P, start, formatted, written
	t0 := time.Now()
	mainP := samples.P()
	if warm {
		_ = fmt.Sprintln("w", -1)
	}
	var wg sync.WaitGroup
	wg.Add(workers)
	for i := range workers {
		go func() {
			a := &at[i]
			a[0] = samples.P()
			a[1] = int64(time.Since(t0))
			s := fmt.Sprintln("w", i)
			a[2] = int64(time.Since(t0))
			os.Stdout.Write([]byte(s))
			a[3] = int64(time.Since(t0))
			wg.Done()
		}()
	}
	wg.Wait()
	ids := []int64{0, 1, 2, 3}
	sort.Slice(ids, func(i, j int) bool { return at[ids[i]][3] < at[ids[j]][3] })
	xs := []int64{0}
	if warm {
		xs[0] = 1
	}
	xs = append(xs, ids...)
	xs = append(xs, mainP)
	for _, a := range at {
		xs = append(xs, a[:]...)
	}
	return samples.Line("run", xs)
}

// A line is one worker's line in a run.
type line struct {
	id, p                     int64
	start, formatted, written int64
}

// summary reads "run" lines from r and writes what -summarize prints.
func summary(r io.Reader, w io.Writer) error {
	series, err := samples.ReadLines(r, "run")
	if err != nil {
		return err
	}
	xs := series["run"]
	const per = 1 + workers + 1 + 4*workers
	if len(xs)%per != 0 {
		return fmt.Errorf("%d numbers on the run lines, not a multiple of %d", len(xs), per)
	}
	orders := map[string]int{}
	var first, pFirst, writeFirst, writeLater []int64
	runs := len(xs) / per
	for k := range runs {
		x := xs[k*per : (k+1)*per]
		warm := x[0] == 1
		x = x[1:]
		var order []string
		for _, id := range x[:workers] {
			order = append(order, fmt.Sprint(id))
		}
		orders[strings.Join(order, " ")]++
		mainP := x[workers]
		lines := make([]line, workers)
		for i := range lines {
			a := x[workers+1+4*i:]
			lines[i] = line{int64(i), a[0], a[1], a[2], a[3]}
		}
		// In the order their formatting ended: the first to end is the
		// run's first formatted line.
		sort.Slice(lines, func(i, j int) bool { return lines[i].formatted < lines[j].formatted })
		seen := map[int64]bool{mainP: true}
		for i, l := range lines {
			took := l.formatted - l.start
			switch {
			case i == 0 && !warm && l.p == mainP:
				first = append(first, took)
			case !seen[l.p] && (warm || i > 0 && l.start > lines[0].formatted):
				pFirst = append(pFirst, took)
			}
			seen[l.p] = true
		}
		writes := append([]line(nil), lines...)
		sort.Slice(writes, func(i, j int) bool { return writes[i].written < writes[j].written })
		for i, l := range writes {
			if i == 0 {
				writeFirst = append(writeFirst, l.written-l.formatted)
			} else {
				writeLater = append(writeLater, l.written-l.formatted)
			}
		}
	}
	fmt.Fprintf(w, "%d runs; orders:\n", runs)
	keys := make([]string, 0, len(orders))
	for o := range orders {
		keys = append(keys, o)
	}
	sort.Slice(keys, func(i, j int) bool {
		if orders[keys[i]] != orders[keys[j]] {
			return orders[keys[i]] > orders[keys[j]]
		}
		return keys[i] < keys[j]
	})
	for _, o := range keys {
		fmt.Fprintf(w, "  w %s  %d  %.1f%%\n", strings.ReplaceAll(o, " ", " w "), orders[o], 100*float64(orders[o])/float64(runs))
	}
	for _, c := range []struct {
		name, what string
		xs         []int64
	}{
		{"print_first", "the run's first line, formatted on main's P, main having formatted none", first},
		{"print_p_first", "another P's first line, begun with fmt warm", pFirst},
		{"write_first", "the run's first write", writeFirst},
		{"write", "the later writes", writeLater},
	} {
		if len(c.xs) == 0 {
			fmt.Fprintf(w, "%s: no samples (%s)\n", c.name, c.what)
			continue
		}
		fmt.Fprintf(w, "%s for a costs profile (%s, %d samples; p100 the p99.5): {\"n\": %d, \"quantiles\": %s}\n",
			c.name, c.what, len(c.xs), len(c.xs), samples.Format(samples.Capped(c.xs)))
	}
	return nil
}
