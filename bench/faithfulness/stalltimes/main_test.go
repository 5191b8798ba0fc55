package main

import (
	"strings"
	"testing"
)

// summary pools the processes, counts the goroutines' time from the run
// lines, keeps only the stalls within -first, and prints derive's -dist
// with the tail.
func TestSummary(t *testing.T) {
	rec := `# header
run 10000000 2
at 100 5000000
len 2000 3000000
every 100 4900000
run 10000000 2
at 200
len 4000
every 200
`
	var b strings.Builder
	if err := summary(strings.NewReader(rec), &b, 0, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"2 processes, all of each probe: 0.040s of the goroutines' time",
		"3 stalls, 75 a second of a goroutine's time; they took 7.51% of it",
		"1 of 1ms or more (33.33% of the stalls), 7.50% of the time",
		"-dist stall=3:2000,",
		",3000000:4000,4000,4000,4000,4000,4000 \\",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := summary(strings.NewReader(rec), &b, 0, 1000000); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "the first 1ms of each probe: 0.004s") || !strings.Contains(out, "2 stalls") || !strings.Contains(out, "0 of 1ms or more") {
		t.Errorf("-first 1ms: want 2 stalls in 4ms of the goroutines' time:\n%s", out)
	}
	b.Reset()
	if err := summary(strings.NewReader(rec), &b, 1000000, 0); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "each probe from 1ms: 0.036s") || !strings.Contains(out, "1 stalls") || !strings.Contains(out, "1 of 1ms or more") {
		t.Errorf("-from 1ms: want 1 stall in 36ms of the goroutines' time:\n%s", out)
	}
	for _, bad := range []string{"run 5\n", "run 10 2\nat 1 2\nlen 1\nevery 1\n"} {
		if err := summary(strings.NewReader(bad), &b, 0, 0); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// schedSummary follows a probe thread from its switch-out while runnable
// to its switch-in, and tells the process's own threads (sysmon, a
// spinning M) from another program's, in the first window and after.
func TestSchedSummary(t *testing.T) {
	sw := func(comm, pidTid, at string, prev, state, next string) string {
		return "  " + comm + "  " + pidTid + " " + at + ": sched:sched_switch: prev_comm=" + comm + " prev_pid=" + prev + " prev_prio=120 prev_state=" + state + " ==> next_comm=x next_pid=" + next + " next_prio=120\n"
	}
	rec := "# header\n" +
		sw("stalltimes", "9/9", "1.000000000", "9", "R", "10") + // 9 out, runnable, for its own 10 (sysmon)
		sw("stalltimes", "9/10", "1.000100000", "10", "S", "9") + // 100µs later 9 is back
		sw("stalltimes", "9/9", "1.000500000", "9", "S", "0") + // 9 sleeps: not a takeover
		sw("swapper", "0/0", "1.000600000", "0", "R", "9") +
		sw("stalltimes", "9/9", "1.003000000", "9", "R+", "77") + // 3ms in: another program's 77
		sw("other", "70/77", "1.003050000", "77", "S", "9") // 50µs
	var b strings.Builder
	if err := schedSummary(strings.NewReader(rec), &b, "stalltimes", 2_000_000); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{
		"1 processes of stalltimes",
		"in the first 2ms the process's own thread 1 stretches, 100.0µs a process",
		"in the first 2ms another program's thread 0 stretches, 0.0µs a process",
		"after another program's thread 1 stretches, 50.0µs a process",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if err := schedSummary(strings.NewReader("# nothing\n"), &b, "stalltimes", 2_000_000); err == nil {
		t.Error("a recording without the probe's switches: no error")
	}
}
