// Command syscalltimes times the race of bench/faithfulness/corpus's
// syscall_cpu in real Go: goroutine Y makes a 1ms nanosleep system call
// while B and C each burn 1ms of CPU, and the outcome is the order in
// which the three finish. Run once (a fresh process is a fresh start-up),
// it prints that order and, in µs since main spawned them, when each
// goroutine started and ended and when Y's system call returned:
//
//	GOMAXPROCS=2 go run ./bench/faithfulness/syscalltimes
//	CBY Ystart 61 Yret 1138 Bstart 140 Bend 1141 Cstart 60 Cend 1061
//
// With -summarize it reads such lines (a recording: one run a line, lines
// starting with # ignored) and prints the outcomes and the quantiles of
// the intervals that decide them: how much longer than 1ms the
// nanosleep took, and how long after Y's call B got a P (sysmon's retake
// of Y's P and the hand-off to a new M). docs/faithfulness.md ("Where
// syscall_cpu's spread comes from") reads them against the simulator's.
//
// With -nanosleep N it times instead N nanosleep(1ms) calls in a row from
// main, with nothing else running, and prints how late each returned, in
// ns past 1ms, on one line ("nanosleep 96212 88410 ..."); -summarize reads
// such lines and prints the lateness's 21 quantiles (0%, 5%, ..., 100%),
// as a costs profile holds them: the kernel's timer slack and the
// thread's wake-up, what the engine's syscall(d, timer=True) adds.
//
// With -println N it times N fmt.Println calls in a row from main, each a
// short line to standard output that starts with # (so that -summarize
// skips it), and then prints their durations in ns on one line
// ("println 35120 2210 ..."); -summarize gives the quantiles of the first
// call and of the others: what a young process's first printed line
// costs against a warm one's.
//
// With -usleep N it times N nanosleep(20µs) calls in a row, sysmon's
// shortest sleep (usleep(20) is that system call on Linux), while another
// goroutine spins when GOMAXPROCS is 2 or more, and prints how late each
// returned ("usleep 61020 55432 ..."); -summarize gives their quantiles
// and the profile's sysmon_late entry: the timer slack that makes
// sysmon's 20µs ticks longer.
//
// With -retake, run at GOMAXPROCS 1, it times how soon a goroutine that
// waits in the P's queue behind another's 2ms nanosleep starts: sysmon's
// retake of the P and the hand-off to another thread ("retake 80123");
// -summarize gives the quantiles. Compare schedlab's with
// bench/faithfulness/syscalltimes/retake.star.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	goruntime "runtime"
	"slices"
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
	sleeps := flag.Int("nanosleep", 0, "time `N` nanosleep(1ms) calls in a row instead of the race")
	prints := flag.Int("println", 0, "time `N` fmt.Println calls in a row instead of the race")
	usleeps := flag.Int("usleep", 0, "time `N` nanosleep(20µs) calls in a row, sysmon's usleep(20), instead of the race")
	retakes := flag.Bool("retake", false, "time how soon a goroutine waiting behind a 2ms nanosleep starts (sysmon's retake), instead of the race")
	flag.Parse()
	if *summarize != "" {
		samples.Summarize("syscalltimes", append([]string{*summarize}, flag.Args()...), summary)
		return
	}
	if *sleeps > 0 {
		nanosleeps(*sleeps)
		return
	}
	if *prints > 0 {
		printlns(*prints)
		return
	}
	if *usleeps > 0 {
		usleep20s(*usleeps)
		return
	}
	if *retakes {
		retake()
		return
	}
	race()
}

// printlns prints n lines with fmt.Println, then the -println line: how
// long each call took, in ns.
func printlns(n int) {
	took := make([]time.Duration, n)
	for i := range n {
		t := time.Now()
		fmt.Println("# w", i)
		took[i] = time.Since(t)
	}
	var b strings.Builder
	b.WriteString("println")
	for _, d := range took {
		fmt.Fprintf(&b, " %d", d)
	}
	fmt.Println(b.String())
}

// nanosleeps prints the -nanosleep line: how late each of n
// nanosleep(1ms) calls returned, in ns.
func nanosleeps(n int) {
	var b strings.Builder
	b.WriteString("nanosleep")
	for range n {
		ts := syscall.NsecToTimespec(int64(time.Millisecond))
		t := time.Now()
		syscall.Nanosleep(&ts, nil)
		fmt.Fprintf(&b, " %d", time.Since(t)-time.Millisecond)
	}
	fmt.Println(b.String())
}

// sysmonSleep is sysmon's shortest sleep, usleep(20).
const sysmonSleep = 20 * time.Microsecond

