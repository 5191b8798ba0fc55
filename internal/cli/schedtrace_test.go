package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace"
)

func TestSchedTraceFlags(t *testing.T) {
	for _, test := range []struct {
		args   []string
		period int64
		detail bool
	}{
		{[]string{"x.star"}, 0, false},
		{[]string{"--schedtrace=1ms", "x.star"}, 1_000_000, false},
		{[]string{"--schedtrace", "250µs", "--scheddetail", "x.star"}, 250_000, true},
		{[]string{"x.star", "--scheddetail"}, 0, true},
	} {
		s, err := settingsFor("x.star", []byte("print(1)\n"), test.args)
		if err != nil {
			t.Errorf("settingsFor(%q): %v", test.args, err)
			continue
		}
		if s.SchedTrace != test.period || s.SchedDetail != test.detail {
			t.Errorf("settingsFor(%q): schedtrace=%d scheddetail=%v, want %d %v", test.args, s.SchedTrace, s.SchedDetail, test.period, test.detail)
		}
	}
	// They print on stderr and change nothing in the run: a directive
	// may set them, and the trace header does not name them.
	s, err := settingsFor("x.star", []byte("# schedlab: --schedtrace=2ms --scheddetail\nprint(1)\n"), []string{"x.star"})
	if err != nil || s.SchedTrace != 2_000_000 || !s.SchedDetail {
		t.Fatalf("directive: %+v, %v", s, err)
	}
	if h := settingsText(s.Header()); h != "procs=1 seed=1 preempt=on costs=default" {
		t.Errorf("header = %s", h)
	}

	var stdout, stderr strings.Builder
	if code := Run([]string{"--schedtrace=-1ms", "x.star"}, &stdout, &stderr); code != 2 ||
		!strings.HasPrefix(stderr.String(), `schedlab run: invalid value "-1ms" for flag -schedtrace: negative duration`) {
		t.Errorf("--schedtrace=-1ms: status %d, stderr %q", code, stderr.String())
	}
}

func settingsText(h trace.Header) string {
	var kv []string
	for _, e := range h.Settings {
		kv = append(kv, e.Key+"="+e.Value)
	}
	return strings.Join(kv, " ")
}

// TestCrashDump: the detailed dump goes where Go prints it in the report
// of a run that dies, and nowhere else.
func TestCrashDump(t *testing.T) {
	snap := &runtime.Snapshot{Time: 3_500_000, GOMAXPROCS: 1, Ps: []runtime.PState{{ID: 0, M: -1}}}
	const dump = "SCHED 3ms: gomaxprocs=1 idleprocs=0 threads=0 spinningthreads=0 needspinning=0 idlethreads=0 runqueue=0 gcwaiting=false nmidlelocked=0 stopwait=0 sysmonwait=false\n" +
		"  P0: status=0 schedtick=0 syscalltick=0 m=nil runqsize=0 gfreecnt=0 timerslen=0\n"
	for _, test := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"deadlock", []string{"fatal error: all goroutines are asleep - deadlock!\n\n", "goroutine 1 [chan receive]:\n"},
			"fatal error: all goroutines are asleep - deadlock!\n" + dump + "\ngoroutine 1 [chan receive]:\n"},
		{"panic", []string{"panic: boom\n\n", "goroutine 2 [running]:\n"},
			dump + "panic: boom\n\ngoroutine 2 [running]:\n"},
		{"exit", []string{"schedlab: main returned with 1 goroutine still alive:\n\n", "panic: not a report\n"},
			"schedlab: main returned with 1 goroutine still alive:\n\npanic: not a report\n"},
		{"limit", []string{"schedlab: virtual time limit of 1s reached\n\n"},
			"schedlab: virtual time limit of 1s reached\n\n"},
	} {
		t.Run(test.name, func(t *testing.T) {
			var out strings.Builder
			st := trace.NewSchedTrace(&out, 0, false)
			st.Attach(trace.SnapshotFunc(func() *runtime.Snapshot { return snap }))
			st.Event(&runtime.Event{Time: 0})
			w := &crashDump{w: &out, st: st}
			for _, s := range test.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			if out.String() != test.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", out.String(), test.want)
			}
		})
	}
}

// TestSchedTraceRun runs a script with --schedtrace and --scheddetail
// through Run, as the command does.
func TestSchedTraceRun(t *testing.T) {
	script := filepath.Join(t.TempDir(), "dl.star")
	src := "ch = chan()\ndef sleeper():\n    sleep(\"1.5ms\")\n    ch.recv()\nspawn(sleeper)\nch.recv()\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	code := Run([]string{"--procs=2", "--schedtrace=1ms", script}, &stdout, &stderr)
	want := "SCHED 0ms: gomaxprocs=2 idleprocs=1 threads=1 spinningthreads=0 needspinning=0 idlethreads=0 runqueue=0 [ 0 0 ] schedticks=[ 0 0 ]\n" +
		"SCHED 1ms: "
	if code != 2 || !strings.HasPrefix(stderr.String(), want) {
		t.Fatalf("status %d, stderr:\n%s\nwant it to start with:\n%s", code, stderr.String(), want)
	}
	// The run deadlocks: Go prints the detailed dump after the fatal
	// error's line, then the goroutines.
	_, report, ok := strings.Cut(stderr.String(), "fatal error: all goroutines are asleep - deadlock!\n")
	// The runtime's goroutines are in the detailed dump, as in Go, and
	// not among the goroutines after it; the start-up made a third M.
	if !ok || !strings.HasPrefix(report, "SCHED 1ms: gomaxprocs=2 idleprocs=2 threads=3") ||
		!strings.Contains(report, "\n  G18: status=4(finalizer wait) m=nil lockedm=nil\n") ||
		!strings.Contains(report, "\n  G19: status=4(chan receive) m=nil lockedm=nil\n\ngoroutine 1 [chan receive]:\n") ||
		strings.Contains(report, "goroutine 18") {
		t.Errorf("report:\n%s", report)
	}
}

// TestSchedTraceWithTrace: with --trace on the same terminal, each
// schedtrace line comes before the trace line of the event that made it
// due, since it shows the state before that event.
func TestSchedTraceWithTrace(t *testing.T) {
	script := filepath.Join(t.TempDir(), "work.star")
	if err := os.WriteFile(script, []byte("ch = chan()\ndef w():\n    work(\"2ms\")\n    ch.send(1)\nspawn(w)\nwork(\"1500us\")\nch.recv()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder // stdout and stderr, as a terminal shows them
	if code := Run([]string{"--trace", "--costs=zero", "--schedtrace=1ms", script}, &out, &out); code != 0 {
		t.Fatalf("status %d:\n%s", code, out.String())
	}
	lines := strings.Split(out.String(), "\n")
	var got []string
	for _, l := range lines {
		if strings.HasPrefix(l, "SCHED ") {
			got = append(got, l[:strings.Index(l, ":")])
		} else if f := strings.Fields(l); len(f) > 4 && strings.HasSuffix(f[0], "µs") {
			got = append(got, f[0]+" "+f[4])
		}
	}
	// SCHED 0ms is due at the start-up's first event; the start-up is
	// folded into one comment line, not an event line.
	want := "SCHED 0ms|0.000µs GoCreate|0.000µs GoWork|" +
		"SCHED 1ms|1500.000µs GoBlock|1500.000µs GoStart|1500.000µs GoWork|" +
		"SCHED 2ms|SCHED 3ms|3500.000µs GoUnblock|3500.000µs GoDestroy|3500.000µs GoStart|3500.000µs GoDestroy"
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("order:\n%s\nwant:\n%s\noutput:\n%s", g, want, out.String())
	}
}
