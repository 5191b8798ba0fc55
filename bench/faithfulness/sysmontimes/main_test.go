package main

import (
	"strings"
	"testing"
)

// Events as perf script prints them: sysmon (101) sleeps three times; the
// runtime calls getpid from sysmon's thread for a signal (left out: it
// does not return its own id); a spinning M (102) naps in runqgrab;
// another process (7) sleeps and another (8) asks its own id; main (100)
// makes the mark.
const events = `            prog   101 67811.000000000: syscalls:sys_enter_nanosleep: rqtp: 0x3f00, rmtp: 0x00000000
            prog   101 67811.000150000:  syscalls:sys_exit_nanosleep: 0x0
            prog   101 67811.000157000:     syscalls:sys_exit_getpid: 0x64
            prog   101 67811.000160000: syscalls:sys_enter_nanosleep: rqtp: 0x3f00, rmtp: 0x00000000
            prog   102 67811.000170000: syscalls:sys_enter_nanosleep: rqtp: 0x5cb0, rmtp: 0x00000000
    other proc     7 67811.000200000: syscalls:sys_enter_nanosleep: rqtp: 0x1, rmtp: 0x00000000
            prog   102 67811.000260000:  syscalls:sys_exit_nanosleep: 0x0
            prog   101 67811.000280123:  syscalls:sys_exit_nanosleep: 0x0
            bash     8 67811.000280500:     syscalls:sys_exit_getpid: 0x8
            prog   100 67811.000290000:     syscalls:sys_exit_getpid: 0x64
            prog   101 67811.000300000: syscalls:sys_enter_nanosleep: rqtp: 0x3f00, rmtp: 0x00000000
    other proc     7 67811.000700000:  syscalls:sys_exit_nanosleep: 0x0
            prog   101 67811.000401000:  syscalls:sys_exit_nanosleep: 0x0
`

func TestFromPerf(t *testing.T) {
	got, err := fromPerf(strings.NewReader(events), "prog")
	if err != nil {
		t.Fatal(err)
	}
	// sysmon's three sleeps; two ended by main's mark at 290µs.
	if want := "sysmon main=2 150000 120123 101000"; got != want {
		t.Errorf("fromPerf = %q, want %q", got, want)
	}
}

func TestFromPerfErrors(t *testing.T) {
	for _, tc := range []struct{ name, events, want string }{
		{"no mark", "  prog 101 1.000000000: syscalls:sys_enter_nanosleep: rqtp: 0x1\n", "no getpid"},
		{"another program's mark", "  bash 8 1.000000000:     syscalls:sys_exit_getpid: 0x8\n", "no getpid"},
		{"no sysmon", "  prog 100 1.000000000:     syscalls:sys_exit_getpid: 0x64\n", "no nanosleep"},
		{"no exit", "  prog 100 1.000000000:     syscalls:sys_exit_getpid: 0x64\n  prog 101 1.000000001: syscalls:sys_enter_nanosleep: rqtp: 0x1\n", "ended"},
	} {
		if _, err := fromPerf(strings.NewReader(tc.events), "prog"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: fromPerf error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

func TestSummary(t *testing.T) {
	// Two processes; with -ranks 2 the first two sleeps stand apart and
	// the rest pool. Lateness is the duration less 20µs.
	rec := "# header\nsysmon main=1 150000 120000 100000 90000\nsysmon main=3 130000 100000 110000\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out, 2); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"2 processes",
		"sleep  1, n 2: p5 110000, p50 110000, p90 110000, p95 110000",
		"sleep  2, n 2: p5 80000, p50 80000, p90 80000, p95 80000",
		"sleeps 3 on, n 3: p5 70000, p50 80000, p90 80000",
		"-rank sysmon_late_rank=2:110000,110000,",
		"-rank sysmon_late_rank=2:80000,",
		"-dist sysmon_late=3:70000,70000,",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	for _, bad := range []string{"sysmon 150000\n", "usleep 1 2\n", "sysmon main=1 x\n", "sysmon main=1 150000\n"} {
		if err := summary(strings.NewReader(bad), new(strings.Builder), 2); err == nil {
			t.Errorf("summary of %q: no error", bad)
		}
	}
}
