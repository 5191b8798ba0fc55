// Command ctxtimes times, in real Go, bench/faithfulness/corpus's
// ctx_fanout after its cancel: three workers loop on 20µs of CPU until
// their context is cancelled, main cancels after 1ms and waits. Each
// worker notes its P (samples.P) and reads the clock when it sees
// the cancel, after fmt.Sprintln formats its line and after the line's
// os.Stdout.Write. Run once (a fresh process is a fresh start-up) at
// GOMAXPROCS 2 or more, with standard output a pipe, as the recordings'
// is (record.sh makes it one). It prints one "run" line on standard
// error:
//
//	GOMAXPROCS=2 go run ./bench/faithfulness/ctxtimes | cat
//	run 2 3 1 1 0 10214 48821 61305 1 ...
//
// the order of the writes' ends (three ids), main's P after the cancel,
// then for worker 1 to 3 its P, and when it saw the cancel, formatted its
// line and wrote it, in ns since main called cancel.
//
// With -light a worker prints with one fmt.Println, as ctx_fanout does,
// and reads the clock and its P only after it: the probe then changes
// the race least, and records only when each line was written.
//
// With -summarize it reads such lines and prints, for each order, how
// often it came and each worker's median times and P: which worker
// formats its line on a P that had formatted none (a cold P, the
// profile's print_p_first) and how long that takes against a warm P's
// write (docs/faithfulness.md, "ctx_fanout after the cancel").
package main

import (
	"context"
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

// workers is ctx_fanout's number of goroutines, ids 1 to 3.
const workers = 3

func main() {
	summarize := flag.String("summarize", "", "summarize the recording in `FILE` instead of running (the files named after the flags too, pooled)")
	light := flag.Bool("light", false, "print with fmt.Println as ctx_fanout does and read the clock only after it (seen and formatted are then the write's end too)")
	flag.Parse()
	if *summarize != "" {
		samples.Summarize("ctxtimes", append([]string{*summarize}, flag.Args()...), summary)
		return
	}
	fmt.Fprintln(os.Stderr, run(*light))
}

func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// run runs ctx_fanout once and returns its "run" line. With light, a
// worker prints as ctx_fanout does, one fmt.Println, and reads the clock
// and its P only after it, so that the probe changes the race least; its
// seen and formatted are then its written.
func run(light bool) string {
	var at [workers][4]int64 // P, seen, formatted, written
	var cancelled time.Time  // set before cancel, whose close the workers' receive follows
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(workers)
	for i := range workers {
		go func() {
			defer wg.Done()
			for {
				select {
				case <-ctx.Done():
					if light {
						fmt.Println("stop", i+1)
						t := int64(time.Since(cancelled))
						at[i] = [4]int64{samples.P(), t, t, t}
						return
					}
					seen := time.Now()
					a := &at[i]
					a[0] = samples.P()
					s := fmt.Sprintln("stop", i+1)
					formatted := time.Now()
					os.Stdout.Write([]byte(s))
					written := time.Now()
					a[1], a[2], a[3] = int64(seen.Sub(cancelled)), int64(formatted.Sub(cancelled)), int64(written.Sub(cancelled))
					return
				default:
					spin(20 * time.Microsecond)
				}
			}
		}()
	}
	time.Sleep(time.Millisecond)
	cancelled = time.Now()
	cancel()
	mainP := samples.P()
	wg.Wait()
	ids := []int64{1, 2, 3}
	sort.Slice(ids, func(i, j int) bool { return at[ids[i]-1][3] < at[ids[j]-1][3] })
	xs := append(ids, mainP)
	for _, a := range at {
		xs = append(xs, a[:]...)
	}
	return samples.Line("run", xs)
}

// summary reads "run" lines and prints each order's share and, for each
// worker, its median times since the cancel and its most frequent P.
func summary(r io.Reader, w io.Writer) error {
	series, err := samples.ReadLines(r, "run")
	if err != nil {
		return err
	}
	const width = 4 + 4*workers
	xs := series["run"]
	if len(xs)%width != 0 {
		return fmt.Errorf("%d numbers in the run lines, not a multiple of %d", len(xs), width)
	}
	type group struct {
		n     int
		times [workers][3][]int64
		ps    [workers]map[int64]int
	}
	groups := map[string]*group{}
	runs := len(xs) / width
	for k := range runs {
		x := xs[k*width : (k+1)*width]
		order := fmt.Sprintf("stop %d stop %d stop %d", x[0], x[1], x[2])
		g := groups[order]
		if g == nil {
			g = &group{}
			for i := range g.ps {
				g.ps[i] = map[int64]int{}
			}
			groups[order] = g
		}
		g.n++
		for i := range workers {
			a := x[4+4*i : 8+4*i]
			g.ps[i][a[0]]++
			for j := range 3 {
				g.times[i][j] = append(g.times[i][j], a[1+j])
			}
		}
	}
	orders := make([]string, 0, len(groups))
	for o := range groups {
		orders = append(orders, o)
	}
	sort.Slice(orders, func(i, j int) bool {
		if groups[orders[i]].n != groups[orders[j]].n {
			return groups[orders[i]].n > groups[orders[j]].n
		}
		return orders[i] < orders[j]
	})
	fmt.Fprintf(w, "%d runs; per order, each worker's P (most runs) and median µs after the cancel: seen / formatted / written\n", runs)
	for _, o := range orders {
		g := groups[o]
		var parts []string
		for i := range workers {
			p, pn := int64(-1), 0
			for q, n := range g.ps[i] {
				if n > pn || n == pn && q < p {
					p, pn = q, n
				}
			}
			med := func(v []int64) float64 { return float64(samples.Quantiles(v)[10]) / 1000 }
			parts = append(parts, fmt.Sprintf("w%d P%d %.0f/%.0f/%.0f", i+1, p, med(g.times[i][0]), med(g.times[i][1]), med(g.times[i][2])))
		}
		fmt.Fprintf(w, "%-22s %5.1f%%  %s\n", o, 100*float64(g.n)/float64(runs), strings.Join(parts, "  "))
	}
	return nil
}
