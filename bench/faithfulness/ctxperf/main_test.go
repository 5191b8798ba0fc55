package main

import (
	"strings"
	"testing"
)

// One run as perf script prints it: sysmon signals twice (the second is
// the last before the first line), worker 2 and 3 write on thread 11,
// worker 1 on thread 12, whose first try fails (EINTR) and is made again;
// a write to fd 2 and another program's are left out.
const events = `      ctx_fanout    10 100.000100000:    syscalls:sys_enter_tgkill: tgid: 0x00000009, pid: 0x0000000b, sig: 0x00000017
      ctx_fanout    10 100.010100000:    syscalls:sys_enter_tgkill: tgid: 0x00000009, pid: 0x0000000b, sig: 0x00000017
      ctx_fanout    11 100.010150000:     syscalls:sys_enter_write: fd: 0x00000001, buf: 0x00c000012000, count: 0x00000007
            bash     7 100.010151000:     syscalls:sys_enter_write: fd: 0x00000001, buf: 0x00c000012000, count: 0x00000007
      ctx_fanout    11 100.010158000:      syscalls:sys_exit_write: 0x7
      ctx_fanout    11 100.010170000:     syscalls:sys_enter_write: fd: 0x00000001, buf: 0x00c000012000, count: 0x00000007
      ctx_fanout    12 100.010171000:     syscalls:sys_enter_write: fd: 0x00000002, buf: 0x00c000012000, count: 0x00000007
      ctx_fanout    11 100.010171000:      syscalls:sys_exit_write: 0x7
      ctx_fanout    12 100.010300000:     syscalls:sys_enter_write: fd: 0x00000001, buf: 0x00c000014000, count: 0x00000007
      ctx_fanout    12 100.010390000:      syscalls:sys_exit_write: 0xfffffffffffffffc
      ctx_fanout    12 100.010400000:     syscalls:sys_enter_write: fd: 0x00000001, buf: 0x00c000014000, count: 0x00000007
      ctx_fanout    12 100.010412000:      syscalls:sys_exit_write: 0x7
      ctx_fanout    10 100.020100000:    syscalls:sys_enter_tgkill: tgid: 0x00000009, pid: 0x0000000b, sig: 0x00000017
`

func TestFromPerf(t *testing.T) {
	got, err := fromPerf(strings.NewReader(events), "ctx_fanout", "stop 2 stop 3 stop 1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "run 2 3 1 kill 50000 thread 0 0 1 at 0 20000 250000 took 8000 1000 12000"; got != want {
		t.Errorf("fromPerf:\n got %s\nwant %s", got, want)
	}
	for _, tc := range []struct{ events, out, want string }{
		{events, "stop 2 stop 3", "want 3 lines"},
		{events, "stop 2 stop 3 go 1", "want lines"},
		{events, "stop 2 stop 3 stop 4", "want lines"},
		{events[:strings.Index(events, "      ctx_fanout    12 100.010400000")], "stop 2 stop 3 stop 1", "2 writes"},
	} {
		if _, err := fromPerf(strings.NewReader(tc.events), "ctx_fanout", tc.out); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.out, err, tc.want)
		}
	}
}

// The same run as schedlab's trace shows it: each printed line, then its
// write's GoSyscallBegin on the M that runs the worker.
const trace = `# schedlab trace v1 procs=2 seed=3 preempt=on costs=default perturb=timing
  11224.609µs P0  M0  G9    GoPreempt      to=global
  11224.609µs P1  M1  G7    GoPreempt      to=global
stop 2
  11251.501µs P0  M0  G8    GoSyscallBegin dur=186.101µs
stop 3
  11376.489µs P1  M1  G9    GoSyscallBegin dur=37.286µs
  11413.775µs P1  M1  G9    GoSyscallEnd   exit=fast
stop 1
  11433.732µs P1  M1  G7    GoSyscallBegin dur=94.066µs
  11437.602µs P0  M0  G8    GoSyscallEnd   exit=fast
`

// With the OS's switches recorded, the last line's thread's time off its
// CPU between the first line and its own: runnable (taken, R) and asleep.
func TestFromPerfOffCPU(t *testing.T) {
	switches := `         swapper     0 100.010000000:       sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ctx_fanout next_pid=12 next_prio=120
      ctx_fanout    12 100.010200000:       sched:sched_switch: prev_comm=ctx_fanout prev_pid=12 prev_prio=120 prev_state=R ==> next_comm=perf next_pid=5 next_prio=120
            perf     5 100.010250000:       sched:sched_switch: prev_comm=perf prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=ctx_fanout next_pid=12 next_prio=120
      ctx_fanout    12 100.010260000:       sched:sched_switch: prev_comm=ctx_fanout prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
         swapper     0 100.010290000:       sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ctx_fanout next_pid=12 next_prio=120
`
	got, err := fromPerf(strings.NewReader(events+switches), "ctx_fanout", "stop 2 stop 3 stop 1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, " took 8000 1000 12000 off 50000 30000 taker perf") {
		t.Errorf("fromPerf: %s\nwant off 50000 30000 taker perf (50µs taken by perf, 30µs asleep)", got)
	}
	var out strings.Builder
	if err := summary(strings.NewReader(got+"\n"), &out); err != nil || !strings.Contains(out.String(), "runnable   50.0 asleep   30.0, taken by perf 1") {
		t.Errorf("summary: %v\n%s", err, out.String())
	}
}

func TestFromTrace(t *testing.T) {
	got, err := fromTrace(strings.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	if want := "run 2 3 1 kill 26892 thread 0 1 1 at 0 124988 182231 took 186101 37286 94066"; got != want {
		t.Errorf("fromTrace:\n got %s\nwant %s", got, want)
	}
	free := strings.ReplaceAll(trace, "GoSyscallBegin", "GoWork")
	if _, err := fromTrace(strings.NewReader(free)); err == nil || !strings.Contains(err.Error(), "print a system call") {
		t.Errorf("a trace with free printing: error %v, want one about print", err)
	}
}

func TestSummary(t *testing.T) {
	rec := "# header\nrun 2 3 1 kill 50000 thread 0 0 1 at 0 20000 250000 took 8000 1000 12000\n" +
		"run 2 3 1 kill -1 thread 0 0 1 at 0 10000 350000 took 8000 1000 12000\n" +
		"run 2 1 3 kill 60000 thread 0 1 0 at 0 300000 400000 took 9000 2000 3000\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"3 runs",
		"stop 2 stop 3 stop 1    66.7%  signal→1st   50.0  2nd   10.0*  3rd  250.0 ",
		"stop 2 stop 1 stop 3    33.3%",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if err := summary(strings.NewReader("run 2 3 1 kill x thread 0 0 1 at 0 1 2 took 1 2 3\n"), new(strings.Builder)); err == nil {
		t.Error("a bad number: no error")
	}
}
