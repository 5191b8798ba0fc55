// Command ctxperf times bench/faithfulness/corpus's ctx_fanout itself,
// unchanged, from outside: perf record notes each write(2) to standard
// output (one a printed line) and each tgkill (sysmon's preemption
// signal, which starts the cancel: main's 1ms timer runs only when a P
// running a spinning worker is preempted), by thread, to the ns. No clock
// or call is added to the program, so the race is the corpus's own (the
// probes with clocks, ctxtimes, move it by ten points).
//
// record.sh builds corpus/ctx_fanout.go, runs it N times at GOMAXPROCS P
// under
//
//	perf record -a -e syscalls:sys_enter_write,syscalls:sys_exit_write,syscalls:sys_enter_tgkill
//
// with its standard output a pipe, and after each run turns the events
// (perf script --ns) and the printed lines into a recording line with
// -perf:
//
//	ctxperf -perf EVENTS -out "stop 2 stop 3 stop 1"
//	run 2 3 1 kill 10021334 thread 0 1 0 at 0 61230 95411 took 30121 11402 12011
//
// the order of the lines, how long before the first write sysmon's last
// signal before it came (ns; -1 if none came), which thread wrote each line (0 for
// the first line's, 1 for the next other one), when each write began (ns
// after the first began) and how long it took.
//
// With -schedlab it makes the same line from schedlab's trace of the twin
// (a printed line is a write by default, print as a system call):
//
//	schedlab run --procs 2 --perturb timing --seed 7 --trace ctx_fanout.star > T
//	ctxperf -schedlab T
//
// so that schedlab's runs and Go's are summarized alike.
//
// With -summarize it reads such lines and prints, for each order, how
// often it came and the medians of those times: how long after the
// first line the second and third were written, and whether on the
// first line's thread (docs/faithfulness.md, "ctx_fanout's writes, from
// outside").
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/bench/faithfulness/samples"
)

// workers is ctx_fanout's number of goroutines, ids 1 to 3.
const workers = 3

func main() {
	summarize := flag.String("summarize", "", "summarize the recording in `FILE` instead (the files named after the flags too, pooled)")
	events := flag.String("perf", "", "read perf script's output in `FILE` (one run) and print its recording line")
	out := flag.String("out", "", "with -perf, the run's printed lines, joined (\"stop 2 stop 3 stop 1\")")
	comm := flag.String("comm", "ctx_fanout", "with -perf, the program's command name as perf shows it")
	trace := flag.String("schedlab", "", "read schedlab's text trace of one run of ctx_fanout.star in `FILE` (schedlab run --trace) and print its recording line")
	flag.Parse()
	switch {
	case *trace != "":
		samples.PrintLine("ctxperf", *trace, fromTrace)
	case *summarize != "":
		samples.Summarize("ctxperf", append([]string{*summarize}, flag.Args()...), summary)
	case *events != "":
		samples.PrintLine("ctxperf", *events, func(r io.Reader) (string, error) { return fromPerf(r, *comm, *out) })
	default:
		fmt.Fprintln(os.Stderr, "usage: ctxperf -perf FILE -out LINES | -summarize FILE... (record.sh records)")
		os.Exit(2)
	}
}

// stdoutWrite matches the fields of a write to fd 1.
var stdoutWrite = regexp.MustCompile(`^fd: 0x0*1,`)

