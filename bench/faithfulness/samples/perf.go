package samples

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// A PerfEvent is one system call tracepoint as perf script prints it
// (perf record -e syscalls:sys_enter_NAME,syscalls:sys_exit_NAME, then
// perf script --ns -F comm,tid,time,event,trace): the tools that time a
// program from outside (sysmontimes, ctxperf) read these.
type PerfEvent struct {
	Comm   string // the command
	Pid    int64  // the process, where perf script printed it (-F pid,tid: "PID/TID"), else 0
	Tid    int64  // the thread
	At     int64  // when, in ns
	Exit   bool   // sys_exit_NAME, not sys_enter_NAME
	Call   string // NAME: nanosleep, write, getpid, ...; another tracepoint's whole name ("sched:sched_switch")
	Fields string // the tracepoint's fields ("fd: 0x00000001, ..."), or on exit the value returned ("0x7")
}

// perfLine is a line of perf script's output: the command, the thread
// (after its process and a slash, with -F pid), the time in seconds to
// the ns, the tracepoint and its fields.
var perfLine = regexp.MustCompile(`^\s*(.*\S)\s+(?:(\d+)/)?(\d+)\s+(\d+)\.(\d{9}):\s+(\w+:\w+):\s*(.*)$`)

// ReadPerf reads perf script's output and returns its events in order: a
// system call's entry or exit, or another tracepoint by its name; lines
// that are not events are left out.
func ReadPerf(r io.Reader) ([]PerfEvent, error) {
	var events []PerfEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		m := perfLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		var pid int64
		var err0 error
		if m[2] != "" {
			pid, err0 = strconv.ParseInt(m[2], 10, 64)
		}
		tid, err1 := strconv.ParseInt(m[3], 10, 64)
		sec, err2 := strconv.ParseInt(m[4], 10, 64)
		ns, err3 := strconv.ParseInt(m[5], 10, 64)
		if err := errors.Join(err0, err1, err2, err3); err != nil {
			return nil, fmt.Errorf("line %d: %v", ln, err)
		}
		e := PerfEvent{Comm: m[1], Pid: pid, Tid: tid, At: sec*1e9 + ns, Call: m[6], Fields: m[7]}
		if name, ok := strings.CutPrefix(e.Call, "syscalls:sys_enter_"); ok {
			e.Call = name
		} else if name, ok := strings.CutPrefix(e.Call, "syscalls:sys_exit_"); ok {
			e.Call, e.Exit = name, true
		}
		events = append(events, e)
	}
	return events, sc.Err()
}

// PrintLine opens path, makes a recording line of it with line and prints
// it: what a tool's -perf (or -schedlab) flag does. An error names the
// tool and the file, and exits with status 1.
func PrintLine(tool, path string, line func(io.Reader) (string, error)) {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", tool, err)
		os.Exit(1)
	}
	defer f.Close()
	s, err := line(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s: %v\n", tool, path, err)
		os.Exit(1)
	}
	fmt.Println(s)
}
