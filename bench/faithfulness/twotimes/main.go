// Command twotimes times the race of bench/faithfulness/corpus's
// gosched_incr in real Go: main spawns two goroutines that each read a
// shared x, call runtime.Gosched and write x+1, three times, and the
// outcome is x. On one P the two alternate (x=3); x=6 says one ran whole
// before the other began. Run once (a fresh process is a fresh
// start-up), it prints x and, in ns since main.main's first statement,
// when each go statement returned, when main called Wait, and when each
// goroutine began and ended, with a * on those that ran on a thread other
// than main's:
//
//	GOMAXPROCS=2 go run ./bench/faithfulness/twotimes
//	x=6 go 11920 12480 wait 12530 a 13310 14120 b 41210 42002*
//
// With -rounds N it times instead a process's first park (and N-1 later
// ones): a WaitGroup's Wait, or with -park chan a channel receive. With
// -alloc here or away it times a goroutine's first two allocations on
// main's P or on another. With -window it runs corpus/wake_window timed.
//
// With -summarize it reads such lines (a recording: one run a line, lines
// starting with # ignored) and prints, by outcome, how often each
// goroutine ran on another thread, how often the two ran apart (one
// ended before the other began), and the quantiles of the times that
// decide the race.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/schedlab/schedlab/bench/faithfulness/samples"
	schedlab "github.com/schedlab/schedlab/runtime"
)

func main() {
	summarize := flag.String("summarize", "", "summarize the recording in `FILE` instead of running (the files named after the flags too, pooled)")
	rounds := flag.Int("rounds", 0, "instead of the race, time `N` rounds of one go statement and a park for it: how long from the park to the goroutine's start")
	park := flag.String("park", "wait", "with -rounds, how main parks: `wait` (sync.WaitGroup.Wait, a semaphore) or chan (a receive from the goroutine)")
	window := flag.Bool("window", false, "instead of the race, run corpus/wake_window timed: when the goroutine reached its receive, when main sent, when the goroutine got the value, and on which thread")
	alloc := flag.String("alloc", "", "instead of the race, time a goroutine's first two allocations of 16 bytes, on main's P (`here`: main parks at once) or on another (away: main spins 2ms first, so that another P takes it)")
	flag.Parse()
	if *summarize != "" {
		samples.Summarize("twotimes", append([]string{*summarize}, flag.Args()...), summary)
		return
	}
	if *window {
		wakeWindow()
		return
	}
	if *alloc != "" {
		if *alloc != "here" && *alloc != "away" {
			fmt.Fprintf(os.Stderr, "twotimes: -alloc wants here or away, got %q\n", *alloc)
			os.Exit(2)
		}
		firstAllocs(*alloc == "away")
		return
	}
	if *rounds > 0 {
		if *park != "wait" && *park != "chan" {
			fmt.Fprintf(os.Stderr, "twotimes: -park wants wait or chan, got %q\n", *park)
			os.Exit(2)
		}
		firstRuns(*rounds, *park == "chan")
		return
	}
	race()
}

// firstRuns prints the -rounds line: for each round, the ns from main's
// park (a WaitGroup's Wait, or with viaChan a channel receive) to the
// start of the goroutine it waits for, spawned just before. The first
// Wait of a process is the first semacquire1 that parks, and the first
// to touch the runtime's semaphore table; a channel's park does not.
func firstRuns(n int, viaChan bool) {
	took := make([]int64, n)
	for i := range took {
		var wg sync.WaitGroup
		var start time.Time
		ch := make(chan struct{})
		wg.Add(1)
		go func() {
			start = time.Now()
			if viaChan {
				ch <- struct{}{}
			}
			wg.Done()
		}()
		parked := time.Now()
		if viaChan {
			<-ch
		}
		wg.Wait()
		took[i] = int64(start.Sub(parked))
	}
	kind := "wait"
	if viaChan {
		kind = "chan"
	}
	fmt.Println(samples.Line(kind, took))
}