// fromPerf reads one run's events and its printed lines and returns its
// recording line.
func fromPerf(r io.Reader, comm, out string) (string, error) {
	ids, err := order(out)
	if err != nil {
		return "", err
	}
	var writes []write
	open := map[int64]int{} // tid → index of its write in progress
	kill := int64(-1)
	events, err := samples.ReadPerf(r)
	if err != nil {
		return "", err
	}
	var switches []samples.PerfEvent
	for _, e := range events {
		if e.Call == "sched:sched_switch" {
			switches = append(switches, e)
			continue
		}
		if e.Comm != comm {
			continue
		}
		switch {
		case e.Call == "tgkill" && !e.Exit:
			if len(writes) == 0 {
				kill = e.At // the last signal before the first line
			}
		case e.Call == "write" && !e.Exit && stdoutWrite.MatchString(e.Fields):
			open[e.Tid] = len(writes)
			writes = append(writes, write{tid: e.Tid, at: e.At})
		case e.Call == "write" && e.Exit:
			i, ok := open[e.Tid]
			if !ok {
				continue
			}
			delete(open, e.Tid)
			if ret, err := strconv.ParseUint(strings.TrimPrefix(e.Fields, "0x"), 16, 64); err != nil || int64(ret) <= 0 {
				// Failed (EINTR when a signal lands in it) and made
				// again by os.File.Write: not a line of its own.
				writes = slices.Delete(writes, i, i+1)
				continue
			}
			writes[i].took = e.At - writes[i].at
		}
	}
	if len(writes) != workers {
		return "", fmt.Errorf("%d writes to standard output by %s, want %d", len(writes), comm, workers)
	}
	line := format(ids, kill, writes)
	if len(switches) > 0 {
		last := writes[workers-1]
		run, sleep, taker := offCPU(switches, last.tid, writes[0].at, last.at)
		line += fmt.Sprintf(" off %d %d taker %s", run, sleep, taker)
	}
	return line, nil
}

// switchPids finds a sched_switch's threads and the state the one
// switched out was left in.
var switchPids = regexp.MustCompile(`prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=(.*) next_pid=(\d+)`)

// offCPU returns how long thread tid was off its CPU between from and to
// (ns), by the sched_switch events: while runnable (the OS took its CPU:
// prev_state R) and while asleep (it blocked, as a parked M does); and
// the command of the thread that took its CPU for the longest runnable
// stretch, up to any "/" ("-" if none did).
func offCPU(switches []samples.PerfEvent, tid, from, to int64) (runnable, asleep int64, taker string) {
	out, state, next := int64(-1), "", ""
	taker = "-"
	longest := int64(0)
	add := func(a, b int64) {
		a, b = max(a, from), min(b, to)
		if b <= a {
			return
		}
		if !strings.HasPrefix(state, "R") {
			asleep += b - a
			return
		}
		runnable += b - a
		if b-a > longest {
			longest, taker = b-a, next
		}
	}
	for _, e := range switches {
		m := switchPids.FindStringSubmatch(e.Fields)
		if m == nil {
			continue
		}
		prev, _ := strconv.ParseInt(m[1], 10, 64)
		in, _ := strconv.ParseInt(m[4], 10, 64)
		if prev == tid {
			out, state = e.At, m[2]
			next, _, _ = strings.Cut(strings.ReplaceAll(m[3], " ", "_"), "/")
		}
		if in == tid && out >= 0 {
			add(out, e.At)
			out = -1
		}
	}
	if out >= 0 {
		add(out, to)
	}
	return runnable, asleep, taker
}

// A write is one printed line's write(2): its thread, when it began and
// how long it took (ns).
type write struct{ tid, at, took int64 }

// format makes a recording line of a run's order, its last signal before
// the first write (an absolute time, or -1), and its writes.
func format(ids []int, kill int64, writes []write) string {
	var b strings.Builder
	b.WriteString("run")
	for _, id := range ids {
		fmt.Fprintf(&b, " %d", id)
	}
	if kill >= 0 {
		kill = writes[0].at - kill
	}
	fmt.Fprintf(&b, " kill %d thread", kill)
	var tids []int64
	for _, w := range writes {
		i := slices.Index(tids, w.tid)
		if i < 0 {
			i = len(tids)
			tids = append(tids, w.tid)
		}
		fmt.Fprintf(&b, " %d", i)
	}
	b.WriteString(" at")
	for _, w := range writes {
		fmt.Fprintf(&b, " %d", w.at-writes[0].at)
	}
	b.WriteString(" took")
	for _, w := range writes {
		fmt.Fprintf(&b, " %d", w.took)
	}
	return b.String()
}

