// Command busywake times, in real Go, how long a goroutine readied by a
// channel send takes to run on another thread while the machine's CPUs
// are busy with the program's own threads: what a woken M meets when
// four Ps share two CPUs, as in the corpus's 4-P recordings.
//
// Run once, it starts -spinners goroutines that burn the CPU for the
// whole run, and does -n rounds of: spawn a goroutine that blocks on a
// channel, spin 200µs (it parks; the other Ms find nothing and park),
// send, and spin 300µs more while the woken M takes the goroutine from
// main's runnext (wakep → startm → the thread's wake-up, then runqgrab's
// usleep(3) and the steal). It prints, in ns, each round's time from the
// send to the goroutine's start, with a * on those that started on
// main's own thread (after main's spin: no other thread took it), and a -
// for a round whose goroutine had not yet reached its receive when main
// sent (it had not run at all in main's 200µs):
//
//	GOMAXPROCS=4 go run ./bench/faithfulness/busywake -spinners 1 -n 50
//	busy1 78012 80311 410220* - ...
//
// A second line, spawn, gives each round's time from the go statement to
// the goroutine's first statement, with a * if that was on main's thread.
//
// With -spinners 0 main alone is busy and the second CPU is free; with
// -spinners 1 main and the spinner hold both CPUs of a 2-CPU machine,
// and the woken thread must take one from them.
//
// With -summarize it reads such lines (a recording, lines starting with #
// ignored) and prints, for each kind, the quantiles of the rounds that
// started on another thread, and how many did not or had not reached
// their receive.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/schedlab/schedlab/bench/faithfulness/samples"
)

func main() {
	summarize := flag.String("summarize", "", "summarize the recording in `FILE` instead of running (the files named after the flags too, pooled)")
	spinners := flag.Int("spinners", 1, "goroutines that burn the CPU for the whole run, beside main: `K`")
	n := flag.Int("n", 50, "rounds: `N` sends that ready a parked goroutine")
	flag.Parse()
	if *summarize != "" {
		samples.Summarize("busywake", append([]string{*summarize}, flag.Args()...), summary)
		return
	}
	busy, spawned := rounds(*spinners, *n)
	fmt.Println(busy)
	fmt.Println(spawned)
}

// spin burns the CPU for d by the clock.
func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// rounds runs the spinners and n rounds, and returns the two lines: the
// busy line (from each send to the goroutine's start) and the spawn line
// (from each go statement to the goroutine's first statement, * if that
// was on main's thread).
func rounds(spinners, n int) (string, string) {
	var stop atomic.Bool
	for range spinners {
		go func() {
			for !stop.Load() {
				spin(10 * time.Microsecond)
			}
		}()
	}
	mainTid := syscall.Gettid()
	var b, sp strings.Builder
	fmt.Fprintf(&b, "busy%d", spinners)
	fmt.Fprintf(&sp, "spawn%d", spinners)
	for range n {
		ch := make(chan struct{})
		done := make(chan struct{})
		var started time.Time
		var onMain bool
		var waiting atomic.Bool
		var began time.Time
		var beganOnMain bool
		spawned := time.Now()
		go func() {
			began = time.Now()
			beganOnMain = syscall.Gettid() == mainTid
			waiting.Store(true)
			<-ch
			started = time.Now()
			onMain = syscall.Gettid() == mainTid
			close(done)
		}()
		spin(200 * time.Microsecond)
		ready := waiting.Load()
		sent := time.Now()
		ch <- struct{}{}
		spin(300 * time.Microsecond)
		<-done
		fmt.Fprintf(&sp, " %d", began.Sub(spawned).Nanoseconds())
		if beganOnMain {
			sp.WriteByte('*')
		}
		if !ready {
			b.WriteString(" -") // not yet at its receive: main's send met no waiter
			continue
		}
		fmt.Fprintf(&b, " %d", started.Sub(sent).Nanoseconds())
		if onMain {
			b.WriteByte('*')
		}
	}
	stop.Store(true)
	return b.String(), sp.String()
}

// summary prints, for each kind of line (busy0, busy1, ...), the
// quantiles of the rounds whose goroutine started on another thread, and
// how many started on main's.
func summary(r io.Reader, w io.Writer) error {
	other := map[string][]int64{}
	onMain := map[string]int{}
	notYet := map[string]int{}
	var kinds []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if !strings.HasPrefix(f[0], "busy") && !strings.HasPrefix(f[0], "spawn") {
			return fmt.Errorf("line %d: not a busywake line: %q", ln, line)
		}
		k := f[0]
		if _, ok := other[k]; !ok {
			kinds = append(kinds, k)
			other[k] = nil
		}
		for _, s := range f[1:] {
			if s == "-" {
				notYet[k]++
				continue
			}
			v, err := strconv.ParseInt(strings.TrimSuffix(s, "*"), 10, 64)
			if err != nil {
				return fmt.Errorf("line %d: %v", ln, err)
			}
			if strings.HasSuffix(s, "*") {
				onMain[k]++
				continue
			}
			other[k] = append(other[k], v)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(kinds) == 0 {
		return fmt.Errorf("no rounds")
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		xs := other[k]
		total := len(xs) + onMain[k] + notYet[k]
		if strings.HasPrefix(k, "spawn") {
			fmt.Fprintf(w, "%s: %d rounds, %d began on main's thread; on another, from the go statement, p10/p25/p50/p75/p90 %s ns\n",
				k, total, onMain[k], samples.Spread(xs))
			continue
		}
		fmt.Fprintf(w, "%s: %d rounds, %d not yet at the receive when main sent, %d started on main's thread after its spin (no other took it in 300µs); on another, from the send, p10/p25/p50/p75/p90 %s ns\n",
			k, total, notYet[k], onMain[k], samples.Spread(xs))
	}
	return nil
}