// wakeWindow runs corpus/wake_window.go timed and prints "window OUTCOME
// recv R send S got G[*]": in ns since main.main's first statement, when
// the goroutine reached its receive, when main sent, and when the
// goroutine had the value, with a * if it ran on another thread than
// main's. Go's during runs are the goroutine woken on the other P within
// main's second 100µs; the recv and send times say whether the
// goroutine was at its receive when main sent.
func wakeWindow() {
	t0 := time.Now()
	main := syscall.Gettid()
	var mainDone atomic.Bool
	ch := make(chan int)
	res := make(chan string)
	var recvAt, gotAt int64
	var else_ bool
	go func() {
		recvAt = int64(time.Since(t0))
		<-ch
		gotAt = int64(time.Since(t0))
		else_ = syscall.Gettid() != main
		if mainDone.Load() {
			res <- "after"
		} else {
			res <- "during"
		}
	}()
	spinFor(100 * time.Microsecond)
	sendAt := int64(time.Since(t0))
	ch <- 1
	spinFor(100 * time.Microsecond)
	mainDone.Store(true)
	out := <-res
	star := ""
	if else_ {
		star = "*"
	}
	fmt.Printf("window %s recv %d send %d got %d%s\n", out, recvAt, sendAt, gotAt, star)
}

// spinFor burns the CPU for d by the clock, as wake_window's spin does.
func spinFor(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// sink keeps firstAllocs' allocations on the heap.
var sink [2]*[2]string

// firstAllocs prints the -alloc line: "alloc P MAINP FIRST SECOND", the P
// the goroutine ran on, main's, and the ns of its first and second
// allocation of a 2-string array (32 bytes, as twowriters' first append
// makes). A P that has run no Go code has an empty mcache: its first
// allocation of a size class takes a span from the heap.
func firstAllocs(away bool) {
	mainP := samples.P()
	done := make(chan [3]int64)
	go func() {
		p := samples.P()
		t0 := time.Now()
		sink[0] = new([2]string)
		t1 := time.Now()
		sink[1] = new([2]string)
		t2 := time.Now()
		done <- [3]int64{p, int64(t1.Sub(t0)), int64(t2.Sub(t1))}
	}()
	if away {
		for t := time.Now(); time.Since(t) < 2*time.Millisecond; {
		}
	}
	r := <-done
	fmt.Println("alloc", r[0], mainP, r[1], r[2])
}

// x is gosched_incr's shared variable, read and written without a lock
// on purpose.
var x int

// race runs gosched_incr once, with timestamps, and prints its line.
func race() {
	t0 := time.Now()
	main := syscall.Gettid()
	var (
		wg          sync.WaitGroup
		gone        [2]int64
		start, end  [2]int64
		other       [2]bool
		waitStarted int64
	)
	wg.Add(2)
	for i := range 2 {
		go func() {
			start[i] = int64(time.Since(t0))
			other[i] = syscall.Gettid() != main
			for range 3 {
				v := x
				runtime.Gosched()
				x = v + 1
			}
			end[i] = int64(time.Since(t0))
			wg.Done()
		}()
		gone[i] = int64(time.Since(t0))
	}
	waitStarted = int64(time.Since(t0))
	wg.Wait()
	star := func(b bool) string {
		if b {
			return "*"
		}
		return ""
	}
	fmt.Printf("x=%d go %d %d wait %d a %d %d%s b %d %d%s\n", x, gone[0], gone[1], waitStarted,
		start[0], end[0], star(other[0]), start[1], end[1], star(other[1]))
}

// run is one recorded line.
type run struct {
	outcome    string
	gone       [2]int64
	wait       int64
	start, end [2]int64
	other      [2]bool
}

// apart reports whether one goroutine ended before the other began.
func (r run) apart() bool {
	return r.end[0] <= r.start[1] || r.end[1] <= r.start[0]
}

func parse(line string) (run, error) {
	var r run
	f := strings.Fields(line)
	if len(f) != 12 || f[1] != "go" || f[4] != "wait" || f[6] != "a" || f[9] != "b" {
		return r, fmt.Errorf("not a twotimes line: %q", line)
	}
	r.outcome = f[0]
	num := func(s string) (int64, error) { return strconv.ParseInt(strings.TrimSuffix(s, "*"), 10, 64) }
	var err error
	for i, at := range []int{2, 3} {
		if r.gone[i], err = num(f[at]); err != nil {
			return r, err
		}
	}
	if r.wait, err = num(f[5]); err != nil {
		return r, err
	}
	for i, at := range []int{7, 10} {
		if r.start[i], err = num(f[at]); err != nil {
			return r, err
		}
		if r.end[i], err = num(f[at+1]); err != nil {
			return r, err
		}
		r.other[i] = strings.HasSuffix(f[at+1], "*")
	}
	return r, nil
}

// summary prints what the recording holds. For -window lines: by outcome
// and by whether the goroutine was at its receive when main sent, the
// share of runs and the time from the send to its having the value. For
// -alloc lines: the
// quantiles of the first allocation on main's P and on another, and of
// the second. For race lines: by outcome,
// the share of runs, how often each goroutine ran elsewhere and the two
// ran apart, and p10/p25/p50/p75/p90 of the second go statement's
// return, of the first goroutine to begin, and of the second. For -rounds
// lines: the quantiles of the first park and of the later ones, by kind,
// and, with both kinds, the sema_first a profile takes: each first Wait
// less the first channel park's median (a new goroutine's first start,
// which both pay), as derive's -dist wants it.
func summary(r io.Reader, w io.Writer) error {
	var runs []run
	first := map[string][]int64{}
	later := map[string][]int64{}
	allocs := map[string][]int64{} // "here first", "away first", "second"
	var windows []windowRun
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if kind, _, _ := strings.Cut(line, " "); kind == "window" {
			wr, err := parseWindow(line)
			if err != nil {
				return fmt.Errorf("line %d: %v", n, err)
			}
			windows = append(windows, wr)
			continue
		}
		if kind, rest, _ := strings.Cut(line, " "); kind == "alloc" {
			f := strings.Fields(rest)
			var v [4]int64
			if len(f) != 4 {
				return fmt.Errorf("line %d: not an alloc line: %q", n, line)
			}
			for i := range v {
				var err error
				if v[i], err = strconv.ParseInt(f[i], 10, 64); err != nil {
					return fmt.Errorf("line %d: %v", n, err)
				}
			}
			where := "away first"
			if v[0] == v[1] {
				where = "here first"
			}
			allocs[where] = append(allocs[where], v[2])
			allocs["second"] = append(allocs["second"], v[3])
			continue
		} else if kind == "wait" || kind == "chan" {
			for i, f := range strings.Fields(rest) {
				v, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					return fmt.Errorf("line %d: %v", n, err)
				}
				if i == 0 {
					first[kind] = append(first[kind], v)
				} else {
					later[kind] = append(later[kind], v)
				}
			}
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
	if len(runs) == 0 && len(first) == 0 && len(allocs) == 0 && len(windows) == 0 {
		return fmt.Errorf("no runs")
	}
	if len(windows) > 0 {
		windowSummary(windows, w)
	}
	for _, k := range []string{"here first", "away first", "second"} {
		if len(allocs[k]) > 0 {
			fmt.Fprintf(w, "alloc, %s (%s): %d, p10/p25/p50/p75/p90 %s ns\n", k,
				map[string]string{"here first": "on main's P", "away first": "on another P", "second": "anywhere"}[k],
				len(allocs[k]), samples.Spread(allocs[k]))
		}
	}
	if len(runs) > 0 {
		raceSummary(runs, w)
	}
	for _, kind := range []string{"wait", "chan"} {
		if len(first[kind]) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s: first park to start, %d processes, p10/p25/p50/p75/p90 %s ns; later ones %s\n",
			kind, len(first[kind]), samples.Spread(first[kind]), samples.Spread(later[kind]))
	}
	if len(first["wait"]) > 0 && len(first["chan"]) > 0 {
		base := samples.Quantiles(first["chan"])[schedlab.NumQuantiles/2]
		extra := make([]int64, len(first["wait"]))
		for i, v := range first["wait"] {
			extra[i] = max(v-base, 0)
		}
		fmt.Fprintf(w, "sema_first (each first wait less the first chan park's median, %dns): -dist sema_first=%s\n", base, samples.DeriveArg(extra))
	}
	return nil
}

