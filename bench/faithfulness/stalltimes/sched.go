package main

// Who takes a probe thread's CPU: the OS's own record of the switches
// (perf's sched:sched_switch), read beside the probe's clock. The probe
// sees every gap in its readings, the hypervisor's and the interrupts'
// too; the switches say which of those gaps went to another thread, and
// whether that thread was the program's own (sysmon, an M spinning for
// work) or another program's.

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"time"

	"github.com/schedlab/schedlab/bench/faithfulness/samples"
)

// switchFields is a sched_switch's fields: the thread switched out, its
// state, and the thread switched in.
var switchFields = regexp.MustCompile(`prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=.* next_pid=(\d+)`)

// A takeover is a stretch in which a probe thread was off its CPU while
// runnable: the OS ran another thread in its place.
type takeover struct {
	pid, tid int64 // the probe's process and thread
	at       int64 // when it began, since the process's first switch, ns
	length   int64 // ns
	taker    int64 // the thread switched in first
}

// schedSummary reads perf script's output (-F comm,pid,tid,time,event,trace
// of sched:sched_switch, system-wide, while probes of the command comm
// ran) and prints how long the probes' threads were off their CPUs while
// runnable, in the first `first` ns of each process and after, split by
// whether the thread that took the CPU first was the process's own.
func schedSummary(r io.Reader, w io.Writer, comm string, first int64) error {
	events, err := samples.ReadPerf(r)
	if err != nil {
		return err
	}
	pidOf := map[int64]int64{} // every thread seen with its process
	start := map[int64]int64{} // each probe process's first switch
	open := map[int64]takeover{}
	var done []takeover
	for _, e := range events {
		if e.Call != "sched:sched_switch" {
			continue
		}
		if e.Pid != 0 {
			pidOf[e.Tid] = e.Pid
		}
		m := switchFields.FindStringSubmatch(e.Fields)
		if m == nil {
			continue
		}
		prev, _ := strconv.ParseInt(m[1], 10, 64)
		next, _ := strconv.ParseInt(m[3], 10, 64)
		if t, ok := open[next]; ok {
			t.length = e.At - t.at
			t.at -= start[t.pid]
			done = append(done, t)
			delete(open, next)
		}
		if e.Comm != comm || e.Pid == 0 || prev != e.Tid {
			continue
		}
		if _, ok := start[e.Pid]; !ok {
			start[e.Pid] = e.At
		}
		if m[2] == "R" || m[2] == "R+" {
			open[prev] = takeover{pid: e.Pid, tid: prev, at: e.At, taker: next}
		}
	}
	if len(start) == 0 {
		return fmt.Errorf("no sched_switch of a thread of %s (perf script -F comm,pid,tid,time,event,trace)", comm)
	}
	type key struct{ early, own bool }
	sum, n := map[key]int64{}, map[key]int{}
	for _, t := range done {
		k := key{t.at < first, pidOf[t.taker] == t.pid}
		sum[k] += t.length
		n[k]++
	}
	procs := int64(len(start))
	fmt.Fprintf(w, "%d processes of %s; their threads off the CPU while runnable, by the thread that took it:\n", procs, comm)
	for _, early := range []bool{true, false} {
		window := "in the first " + time.Duration(first).String()
		if !early {
			window = "after"
		}
		for _, own := range []bool{true, false} {
			who := "another program's thread"
			if own {
				who = "the process's own thread"
			}
			k := key{early, own}
			fmt.Fprintf(w, "  %-22s %-26s %5d stretches, %8.1fµs a process\n", window, who, n[k], float64(sum[k])/1e3/float64(procs))
		}
	}
	return nil
}