// usleep20s prints the -usleep line: how late each of n nanosleep(20µs)
// calls returned, in ns, as sysmon's usleep(20) sleeps (runtime.usleep is
// the nanosleep system call on Linux). With GOMAXPROCS 2 or more another
// goroutine spins meanwhile, as a program's goroutines run while sysmon
// watches them.
func usleep20s(n int) {
	var stop atomic.Bool
	if goruntime.GOMAXPROCS(0) > 1 {
		go func() {
			for !stop.Load() {
			}
		}()
	}
	var b strings.Builder
	b.WriteString("usleep")
	for range n {
		ts := syscall.NsecToTimespec(int64(sysmonSleep))
		t := time.Now()
		syscall.Nanosleep(&ts, nil)
		fmt.Fprintf(&b, " %d", time.Since(t)-sysmonSleep)
	}
	stop.Store(true)
	fmt.Println(b.String())
}

// retake prints the -retake line: how long after a goroutine began a 2ms
// nanosleep another goroutine, waiting in the same P's queue, started, in
// ns. Run at GOMAXPROCS 1 the waiting goroutine can start only once
// sysmon retakes the P (retake, handoffp, startm): main spawns it first
// and the sleeper last, so that the sleeper runs from runnext when main
// blocks.
func retake() {
	var began, started time.Duration
	t0 := time.Now()
	done := make(chan bool)
	go func() {
		started = time.Since(t0)
		done <- true
	}()
	go func() {
		began = time.Since(t0)
		ts := syscall.NsecToTimespec(int64(2 * time.Millisecond))
		syscall.Nanosleep(&ts, nil)
		done <- true
	}()
	<-done
	<-done
	fmt.Println(samples.Line("retake", []int64{int64(started - began)}))
}

// race runs the program once and prints its line.
func race() {
	var (
		next  atomic.Int32
		order [3]string
		at    [6]int64 // Ystart, Yret, Bstart, Bend, Cstart, Cend
		wg    sync.WaitGroup
	)
	t0 := time.Now()
	mark := func(i int) { at[i] = time.Since(t0).Microseconds() }
	done := func(name string) {
		order[next.Add(1)-1] = name
		wg.Done()
	}
	spin := func(d time.Duration) {
		for t := time.Now(); time.Since(t) < d; {
		}
	}
	wg.Add(3)
	go func() {
		mark(0)
		ts := syscall.NsecToTimespec(int64(time.Millisecond))
		syscall.Nanosleep(&ts, nil)
		mark(1)
		done("Y")
	}()
	go func() {
		mark(2)
		spin(time.Millisecond)
		mark(3)
		done("B")
	}()
	go func() {
		mark(4)
		spin(time.Millisecond)
		mark(5)
		done("C")
	}()
	wg.Wait()
	fmt.Printf("%s Ystart %d Yret %d Bstart %d Bend %d Cstart %d Cend %d\n",
		order[0]+order[1]+order[2], at[0], at[1], at[2], at[3], at[4], at[5])
}