// windowRun is one -window line.
type windowRun struct {
	outcome         string
	recv, send, got int64
	else_           bool
}

func parseWindow(line string) (windowRun, error) {
	var r windowRun
	f := strings.Fields(line)
	if len(f) != 8 || f[0] != "window" || f[2] != "recv" || f[4] != "send" || f[6] != "got" {
		return r, fmt.Errorf("not a -window line: %q", line)
	}
	r.outcome = f[1]
	r.else_ = strings.HasSuffix(f[7], "*")
	var err error
	for i, p := range []*int64{&r.recv, &r.send, &r.got} {
		if *p, err = strconv.ParseInt(strings.TrimSuffix(f[3+2*i], "*"), 10, 64); err != nil {
			return r, err
		}
	}
	return r, nil
}

// windowSummary prints, by outcome and by whether the goroutine was at
// its receive when main sent, the share of runs, how many ran elsewhere,
// and the quantiles of the time from the send to the goroutine's having
// the value.
func windowSummary(ws []windowRun, w io.Writer) {
	type key struct {
		outcome string
		waiting bool
	}
	by := map[key][]windowRun{}
	var keys []key
	for _, r := range ws {
		k := key{r.outcome, r.recv < r.send}
		if by[k] == nil {
			keys = append(keys, k)
		}
		by[k] = append(by[k], r)
	}
	slices.SortStableFunc(keys, func(a, b key) int { return len(by[b]) - len(by[a]) })
	fmt.Fprintf(w, "%d runs of wake_window\n", len(ws))
	for _, k := range keys {
		rs := by[k]
		var elsewhere int
		var lat []int64
		for _, r := range rs {
			if r.else_ {
				elsewhere++
			}
			lat = append(lat, r.got-r.send)
		}
		at := "not yet at its receive when main sent"
		if k.waiting {
			at = "at its receive when main sent"
		}
		fmt.Fprintf(w, "%-6s %5.1f%%  %s; on another thread %.1f%%; send to got p10/p25/p50/p75/p90 %s ns\n",
			k.outcome, 100*float64(len(rs))/float64(len(ws)), at, 100*float64(elsewhere)/float64(len(rs)), samples.Spread(lat))
	}
}

