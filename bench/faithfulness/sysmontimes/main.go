// Command sysmontimes measures sysmon's own ticks in a real Go process:
// how long each of sysmon's usleep(delay) calls lasts, by its index from
// the process's start, read from the kernel's system call tracepoints
// with perf record, so that no clock in the program moves them. sysmon
// (proc.go) sleeps usleep(20) between its passes while the program is
// busy; on Linux that is a nanosleep system call, which the kernel's
// timer slack and the thread's wake-up make last several times 20µs, and
// a process's first few last longer still (syscalltimes -usleep sees that
// on the probe's own thread; this tool sees it on sysmon's).
//
// The traced program is ./probe: at main.main's first statement it makes
// a getpid system call, the mark by which the recording finds main.main,
// then every P burns CPU for 4ms, so that sysmon keeps its shortest delay;
// it imports only small standard packages, so that it starts as the
// corpus's programs do. record.sh runs it N times under
//
//	perf record -a -e syscalls:sys_enter_nanosleep,syscalls:sys_exit_nanosleep,syscalls:sys_exit_getpid
//
// and after each run turns the events (perf script --ns) into a recording
// line with -perf:
//
//	perf script --ns -F comm,tid,time,event,trace | sysmontimes -perf /dev/stdin
//	sysmon main=2 152314 272077 110952 117310 ...
//
// sysmon's nanosleeps in order, each one's duration in ns from the
// system call's entry to its exit, and how many of them had ended when
// main.main began. The recording is system-wide (-a), and by perf record,
// not perf trace: perf trace follows the process into each thread it
// clones, which makes every clone take a quarter of a millisecond, and
// reads its events as they come, on the CPUs the program runs on. The
// other threads' nanosleeps (runqgrab's usleep(3) in a spinning M) and
// other processes' are left out.
//
// With -summarize it reads such lines and prints, for each of the first
// -ranks indexes (10), the quantiles of how late that sleep returned (its
// duration less sysmon's 20µs), then those of all the later ones pooled,
// and the arguments that give a costs profile those distributions
// (bench/faithfulness/profiles/derive's -rank sysmon_late_rank, one an
// index, and -dist sysmon_late, the later sleeps), each with its p100 the
// p99.5. docs/faithfulness.md ("sysmon's ticks in situ") reads them.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/bench/faithfulness/samples"
)

// sysmonDelay is sysmon's shortest sleep, usleep(20).
const sysmonDelay = 20 * 1000

func main() {
	summarize := flag.String("summarize", "", "summarize the recording in `FILE` instead of running (the files named after the flags too, pooled)")
	ranks := flag.Int("ranks", 10, "with -summarize, give the first `N` of sysmon's sleeps a distribution each")
	trace := flag.String("perf", "", "read perf script's output in `FILE` (one run) and print its recording line instead of running")
	comm := flag.String("comm", "probe", "with -perf, the traced program's command name as perf shows it")
	flag.Parse()
	switch {
	case *summarize != "":
		if *ranks < 1 {
			fmt.Fprintln(os.Stderr, "sysmontimes: -ranks must be 1 or more")
			os.Exit(2)
		}
		samples.Summarize("sysmontimes", append([]string{*summarize}, flag.Args()...), func(r io.Reader, w io.Writer) error {
			return summary(r, w, *ranks)
		})
	case *trace != "":
		samples.PrintLine("sysmontimes", *trace, func(r io.Reader) (string, error) { return fromPerf(r, *comm) })
	default:
		fmt.Fprintln(os.Stderr, "usage: sysmontimes -perf FILE | -summarize FILE... (record.sh records; the traced program is ./probe)")
		os.Exit(2)
	}
}