// summary prints the outcomes of the recorded runs and the quantiles of
// the intervals between their marks.
func summary(r io.Reader, w io.Writer) error {
	outcomes := map[string]int{}
	var sleep, bAfterY, yStart, bEndMinusYRet, late, usleepLate, retakeAt, firstPrint, laterPrint []int64
	n := 0
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if f[0] == "println" {
			for i, x := range f[1:] {
				v, err := strconv.ParseInt(x, 10, 64)
				if err != nil {
					return fmt.Errorf("line %d: %v", line, err)
				}
				if i == 0 {
					firstPrint = append(firstPrint, v)
				} else {
					laterPrint = append(laterPrint, v)
				}
			}
			continue
		}
		if f[0] == "retake" {
			for _, x := range f[1:] {
				v, err := strconv.ParseInt(x, 10, 64)
				if err != nil {
					return fmt.Errorf("line %d: %v", line, err)
				}
				retakeAt = append(retakeAt, v)
			}
			continue
		}
		if f[0] == "nanosleep" || f[0] == "usleep" {
			for _, x := range f[1:] {
				v, err := strconv.ParseInt(x, 10, 64)
				if err != nil {
					return fmt.Errorf("line %d: %v", line, err)
				}
				if f[0] == "usleep" {
					usleepLate = append(usleepLate, v)
				} else {
					late = append(late, v)
				}
			}
			continue
		}
		if len(f) != 13 {
			return fmt.Errorf("line %d: %d fields, want 13: %q", line, len(f), text)
		}
		v := map[string]int64{}
		for i := 1; i < len(f); i += 2 {
			x, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil {
				return fmt.Errorf("line %d: %s: %v", line, f[i], err)
			}
			v[f[i]] = x
		}
		n++
		outcomes[f[0]]++
		sleep = append(sleep, v["Yret"]-v["Ystart"]-1000)
		bAfterY = append(bAfterY, v["Bstart"]-v["Ystart"])
		yStart = append(yStart, v["Ystart"])
		bEndMinusYRet = append(bEndMinusYRet, v["Bend"]-v["Yret"])
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(firstPrint) > 0 {
		if n > 0 || len(late) > 0 {
			return fmt.Errorf("-println lines and other lines in one recording")
		}
		fmt.Fprintf(w, "fmt.Println, ns, quantiles 0%%, 5%%, ..., 100%%\n")
		fmt.Fprintf(w, "first call, n %d: %s\n", len(firstPrint), samples.Format(samples.Quantiles(firstPrint)))
		if len(laterPrint) > 0 {
			// print_first is what the first line costs more than a
			// later one: the later calls' median is the line's write
			// and fmt's warm work.
			later := samples.Quantiles(laterPrint)[runtime.NumQuantiles/2]
			fmt.Fprintf(w, "later calls, n %d: %s\n", len(laterPrint), samples.Format(samples.Quantiles(laterPrint)))
			extra := make([]int64, len(firstPrint))
			for i, v := range firstPrint {
				extra[i] = v - later
			}
			fmt.Fprintf(w, "print_first for a costs profile (less the later calls' median, %dns; p100 the p99.5): {\"n\": %d, \"quantiles\": %s}\n", later, len(extra), samples.Format(samples.Capped(extra)))
		}
		return nil
	}
	if len(retakeAt) > 0 {
		if n > 0 || len(late) > 0 || len(usleepLate) > 0 {
			return fmt.Errorf("-retake lines and other lines in one recording")
		}
		fmt.Fprintf(w, "the waiting goroutine's start after the nanosleep began, ns, n %d, quantiles 0%%, 5%%, ..., 100%%: %s\n", len(retakeAt), samples.Format(samples.Quantiles(retakeAt)))
		return nil
	}
	if len(usleepLate) > 0 {
		if n > 0 || len(late) > 0 {
			return fmt.Errorf("-usleep lines and other lines in one recording")
		}
		fmt.Fprintf(w, "nanosleep(20µs) past 20µs, ns, n %d, quantiles 0%%, 5%%, ..., 100%%: %s\n", len(usleepLate), samples.Format(samples.Quantiles(usleepLate)))
		fmt.Fprintf(w, "sysmon_late for a costs profile (p100 the p99.5): {\"n\": %d, \"quantiles\": %s}\n", len(usleepLate), samples.Format(samples.Capped(usleepLate)))
		return nil
	}
	if len(late) > 0 {
		if n > 0 {
			return fmt.Errorf("race lines and -nanosleep lines in one recording")
		}
		fmt.Fprintf(w, "nanosleep(1ms) past 1ms, ns, n %d, quantiles 0%%, 5%%, ..., 100%%: %s\n", len(late), samples.Format(samples.Quantiles(late)))
		fmt.Fprintf(w, "syscall_timer_late for a costs profile (p100 the p99.5): {\"n\": %d, \"quantiles\": %s}\n", len(late), samples.Format(samples.Capped(late)))
		return nil
	}
	if n == 0 {
		return fmt.Errorf("no runs")
	}
	names := make([]string, 0, len(outcomes))
	for k := range outcomes {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int {
		if outcomes[a] != outcomes[b] {
			return outcomes[b] - outcomes[a]
		}
		return strings.Compare(a, b)
	})
	fmt.Fprintf(w, "%d runs:", n)
	for _, k := range names {
		fmt.Fprintf(w, " %s %.1f%%", k, 100*float64(outcomes[k])/float64(n))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "µs                              p10    p25    p50    p75    p90")
	for _, row := range []struct {
		name string
		xs   []int64
	}{
		{"Y's nanosleep(1ms) past 1ms", sleep},
		{"Y's start", yStart},
		{"B's start after Y's", bAfterY},
		{"B's end after Y's return", bEndMinusYRet},
	} {
		fmt.Fprintf(w, "%-30s", row.name)
		for _, p := range []float64{0.10, 0.25, 0.50, 0.75, 0.90} {
			fmt.Fprintf(w, " %6d", quantile(row.xs, p))
		}
		fmt.Fprintln(w)
	}
	return nil
}

// quantile returns the p-quantile of xs (nearest rank, xs unsorted).
func quantile(xs []int64, p float64) int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}
