// Tests of the schedtrace writer: golden lines for a simulated run, the
// boundaries, the crash dump, and the format against a real Go program's
// GODEBUG=schedtrace output.

package trace

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// schedWorkload is a small run for the schedtrace tests, the twin of
// testdata/schedtrace/main.go: main starts four workers that compute,
// offer a value on a channel and sleep, plus a reader of the channel, and
// waits for the workers. It lasts about 5ms of virtual time on 2 Ps.
func schedWorkload(g *runtime.G) error {
	m := g.Machine()
	ch, _ := m.NewChan(0)
	wg := m.NewWaitGroup()
	for i := 0; i < 4; i++ {
		g.Add(wg, 1)
		g.Go(func(g *runtime.G) error {
			for g.Now() < 5_000_000 {
				g.Work(300_000)
				g.Select([]runtime.SelectCase{{Dir: runtime.SelectSend, Chan: ch, Send: i}}, false)
				g.Sleep(100_000)
			}
			return g.Add(wg, -1)
		}, "worker")
	}
	g.Go(func(g *runtime.G) error {
		for {
			if _, ok := g.Recv(ch); !ok {
				return nil
			}
		}
	}, "reader")
	g.Wait(wg)
	return nil
}

// runSchedTrace runs main on a Machine of procs Ps with a SchedTrace of
// the given period and detail attached, and returns what it printed and
// the Machine's result. crash calls Crash at the end, as the command does
// when the run dies.
func runSchedTrace(t *testing.T, procs int, period int64, detail, crash bool, main runtime.Func) (string, *runtime.Result) {
	t.Helper()
	var buf bytes.Buffer
	st := NewSchedTrace(&buf, period, detail)
	m := runtime.NewMachine(runtime.Config{Procs: procs, Seed: 1, Tracer: st})
	defer m.Close()
	st.Attach(m)
	m.Start(main)
	res := *m.Run()
	if crash {
		st.Crash()
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), &res
}

func TestSchedTraceGolden(t *testing.T) {
	out, res := runSchedTrace(t, 2, 1_000_000, false, false, schedWorkload)
	if res.Outcome != runtime.Exited {
		t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
	}
	golden(t, "schedtrace.txt", []byte(out))
	out, _ = runSchedTrace(t, 2, 1_000_000, true, false, schedWorkload)
	golden(t, "schedtrace-detail.txt", []byte(out))
}

// TestSchedTraceBoundaries: one line per multiple of the period up to the
// last event, labelled with the boundary in whole milliseconds, as Go
// labels its lines.
func TestSchedTraceBoundaries(t *testing.T) {
	var last int64
	main := func(g *runtime.G) error {
		g.Work(2_500_000)
		g.Sleep(7_000_000) // a gap: the lines at 3..9ms all show it
		g.Work(100_000)
		last = g.Now()
		return nil
	}
	for _, test := range []struct {
		period int64
		labels string
	}{
		{1_000_000, "0 1 2 3 4 5 6 7 8 9"},
		{2_000_000, "0 2 4 6 8"},
		{500_000, "0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 8 8 9 9"},
		{20_000_000, "0"},
	} {
		out, _ := runSchedTrace(t, 1, test.period, false, false, main)
		var labels []string
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			ms, ok := strings.CutPrefix(line, "SCHED ")
			if !ok {
				t.Fatalf("period %d: line %q is not a SCHED line", test.period, line)
			}
			labels = append(labels, ms[:strings.Index(ms, "ms:")])
		}
		if got := strings.Join(labels, " "); got != test.labels {
			t.Errorf("period %d: lines at %s ms, want %s (last event at %dns)", test.period, got, test.labels, last)
		}
	}
	if out, _ := runSchedTrace(t, 1, 0, false, false, main); out != "" {
		t.Errorf("period 0 printed %q", out)
	}
}

