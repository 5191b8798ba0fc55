// Command spawntimes times the race of bench/faithfulness/corpus's loopvar
// in real Go: main spawns four goroutines in a loop and waits for them,
// and the outcome is the order in which they ran. Run once (a fresh
// process is a fresh start-up), it prints that order and, in ns since
// main.main's first statement, when each go statement returned, when main
// called Wait, and when each goroutine began, with a * on those that ran
// on a thread other than main's:
//
//	GOMAXPROCS=2 go run ./bench/faithfulness/spawntimes
//	0 3 1 2 go 2104 2391 2533 2650 wait 2790 start 2431* 3114 3240 3012
//
// With -summarize it reads such lines (a recording: one run a line, lines
// starting with # ignored) and prints, by outcome, the quantiles of the
// times that decide the race: how long the four go statements took, and
// when the first goroutine to run on another thread began.
//
// With -malg it times instead, in ns, each of 16 go statements that make
// a new G (malg: no dead G to reuse, as in a young process), then each of
// 16 that reuse those Gs once they have exited (gfget), and prints both
// lists on one line:
//
//	GOMAXPROCS=1 go run ./bench/faithfulness/spawntimes -malg
//	new 9871 641 30012 ... reused 211 130 ...
//
// -summarize reads those lines too, and prints the quantiles of each
// kind and of each of the first eight new Gs by its rank, in the
// costs profile's 21 quantiles (runtime.NumQuantiles), ready for a
// profile's malg entry. docs/faithfulness.md ("What a new goroutine
// costs") reads them.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/schedlab/schedlab/bench/faithfulness/samples"
	"github.com/schedlab/schedlab/runtime"
)

func main() {
	summarize := flag.String("summarize", "", "summarize the recording in `FILE` instead of running (the files named after the flags too, pooled)")
	malg := flag.Bool("malg", false, "time 16 go statements that make new Gs, then 16 that reuse them, instead of the race")
	flag.Parse()
	if *summarize != "" {
		samples.Summarize("spawntimes", append([]string{*summarize}, flag.Args()...), summary)
		return
	}
	if *malg {
		spawnCosts()
		return
	}
	race()
}

// spawnBatch times n go statements of goroutines that exit at once, and
// waits for them.
func spawnBatch(n int) []int64 {
	var wg sync.WaitGroup
	took := make([]int64, n)
	wg.Add(n)
	t0 := time.Now()
	prev := int64(time.Since(t0))
	for i := range n {
		go wg.Done()
		now := int64(time.Since(t0))
		took[i] = now - prev
		prev = now
	}
	wg.Wait()
	return took
}

// spawnCosts prints the -malg line: 16 new Gs, then 16 reused.
func spawnCosts() {
	fresh := spawnBatch(16)
	// Let every G exit and reach its P's free list (gfput) before the
	// second batch.
	time.Sleep(time.Millisecond)
	reused := spawnBatch(16)
	var b strings.Builder
	b.WriteString("new")
	for _, t := range fresh {
		fmt.Fprintf(&b, " %d", t)
	}
	b.WriteString(" reused")
	for _, t := range reused {
		fmt.Fprintf(&b, " %d", t)
	}
	fmt.Println(b.String())
}

// race runs loopvar once, with timestamps, and prints its line.
func race() {
	t0 := time.Now()
	main := syscall.Gettid()
	var (
		wg    sync.WaitGroup
		next  atomic.Int32
		order [4]int
		gone  [4]int64
		start [4]int64
		other [4]bool
		wait  int64
	)
	wg.Add(4)
	for i := 0; i < 4; i++ {
		go func() {
			start[i] = int64(time.Since(t0))
			order[next.Add(1)-1] = i
			other[i] = syscall.Gettid() != main
			wg.Done()
		}()
		gone[i] = int64(time.Since(t0))
	}
	wait = int64(time.Since(t0))
	wg.Wait()
	var b strings.Builder
	fmt.Fprintf(&b, "%d %d %d %d go", order[0], order[1], order[2], order[3])
	for _, t := range gone {
		fmt.Fprintf(&b, " %d", t)
	}
	fmt.Fprintf(&b, " wait %d start", wait)
	for i, t := range start {
		fmt.Fprintf(&b, " %d", t)
		if other[i] {
			b.WriteByte('*')
		}
	}
	fmt.Println(b.String())
}

// run is one recorded line.
type run struct {
	outcome string
	gone    [4]int64
	wait    int64
	start   [4]int64
	other   [4]bool
}

func parse(line string) (run, error) {
	var r run
	f := strings.Fields(line)
	if len(f) != 16 || f[4] != "go" || f[9] != "wait" || f[11] != "start" {
		return r, fmt.Errorf("not a spawntimes line: %q", line)
	}
	r.outcome = strings.Join(f[:4], " ")
	num := func(s string) (int64, error) { return strconv.ParseInt(strings.TrimSuffix(s, "*"), 10, 64) }
	var err error
	for i := range 4 {
		if r.gone[i], err = num(f[5+i]); err != nil {
			return r, err
		}
		if r.start[i], err = num(f[12+i]); err != nil {
			return r, err
		}
		r.other[i] = strings.HasSuffix(f[12+i], "*")
	}
	r.wait, err = num(f[10])
	return r, err
}