// raceSummary prints the race lines' summary (see summary).
func raceSummary(runs []run, w io.Writer) {
	by := map[string][]run{"all": runs}
	var outcomes []string
	for _, rn := range runs {
		if by[rn.outcome] == nil {
			outcomes = append(outcomes, rn.outcome)
		}
		by[rn.outcome] = append(by[rn.outcome], rn)
	}
	slices.SortStableFunc(outcomes, func(a, b string) int { return len(by[b]) - len(by[a]) })
	fmt.Fprintf(w, "%d runs; ns since main.main's first statement, p10/p25/p50/p75/p90\n", len(runs))
	fmt.Fprintf(w, "%-6s %6s %7s %7s %6s  %-30s %-30s %s\n", "x", "share", "a else", "b else", "apart", "second go returned", "first start", "second start")
	for _, o := range append([]string{"all"}, outcomes...) {
		rs := by[o]
		var aElse, bElse, apart int
		var gone1, first, second []int64
		for _, rn := range rs {
			if rn.other[0] {
				aElse++
			}
			if rn.other[1] {
				bElse++
			}
			if rn.apart() {
				apart++
			}
			gone1 = append(gone1, rn.gone[1])
			first = append(first, min(rn.start[0], rn.start[1]))
			second = append(second, max(rn.start[0], rn.start[1]))
		}
		pct := func(k, of int) string { return fmt.Sprintf("%.1f%%", 100*float64(k)/float64(of)) }
		fmt.Fprintf(w, "%-6s %6s %7s %7s %6s  %-30s %-30s %s\n", o, pct(len(rs), len(runs)), pct(aElse, len(rs)), pct(bElse, len(rs)), pct(apart, len(rs)),
			samples.Spread(gone1), samples.Spread(first), samples.Spread(second))
	}
}