// fromPerf reads the events of one run of the traced program, whose
// command is comm, as perf script prints them (record.sh says how they
// are recorded), and returns its recording line. The program's main
// thread is the one whose getpid returned its own id (the mark; the
// runtime's own getpid calls, from other threads, and other programs'
// are left out), and sysmon's thread is the program's lowest thread id
// above it: runtime.main's newm(sysmon) is its first clone, and Linux
// gives thread ids in increasing order.
func fromPerf(r io.Reader, comm string) (string, error) {
	events, err := samples.ReadPerf(r)
	if err != nil {
		return "", err
	}
	var mainTid, mark int64 = -1, 0
	for _, e := range events {
		if e.Comm != comm || e.Call != "getpid" || !e.Exit {
			continue
		}
		if ret, err := strconv.ParseInt(strings.TrimPrefix(e.Fields, "0x"), 16, 64); err == nil && ret == e.Tid {
			mainTid, mark = e.Tid, e.At
			break
		}
	}
	if mainTid < 0 {
		return "", fmt.Errorf("no getpid by %s that returned its own thread's id: main.main's mark is missing (was sys_exit_getpid recorded?)", comm)
	}
	var sysmon int64 = -1
	for _, e := range events {
		if e.Comm == comm && e.Call == "nanosleep" && e.Tid > mainTid && (sysmon < 0 || e.Tid < sysmon) {
			sysmon = e.Tid
		}
	}
	if sysmon < 0 {
		return "", fmt.Errorf("no nanosleep by a thread of %s after %d, the main thread", comm, mainTid)
	}
	before := 0
	var durs []int64
	var entered int64 = -1
	for _, e := range events {
		if e.Tid != sysmon || e.Comm != comm || e.Call != "nanosleep" {
			continue
		}
		switch {
		case !e.Exit:
			entered = e.At
		case entered >= 0:
			if e.At <= mark {
				before++
			}
			durs = append(durs, e.At-entered)
			entered = -1
		}
	}
	if len(durs) == 0 {
		return "", fmt.Errorf("no nanosleep of thread %d, sysmon's, ended", sysmon)
	}
	return samples.Line(fmt.Sprintf("sysmon main=%d", before), durs), nil
}

// summary reads recording lines and prints the lateness of sysmon's
// sleeps by index, the first ranks apart, and the profile's entries.
func summary(r io.Reader, w io.Writer, ranks int) error {
	byIndex := make([][]int64, ranks)
	var later, atMain []int64
	n := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if len(f) < 3 || f[0] != "sysmon" || !strings.HasPrefix(f[1], "main=") {
			return fmt.Errorf("line %d: want \"sysmon main=K D1 D2 ...\", have %q", ln, text)
		}
		k, err := strconv.ParseInt(strings.TrimPrefix(f[1], "main="), 10, 64)
		if err != nil {
			return fmt.Errorf("line %d: %v", ln, err)
		}
		atMain = append(atMain, k)
		for i, x := range f[2:] {
			v, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				return fmt.Errorf("line %d: %v", ln, err)
			}
			late := max(v-sysmonDelay, 0)
			if i < ranks {
				byIndex[i] = append(byIndex[i], late)
			} else {
				later = append(later, late)
			}
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if n == 0 {
		return errors.New("no sysmon lines")
	}
	fmt.Fprintf(w, "%d processes; sysmon's sleeps ended before main.main, quantiles 0%%, 5%%, ..., 100%%: %v\n", n, samples.Quantiles(atMain))
	fmt.Fprintln(w, "how late each sleep returned (its duration less 20µs), ns:")
	for i, xs := range byIndex {
		if len(xs) == 0 {
			return fmt.Errorf("no process had a sleep %d", i+1)
		}
		q := samples.Quantiles(xs)
		fmt.Fprintf(w, "  sleep %2d, n %d: p5 %d, p50 %d, p90 %d, p95 %d\n", i+1, len(xs), q[1], q[10], q[18], q[19])
	}
	if len(later) == 0 {
		return fmt.Errorf("no sleep after the first %d", ranks)
	}
	q := samples.Quantiles(later)
	fmt.Fprintf(w, "  sleeps %d on, n %d: p5 %d, p50 %d, p90 %d, p95 %d\n", ranks+1, len(later), q[1], q[10], q[18], q[19])
	fmt.Fprintln(w, "for bench/faithfulness/profiles/derive (p100 the p99.5):")
	for _, xs := range byIndex {
		fmt.Fprintf(w, "  -rank sysmon_late_rank=%s \\\n", samples.DeriveArg(xs))
	}
	fmt.Fprintf(w, "  -dist sysmon_late=%s\n", samples.DeriveArg(later))
	return nil
}