// summary prints the outcomes and, for each, quantiles of the spawn loop's
// span and of the first stolen goroutine's start.
func summary(r io.Reader, w io.Writer) error {
	var runs []run
	var costs [][2][]int64
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "new ") {
			c, err := parseCosts(line)
			if err != nil {
				return fmt.Errorf("line %d: %v", n, err)
			}
			costs = append(costs, c)
			continue
		}
		rn, err := parse(line)
		if err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		runs = append(runs, rn)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(costs) > 0 {
		if len(runs) > 0 {
			return fmt.Errorf("race lines and -malg lines in one recording")
		}
		return costSummary(costs, w)
	}
	if len(runs) == 0 {
		return fmt.Errorf("no runs")
	}
	q := func(xs []int64) string {
		if len(xs) == 0 {
			return "-"
		}
		slices.Sort(xs)
		at := func(p float64) int64 { return xs[int(p*float64(len(xs)-1))] }
		return fmt.Sprintf("%d/%d/%d/%d/%d", at(.1), at(.25), at(.5), at(.75), at(.9))
	}
	byOutcome := map[string][]run{}
	for _, rn := range runs {
		byOutcome[rn.outcome] = append(byOutcome[rn.outcome], rn)
	}
	outcomes := make([]string, 0, len(byOutcome))
	for o := range byOutcome {
		outcomes = append(outcomes, o)
	}
	sort.Slice(outcomes, func(i, j int) bool {
		a, b := len(byOutcome[outcomes[i]]), len(byOutcome[outcomes[j]])
		if a != b {
			return a > b
		}
		return outcomes[i] < outcomes[j]
	})
	all := append([]string{"all"}, outcomes...)
	fmt.Fprintf(w, "%d runs; ns since main.main's first statement, p10/p25/p50/p75/p90\n", len(runs))
	fmt.Fprintf(w, "%-9s %6s  %-28s %-28s %-28s %s\n", "outcome", "share", "first go returned", "fourth go returned", "first start elsewhere", "elsewhere")
	for _, o := range all {
		rs := runs
		if o != "all" {
			rs = byOutcome[o]
		}
		var g0, g3, st []int64
		stolen := 0
		for _, rn := range rs {
			g0 = append(g0, rn.gone[0])
			g3 = append(g3, rn.gone[3])
			first := int64(-1)
			for i := range 4 {
				if rn.other[i] {
					stolen++
					if first < 0 || rn.start[i] < first {
						first = rn.start[i]
					}
				}
			}
			if first >= 0 {
				st = append(st, first)
			}
		}
		fmt.Fprintf(w, "%-9s %5.1f%%  %-28s %-28s %-28s %.2f a run\n", o, 100*float64(len(rs))/float64(len(runs)), q(g0), q(g3), q(st), float64(stolen)/float64(len(rs)))
	}
	return nil
}

// parseCosts reads a -malg line: "new" and 16 ns, "reused" and 16 ns.
func parseCosts(line string) ([2][]int64, error) {
	var c [2][]int64
	f := strings.Fields(line)
	if len(f) != 34 || f[0] != "new" || f[17] != "reused" {
		return c, fmt.Errorf("not a spawntimes -malg line: %q", line)
	}
	for k, at := range []int{1, 18} {
		for _, s := range f[at : at+16] {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return c, err
			}
			c[k] = append(c[k], v)
		}
	}
	return c, nil
}

// costSummary prints the -malg recording's quantiles: every new G, every
// reused one, and the new Gs by rank; then the malg entry of a costs
// profile made from them, and its malg_rank entries, one a rank: the new Gs' quantiles less the probe's own
// overhead (the reused Gs' median less the default profile's newproc
// median) and no less than newproc's, p100 the recording's p99.5.
func costSummary(costs [][2][]int64, w io.Writer) error {
	var fresh, reused []int64
	for _, c := range costs {
		fresh = append(fresh, c[0]...)
		reused = append(reused, c[1]...)
	}
	fmt.Fprintf(w, "%d runs; ns a go statement, quantiles 0%%, 5%%, ..., 100%%\n", len(costs))
	qf, qr := samples.Quantiles(fresh), samples.Quantiles(reused)
	fmt.Fprintf(w, "new G (malg), n %d: %s\n", len(fresh), samples.Format(qf))
	fmt.Fprintf(w, "reused G (gfget), n %d: %s\n", len(reused), samples.Format(qr))
	for rank := range 16 {
		var xs []int64
		for _, c := range costs {
			xs = append(xs, c[0][rank])
		}
		slices.Sort(xs)
		fmt.Fprintf(w, "new G %2d: p10 %d p50 %d p90 %d\n", rank+1, xs[len(xs)/10], xs[len(xs)/2], xs[len(xs)*9/10])
	}
	newproc := runtime.DefaultCosts().Dists[runtime.CostNewproc].Quantiles
	mid := runtime.NumQuantiles / 2
	over := qr[mid] - newproc[mid]
	malg := samples.Capped(fresh)
	for i := range malg {
		malg[i] = max(malg[i]-over, newproc[i])
	}
	fmt.Fprintf(w, "malg for a costs profile (less %dns of overhead, p100 the p99.5): {\"n\": %d, \"quantiles\": %s}\n", over, len(fresh), samples.Format(malg))
	// The same by rank: the k-th new G's own distribution, for the
	// profile's malg_rank (runtime.Costs.MalgRank).
	fmt.Fprintf(w, "malg_rank for a costs profile (the same by rank, no less than newproc's p0):\n  \"malg_rank\": [\n")
	for rank := range 16 {
		var xs []int64
		for _, c := range costs {
			xs = append(xs, c[0][rank])
		}
		q := samples.Capped(xs)
		for i := range q {
			// Not below newproc's p0; newproc's own quantiles are of
			// every spawn, not of one rank's.
			q[i] = max(q[i]-over, newproc[0])
		}
		sep := ","
		if rank == 15 {
			sep = ""
		}
		fmt.Fprintf(w, "    {\"n\": %d, \"quantiles\": %s}%s\n", len(xs), samples.Format(q), sep)
	}
	fmt.Fprintf(w, "  ]\n")
	return nil
}