// TestSchedTraceState checks the values of the lines against what the run
// does: at 1ms main works on P0 with one G in its ring and one in runnext.
func TestSchedTraceState(t *testing.T) {
	out, _ := runSchedTrace(t, 2, 1_000_000, false, false, func(g *runtime.G) error {
		g.Go(func(g *runtime.G) error { g.Work(5_000_000); return nil }, "a")
		g.Go(func(g *runtime.G) error { g.Work(5_000_000); return nil }, "b")
		g.Go(func(g *runtime.G) error { g.Work(5_000_000); return nil }, "c")
		g.Work(3_000_000)
		return nil
	})
	lines := strings.Split(out, "\n")
	if len(lines) < 3 {
		t.Fatalf("too few lines:\n%s", out)
	}
	// By 1ms P1's M has stolen one G, so each P runs one and P0's ring
	// holds the third (runnext is not counted, as in Go).
	want := "SCHED 1ms: gomaxprocs=2 idleprocs=0 threads=2 spinningthreads=0 needspinning=0 idlethreads=0 runqueue=0 [ 1 0 ] schedticks=[ 1 1 ]"
	if lines[1] != want {
		t.Errorf("line at 1ms:\n got %s\nwant %s\nall:\n%s", lines[1], want, out)
	}
}

// TestSchedTraceCrash: the detailed dump of a run that dies, labelled with
// the time of death, whatever the period.
func TestSchedTraceCrash(t *testing.T) {
	deadlock := func(g *runtime.G) error {
		ch, _ := g.Machine().NewChan(0)
		g.Go(func(g *runtime.G) error { g.Sleep(1_500_000); g.Recv(ch); return nil }, "sleeper")
		g.Recv(ch)
		return nil
	}
	out, res := runSchedTrace(t, 2, 0, false, true, deadlock)
	if res.Outcome != runtime.Deadlock {
		t.Fatalf("outcome %v, want deadlock", res.Outcome)
	}
	want := `SCHED 1ms: gomaxprocs=2 idleprocs=2 threads=2 spinningthreads=0 needspinning=0 idlethreads=2 runqueue=0 gcwaiting=false nmidlelocked=0 stopwait=0 sysmonwait=false
  P0: status=0 schedtick=1 syscalltick=0 m=nil runqsize=0 gfreecnt=0 timerslen=0
  P1: status=0 schedtick=0 syscalltick=0 m=nil runqsize=0 gfreecnt=0 timerslen=0
  M1: p=nil curg=nil mallocing=0 throwing=0 preemptoff= locks=0 dying=0 spinning=false blocked=true lockedg=nil
  M0: p=nil curg=nil mallocing=0 throwing=0 preemptoff= locks=0 dying=0 spinning=false blocked=true lockedg=nil
  G1: status=4(chan receive) m=nil lockedm=nil
  G2: status=4(chan receive) m=nil lockedm=nil
`
	if out != want {
		t.Errorf("crash dump:\n%s\nwant:\n%s", out, want)
	}

	// Without a source, or before the run, Crash prints nothing.
	var buf bytes.Buffer
	st := NewSchedTrace(&buf, 1, true)
	st.Crash()
	st.Event(&runtime.Event{Time: 5})
	if buf.Len() != 0 {
		t.Errorf("printed without a source: %q", buf.String())
	}
}