// A line of schedlab's text trace: the time in µs to the ns, the P, the
// M, the G, the event and its fields.
var traceLine = regexp.MustCompile(`^\s*(\d+)\.(\d{3})µs\s+\S+\s+(\S+)\s+\S+\s+(\w+)\s*(.*)$`)

// durField is a GoSyscallBegin's length.
var durField = regexp.MustCompile(`dur=([0-9.]+)(ns|µs|ms)`)

// fromTrace reads schedlab's text trace of one run of ctx_fanout.star and
// returns its recording line, as fromPerf does for real Go's: a printed
// line is the program's output line in the trace, written by the next
// GoSyscallBegin (print as a system call, the default), on its M; the
// signal is sysmon's preemption (GoPreempt).
func fromTrace(r io.Reader) (string, error) {
	var ids []int
	var writes []write
	kill := int64(-1)
	pending := 0 // printed lines whose write has not begun
	tids := map[string]int64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		text := sc.Text()
		if f := strings.Fields(text); len(f) == 2 && f[0] == "stop" {
			id, err := strconv.Atoi(f[1])
			if err != nil {
				return "", fmt.Errorf("line %d: %q", ln, text)
			}
			ids = append(ids, id)
			pending++
			continue
		}
		m := traceLine.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		us, err1 := strconv.ParseInt(m[1], 10, 64)
		ns, err2 := strconv.ParseInt(m[2], 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return "", fmt.Errorf("line %d: %v", ln, err)
		}
		at := us*1000 + ns
		switch m[4] {
		case "GoPreempt":
			if len(writes) == 0 {
				kill = at
			}
		case "GoSyscallBegin":
			if pending == 0 {
				continue
			}
			pending--
			d := durField.FindStringSubmatch(m[5])
			if d == nil {
				return "", fmt.Errorf("line %d: a write with no dur=: %q", ln, text)
			}
			took, err := time.ParseDuration(d[1] + strings.Replace(d[2], "µs", "us", 1))
			if err != nil {
				return "", fmt.Errorf("line %d: %v", ln, err)
			}
			if _, ok := tids[m[3]]; !ok {
				tids[m[3]] = int64(len(tids))
			}
			writes = append(writes, write{tid: tids[m[3]], at: at, took: int64(took)})
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if len(ids) != workers || len(writes) != workers {
		return "", fmt.Errorf("%d printed lines and %d writes, want %d of each (is print a system call: --print=auto or syscall?)", len(ids), len(writes), workers)
	}
	return format(ids, kill, writes), nil
}

// order returns the worker ids in the order of the printed lines.
func order(out string) ([]int, error) {
	f := strings.Fields(out)
	if len(f) != 2*workers {
		return nil, fmt.Errorf("printed %q, want %d lines \"stop N\"", out, workers)
	}
	var ids []int
	for i := 0; i < len(f); i += 2 {
		id, err := strconv.Atoi(f[i+1])
		if f[i] != "stop" || err != nil || id < 1 || id > workers {
			return nil, fmt.Errorf("printed %q, want lines \"stop N\" with N from 1 to %d", out, workers)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// A run is one recording line.
type run struct {
	order            string
	kill             int64
	thread, at, took [workers]int64

	// The 3rd line's thread off its CPU between the 1st line and its
	// own, while runnable and while asleep (-1: not recorded).
	offRunnable, offAsleep int64
	taker                  string // who took its CPU longest ("-": none)
}

// parseRun reads a recording line.
func parseRun(f []string) (run, error) {
	var r run
	withOff := len(f) >= 21 && f[18] == "off" && (len(f) == 21 || len(f) == 23 && f[21] == "taker")
	if len(f) != 18 && !withOff || f[0] != "run" || f[4] != "kill" || f[6] != "thread" || f[10] != "at" || f[14] != "took" {
		return r, fmt.Errorf("want \"run I I I kill N thread T T T at N N N took N N N [off N N [taker COMM]]\", have %q", strings.Join(f, " "))
	}
	r.order = "stop " + strings.Join(f[1:4], " stop ")
	var err error
	num := func(s string) int64 {
		v, e := strconv.ParseInt(s, 10, 64)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	r.kill = num(f[5])
	for i := range workers {
		r.thread[i] = num(f[7+i])
		r.at[i] = num(f[11+i])
		r.took[i] = num(f[15+i])
	}
	r.offRunnable, r.offAsleep = -1, -1
	if withOff {
		// Lines recorded before the taker was noted have none.
		r.offRunnable, r.offAsleep, r.taker = num(f[19]), num(f[20]), "?"
		if len(f) == 23 {
			r.taker = f[22]
		}
	}
	return r, err
}

// takers lists who took the last line's thread's CPU, most often first:
// "ctx_fanout 12, perf 5, - 3".
func takers(rs []run) string {
	count := map[string]int{}
	for _, r := range rs {
		count[r.taker]++
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if count[names[i]] != count[names[j]] {
			return count[names[i]] > count[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, count[n])
	}
	return strings.Join(parts, ", ")
}

// summary prints, for each order, its share and the medians of its
// runs' times.
func summary(rd io.Reader, w io.Writer) error {
	byOrder := map[string][]run{}
	n := 0
	sc := bufio.NewScanner(rd)
	for ln := 1; sc.Scan(); ln++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		r, err := parseRun(strings.Fields(text))
		if err != nil {
			return fmt.Errorf("line %d: %v", ln, err)
		}
		byOrder[r.order] = append(byOrder[r.order], r)
		n++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if n == 0 {
		return errors.New("no runs")
	}
	orders := make([]string, 0, len(byOrder))
	for o := range byOrder {
		orders = append(orders, o)
	}
	sort.Slice(orders, func(i, j int) bool {
		if len(byOrder[orders[i]]) != len(byOrder[orders[j]]) {
			return len(byOrder[orders[i]]) > len(byOrder[orders[j]])
		}
		return orders[i] < orders[j]
	})
	fmt.Fprintf(w, "%d runs; µs, medians: the 1st line after sysmon's last signal, the 2nd and 3rd after the 1st (* on the 1st's thread in most runs), each write's length\n", n)
	for _, o := range orders {
		rs := byOrder[o]
		med := func(f func(run) int64) float64 {
			xs := make([]int64, 0, len(rs))
			for _, r := range rs {
				if v := f(r); v >= 0 {
					xs = append(xs, v)
				}
			}
			if len(xs) == 0 {
				return -1
			}
			return float64(samples.Quantiles(xs)[10]) / 1000
		}
		same := func(k int) string {
			c := 0
			for _, r := range rs {
				if r.thread[k] == 0 {
					c++
				}
			}
			if 2*c > len(rs) {
				return "*"
			}
			return ""
		}
		off := ""
		if v := med(func(r run) int64 { return r.offRunnable }); v >= 0 {
			off = fmt.Sprintf("  3rd's thread off its CPU, runnable %6.1f asleep %6.1f, taken by %s", v, med(func(r run) int64 { return r.offAsleep }), takers(rs))
		}
		fmt.Fprintf(w, "  %-22s %5.1f%%  signal→1st %6.1f  2nd %6.1f%s  3rd %6.1f%s  writes %5.1f %5.1f %5.1f%s\n", o, 100*float64(len(rs))/float64(n),
			med(func(r run) int64 { return r.kill }),
			med(func(r run) int64 { return r.at[1] }), same(1),
			med(func(r run) int64 { return r.at[2] }), same(2),
			med(func(r run) int64 { return r.took[0] }), med(func(r run) int64 { return r.took[1] }), med(func(r run) int64 { return r.took[2] }), off)
	}
	return nil
}
