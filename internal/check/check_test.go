package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/explore"
	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

func compile(t *testing.T, src string) *lang.Program {
	t.Helper()
	prog, err := lang.Compile("x.star", []byte(src), lang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// walk walks src's schedules at one P with the textbook costs, and returns
// the verdict and every run.
func walk(t *testing.T, src string, procs, bound int) (*Verdict, []*Run) {
	t.Helper()
	var runs []*Run
	cfg := Config{Program: compile(t, src), Options: lang.Options{Procs: procs, Costs: runtime.ZeroCosts()}, Bound: bound}
	v, err := Walk(cfg, func(r *Run) bool {
		kept := *r
		kept.Points = slices.Clone(r.Points) // Walk reuses r's
		runs = append(runs, &kept)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return v, runs
}

// outputs returns the distinct stdouts of runs, sorted.
func outputs(runs []*Run) []string {
	var out []string
	for _, r := range runs {
		out = append(out, string(r.Stdout))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// twoGoroutines: main and a goroutine each print one line, and main waits
// for the other. Every builtin call is a safe point, and a choice point
// when another goroutine could run instead: main (G1) at print("m"), where
// a (G2) is in runnext, and at wg.wait(); a at print("a") and at
// wg.done() when main is runnable. A G preempted at a safe point goes to
// the global queue and, when it runs again, makes its call without being
// asked again.
const twoGoroutines = `wg = waitgroup()
wg.add(1)
def a():
    print("a")
    wg.done()
spawn(a)
print("m")
wg.wait()
`

// TestWalkCountsTheTree: the walk meets twoGoroutines' ten schedules, in
// depth-first order, each once; a bound keeps those with at most that
// many preemptions.
func TestWalkCountsTheTree(t *testing.T) {
	// Worked by hand: each leaf's questions as G:answer, its output and
	// its preemptions. The first is `schedlab run`'s schedule.
	want := []struct {
		points   string
		out      string
		preempts int
	}{
		{"1:0 1:0", "m a", 0},         // main prints, waits; a runs
		{"1:0 1:1 2:0 2:0", "m a", 1}, // main preempted at wait
		{"1:0 1:1 2:0 2:1", "m a", 2}, // ... and a at done: main blocks in wait
		{"1:0 1:1 2:1", "m a", 2},     // ... and a before its print
		{"1:1 2:0 2:0", "a m", 1},     // main preempted before its print: a first
		{"1:1 2:0 2:1 1:0", "a m", 2}, // ... a preempted at done, main waits
		{"1:1 2:0 2:1 1:1", "a m", 3}, // ... and preempted at wait too
		{"1:1 2:1 1:0", "m a", 2},     // a preempted before its print: main prints first
		{"1:1 2:1 1:1 2:0", "m a", 3}, // ... main preempted at wait
		{"1:1 2:1 1:1 2:1", "m a", 4}, // ... a at done
	}
	for _, bound := range []int{-1, 0, 1, 2, 3, 4} {
		v, runs := walk(t, twoGoroutines, 1, bound)
		var got, exp []string
		for _, r := range runs {
			var pts []string
			for _, p := range r.Points {
				if p.Kind != runtime.ChoicePreempt {
					t.Errorf("a %v choice in a program without select", p.Kind)
				}
				pts = append(pts, fmt.Sprintf("%d:%d", p.G, p.Answer))
			}
			got = append(got, fmt.Sprintf("%s -> %s (%d)", strings.Join(pts, " "), strings.ReplaceAll(strings.TrimSpace(string(r.Stdout)), "\n", " "), r.Preemptions()))
		}
		for _, w := range want {
			if bound < 0 || w.preempts <= bound {
				exp = append(exp, fmt.Sprintf("%s -> %s (%d)", w.points, w.out, w.preempts))
			}
		}
		if !slices.Equal(got, exp) {
			t.Errorf("bound %d: schedules\n%s\nwant\n%s", bound, strings.Join(got, "\n"), strings.Join(exp, "\n"))
		}
		if v.Schedules != len(exp) || !v.Complete || v.Failure != nil {
			t.Errorf("bound %d: verdict %d schedules, complete %v, failure %v; want %d, true, none", bound, v.Schedules, v.Complete, v.Failure != nil, len(exp))
		}
	}
}

// TestWalkFindsALostUpdate: two goroutines increment a shared counter with
// a builtin call between the read and the write. The schedule without
// preemptions passes; one preemption between the read and the write loses
// an update, and the walk finds it, with its schedule.
func TestWalkFindsALostUpdate(t *testing.T) {
	src := `counter = [0]
wg = waitgroup()
def inc():
    v = counter[0]
    now()  # a call: a safe point between the read and the write
    counter[0] = v + 1
    wg.done()
wg.add(2)
spawn(inc)
spawn(inc)
wg.wait()
assert(counter[0] == 2, "lost an update: counter is %d" % counter[0])
`
	if v, _ := walk(t, src, 1, 0); v.Failure != nil || !v.Complete || v.Schedules != 1 {
		t.Errorf("bound 0: %d schedules, failure %v; want the one, passing", v.Schedules, v.Failure != nil)
	}
	prog := compile(t, src)
	v, err := Walk(Config{Program: prog, Options: lang.Options{Procs: 1, Costs: runtime.ZeroCosts()}, Bound: 1, StopAtFailure: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := v.Failure
	if f == nil {
		t.Fatalf("bound 1: no failure in %d schedules", v.Schedules)
	}
	if f.Result.Outcome != explore.Assert || f.Result.Message != "lost an update: counter is 1" || f.Preemptions() != 1 {
		t.Errorf("failure %v %q with %d preemptions, want the assert, with 1", f.Result.Outcome, f.Result.Message, f.Preemptions())
	}
	// Its schedule replays it.
	ch := &chooser{prefix: f.Schedule()}
	opts := lang.Options{Procs: 1, Costs: runtime.ZeroCosts(), Chooser: ch}
	var stderr strings.Builder
	opts.Stderr = &stderr
	if res := prog.Run(opts); res.ExitCode != 2 || !strings.Contains(stderr.String(), "lost an update: counter is 1") {
		t.Errorf("replay of %v: exit %d, %q", f.Schedule(), res.ExitCode, stderr.String())
	}
}

// TestWalkSelect: with both channels ready, a select's winner is a choice
// point, and either case can win, as selectgo's random poll order lets
// either win in Go.
func TestWalkSelect(t *testing.T) {
	src := `a, b = chan(1), chan(1)
a.send("a")
b.send("b")
i, v, ok = select(a.on_recv(), b.on_recv())
print(v)
`
	v, runs := walk(t, src, 1, -1)
	if got := outputs(runs); !slices.Equal(got, []string{"a\n", "b\n"}) || v.Schedules != 2 || !v.Complete {
		t.Errorf("outputs %q in %d schedules, want a and b in 2", got, v.Schedules)
	}
	if p := runs[0].Points; len(p) != 1 || p[0].Kind != runtime.ChoiceSelect || p[0].N != 2 {
		t.Errorf("points %v, want one select choice of 2", p)
	}
}

// TestWalkTwoPs: at two Ps the walk ends, walks the same schedules every
// time, and finds the orders in which two goroutines running on two Ps
// interleave their prints at their safe points (ChoiceInterleave): the one
// the costs give, each after the other, and the two alternating ones
// within the bound of 2.
func TestWalkTwoPs(t *testing.T) {
	src := `wg = waitgroup()
def w(name):
    print(name + "1")
    print(name + "2")
    wg.done()
wg.add(2)
spawn(w, "a")
spawn(w, "b")
wg.wait()
`
	v, runs := walk(t, src, 2, 2)
	v2, _ := walk(t, src, 2, 2)
	t.Logf("%d schedules, outputs %q", v.Schedules, outputs(runs))
	if v.Schedules != v2.Schedules || !v.Complete || v.Failure != nil {
		t.Errorf("%d and %d schedules, complete %v, failure %v", v.Schedules, v2.Schedules, v.Complete, v.Failure != nil)
	}
	got := outputs(runs)
	for _, want := range []string{"a1\na2\nb1\nb2\n", "b1\nb2\na1\na2\n", "a1\nb1\na2\nb2\n", "b1\na1\na2\nb2\n"} {
		if !slices.Contains(got, want) {
			t.Errorf("outputs %q: no %q", got, want)
		}
	}
	interleaved := false
	for _, r := range runs {
		for _, p := range r.Points {
			interleaved = interleaved || p.Kind == runtime.ChoiceInterleave
		}
	}
	if !interleaved {
		t.Errorf("no interleave choice at two Ps")
	}
}

// TestNext: the next schedule backtracks to the deepest untried answer the
// bound allows.
func TestNext(t *testing.T) {
	pre := func(a int) Point { return Point{Kind: runtime.ChoicePreempt, N: 2, Answer: a} }
	sel := func(a, n int) Point { return Point{Kind: runtime.ChoiceSelect, N: n, Answer: a} }
	for _, tc := range []struct {
		points []Point
		bound  int
		want   Schedule // nil: done
	}{
		{[]Point{pre(0), pre(0)}, -1, Schedule{0, 1}},
		{[]Point{pre(0), pre(1)}, -1, Schedule{1}},
		{[]Point{pre(1), pre(1)}, -1, nil},
		{[]Point{pre(1), pre(0)}, 1, nil},               // a second preemption is over the bound
		{[]Point{pre(1), sel(0, 3)}, 1, Schedule{1, 1}}, // a select's answers are not preemptions
		{[]Point{pre(0), sel(2, 3)}, 0, nil},            // the first point's 1 would preempt
		{[]Point{sel(0, 2), pre(0), sel(1, 2)}, -1, Schedule{0, 1}},
	} {
		got, ok := next(nil, tc.points, tc.bound, nil)
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("next(%v, %d) = %v, %v; want %v", tc.points, tc.bound, got, ok, tc.want)
		}
	}
}

// lateMain's assert fails only if main is late by the setter's 100µs
// sleep between its two reads of flag: no preemption makes it so (a
// preempted main resumes at once when nothing else can run), a thread
// stall does.
const lateMain = `flag = [0]
def setter():
    sleep("100us")
    flag[0] = 1
spawn(setter)
work("10us")
before = flag[0]
now()
assert(flag[0] == before, "main was late: the setter ran in between")
`

// TestWalkStalls: without stalls the complete walk of lateMain finds no
// failure; with Options.ChooseStalls a stall at main's safe point, one
// against the bound, finds it, and the failing schedule replays.
func TestWalkStalls(t *testing.T) {
	for _, stalls := range []bool{false, true} {
		cfg := Config{Program: compile(t, lateMain), Options: lang.Options{Procs: 2, Costs: runtime.ZeroCosts(), ChooseStalls: stalls}, Bound: 1, StopAtFailure: true}
		v, err := Walk(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !stalls && (v.Failure != nil || !v.Complete):
			t.Errorf("without stalls: failure %v, complete %v; want a complete walk without failure", v.Failure != nil, v.Complete)
		case stalls && v.Failure == nil:
			t.Errorf("with stalls: no failure in %d schedules", v.Schedules)
		case stalls:
			if n := v.Failure.Preemptions(); n != 1 {
				t.Errorf("the failing schedule has %d preemptions, want 1 (a stall)", n)
			}
			if !strings.Contains(string(v.Failure.Stderr), "main was late") {
				t.Errorf("the failing run says %q", v.Failure.Stderr)
			}
		}
	}
}

// A run that the host stops (here, the wall-clock timeout) ends the walk,
// incomplete: it is neither counted nor a failure, since where it stopped
// is the machine's doing, not the schedule's. Config.Stop ends a run in
// the middle, as an interrupt.
func TestWalkHostLimit(t *testing.T) {
	const spin = `
def spin():
    while True:
        pass
spawn(spin)
sleep("1s")
`
	cfg := Config{Program: compile(t, spin), Options: lang.Options{Procs: 1, Preempt: true, Costs: runtime.ZeroCosts(), Timeout: 50 * time.Millisecond}}
	v, err := Walk(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Failure != nil || v.Schedules != 0 || v.Complete || v.Interrupted || !strings.Contains(v.HostLimit, "schedule 1 reached a limit of the host's: wall-clock timeout") {
		t.Errorf("a run stopped by the timeout: failure %v, %d schedules, complete %v, interrupted %v, host limit %q; want no failure, 0 schedules, incomplete, the host limit said", v.Failure != nil, v.Schedules, v.Complete, v.Interrupted, v.HostLimit)
	}

	stop := make(chan struct{})
	cfg.Options.Timeout = 0
	cfg.Stop = stop
	time.AfterFunc(50*time.Millisecond, func() { close(stop) })
	v, err = Walk(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Failure != nil || v.Schedules != 0 || !v.Interrupted || v.HostLimit != "" {
		t.Errorf("a run interrupted by Stop: failure %v, %d schedules, interrupted %v, host limit %q; want no failure, 0 schedules, interrupted", v.Failure != nil, v.Schedules, v.Interrupted, v.HostLimit)
	}
}

// parallelPrograms are walked on one worker and on several by
// TestParallelWalk, besides soundPrograms: a select with three answers,
// and a deadlock in every schedule.
var parallelPrograms = map[string]string{
	"select3": `a, b, c = chan(1), chan(1), chan(1)
a.send("a")
b.send("b")
c.send("c")
out = []
def take():
    k, v, _ = select(a.on_recv(), b.on_recv(), c.on_recv())
    out.append(v)
wg = waitgroup()
wg.add(2)
def run():
    take()
    wg.done()
spawn(run)
spawn(run)
wg.wait()
print(out)
`,
	"deadlock": `mu1, mu2 = mutex(), mutex()
def one():
    mu1.lock()
    gosched()
    mu2.lock()
    mu2.unlock()
    mu1.unlock()
def two():
    mu2.lock()
    gosched()
    mu1.lock()
    mu1.unlock()
    mu2.unlock()
wg = waitgroup()
wg.add(2)
def run(f):
    f()
    wg.done()
spawn(run, one)
spawn(run, two)
wg.wait()
`,
}

// TestParallelWalk: the naive walk on 2 and 8 workers gives the
// verdict of one worker, and visits the same runs in the same order, at
// every bound, to the end, stopping at the first failure, and cut short
// by MaxSchedules.
func TestParallelWalk(t *testing.T) {
	programs := maps.Clone(soundPrograms)
	maps.Copy(programs, parallelPrograms)
	for name, src := range programs {
		prog := compile(t, src)
		for _, procs := range []int{1, 2} {
			for _, bound := range []int{-1, 0, 1, 2} {
				for _, stop := range []bool{false, true} {
					for _, most := range []int{0, 7} {
						var want string
						for _, jobs := range []int{1, 2, 8} {
							var seen []string
							cfg := Config{Program: prog, Options: lang.Options{Procs: procs, Costs: runtime.ZeroCosts()}, Bound: bound, MaxSchedules: most, StopAtFailure: stop, Jobs: jobs}
							v, err := Walk(cfg, func(r *Run) bool {
								seen = append(seen, fmt.Sprintf("%v %s %q", r.Schedule(), r.Result.Key(), r.Stdout))
								return true
							})
							if err != nil {
								t.Fatal(err)
							}
							got := fmt.Sprintf("%d schedules, complete %v, failures %d, classes %v\n%s", v.Schedules, v.Complete, v.failures, v.Classes, strings.Join(seen, "\n"))
							if v.Failure != nil {
								got += fmt.Sprintf("\nfailure %d: %v", v.failureAt, v.Failure.Schedule())
							}
							if jobs == 1 {
								want = got
								continue
							}
							if got != want {
								t.Errorf("%s procs %d bound %d stop %v max %d: %d workers:\n%s\none worker:\n%s", name, procs, bound, stop, most, jobs, got, want)
							}
						}
					}
				}
			}
		}
	}
}