// TestSchedTraceAdvance: driven by the clock, the lines show the state
// of the moment the clock moves, and events no longer print lines.
func TestSchedTraceAdvance(t *testing.T) {
	var buf bytes.Buffer
	st := NewSchedTrace(&buf, 1_000_000, false)
	state := 0
	st.Attach(SnapshotFunc(func() *runtime.Snapshot {
		return &runtime.Snapshot{GOMAXPROCS: 1, Ps: []runtime.PState{{Schedtick: uint32(state)}}}
	}))
	st.Event(&runtime.Event{Time: 0}) // the line at 0, from the first event
	state = 1
	st.Advance(2_500_000) // 1ms and 2ms show state 1
	state = 2
	st.Event(&runtime.Event{Time: 2_500_000})
	st.Event(&runtime.Event{Time: 3_000_000}) // not printed by events any more
	st.Advance(3_000_000)                     // 3ms shows state 2
	st.Advance(3_000_000)                     // nothing new
	want := `SCHED 0ms: gomaxprocs=1 idleprocs=0 threads=0 spinningthreads=0 needspinning=0 idlethreads=0 runqueue=0 [ 0 ] schedticks=[ 0 ]
SCHED 1ms: gomaxprocs=1 idleprocs=0 threads=0 spinningthreads=0 needspinning=0 idlethreads=0 runqueue=0 [ 0 ] schedticks=[ 1 ]
SCHED 2ms: gomaxprocs=1 idleprocs=0 threads=0 spinningthreads=0 needspinning=0 idlethreads=0 runqueue=0 [ 0 ] schedticks=[ 1 ]
SCHED 3ms: gomaxprocs=1 idleprocs=0 threads=0 spinningthreads=0 needspinning=0 idlethreads=0 runqueue=0 [ 0 ] schedticks=[ 2 ]
`
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestSchedTraceWriteError(t *testing.T) {
	st := NewSchedTrace(failWriter{}, 1000, false)
	st.Attach(SnapshotFunc(func() *runtime.Snapshot { return &runtime.Snapshot{GOMAXPROCS: 1} }))
	st.Event(&runtime.Event{Time: 0})
	st.Event(&runtime.Event{Time: 5000})
	if err := st.Flush(); err == nil || err.Error() != "disk full" {
		t.Errorf("Flush = %v, want disk full", err)
	}
}

// TestSchedTraceMatchesGo runs testdata/schedtrace/main.go, a real Go
// program, with GODEBUG=schedtrace=1 and with scheddetail=1 too, and
// checks that every kind of line it prints has the same form as the lines
// schedlab prints (the same keys, in the same order, with values of the
// same kind), and the other way round.
func TestSchedTraceMatchesGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a Go program; skipped with -short")
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain on PATH")
	}
	bin := filepath.Join(t.TempDir(), "schedtrace-demo")
	build := exec.Command(gocmd, "build", "-o", bin, "./testdata/schedtrace/main.go")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, detail := range []bool{false, true} {
		godebug := "schedtrace=1"
		if detail {
			godebug += ",scheddetail=1"
		}
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "GODEBUG="+godebug, "GOMAXPROCS=2")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatal(err)
			}
			t.Fatalf("%s: %v\n%s", godebug, err, stderr.Bytes())
		}
		goShapes := schedShapes(t, stderr.String())
		out, _ := runSchedTrace(t, 2, 1_000_000, detail, false, schedWorkload)
		ourShapes := schedShapes(t, out)
		if !slices.Equal(goShapes, ourShapes) {
			t.Errorf("GODEBUG=%s: the forms of the lines differ\nGo:\n  %s\nschedlab:\n  %s\nGo's output:\n%s\nschedlab's:\n%s",
				godebug, strings.Join(goShapes, "\n  "), strings.Join(ourShapes, "\n  "), stderr.String(), out)
		}
	}
}

// Rewrites that reduce a schedtrace line to its form.
var (
	shapeReason  = regexp.MustCompile(`\(.*\)`)           // a G's wait reason, which may hold parentheses
	shapePreempt = regexp.MustCompile(`preemptoff=\S*`)   // a string, usually empty
	shapeValue   = regexp.MustCompile(`-?\d+|\bnil\b`)    // numbers (Go's racy reads can be negative), ids, or nil for none
	shapeBool    = regexp.MustCompile(`\b(true|false)\b`) // booleans
	shapeList    = regexp.MustCompile(`\[( N)+ \]`)       // [ l1 l2 ... ], one entry per P
)

// schedShapes returns the distinct forms of the lines of a schedtrace
// output, sorted: "SCHED Nms: gomaxprocs=N ... [ N... ] schedticks=[ N... ]",
// "  PN: status=N ...", "  GN: status=N(R) m=N lockedm=N". Lines that are
// not schedtrace's, and a last line without its newline, are skipped.
func schedShapes(t *testing.T, out string) []string {
	t.Helper()
	var shapes []string
	lines := strings.Split(out, "\n")
	// The last line is cut short when the program exits while sysmon
	// prints: keep only the lines that ended.
	lines = lines[:len(lines)-1]
	for _, line := range lines {
		if !strings.HasPrefix(line, "SCHED ") && !strings.HasPrefix(line, "  P") &&
			!strings.HasPrefix(line, "  M") && !strings.HasPrefix(line, "  G") {
			continue
		}
		s := shapeReason.ReplaceAllString(line, "(R)")
		s = shapePreempt.ReplaceAllString(s, "preemptoff=S")
		s = shapeValue.ReplaceAllString(s, "N")
		s = shapeBool.ReplaceAllString(s, "B")
		s = shapeList.ReplaceAllString(s, "[ N... ]")
		if !slices.Contains(shapes, s) {
			shapes = append(shapes, s)
		}
	}
	if len(shapes) == 0 {
		t.Fatalf("no schedtrace lines in:\n%s", out)
	}
	slices.Sort(shapes)
	return shapes
}
