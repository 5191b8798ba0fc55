package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// A traceChooser records, beside a walk's own tracker, each channel's
// sequence of accesses by goroutine, the wait group's (as channel 0) and
// the output's: the run's Mazurkiewicz trace under the dependence of
// dpor.go, for programs whose only shared objects are channels, one wait
// group and the output.
type traceChooser struct {
	*trackingChooser
	g      int64
	chans  map[int64][]string
	output []string
}

func (c *traceChooser) Running(g int64) {
	c.g = g
	c.tracker.Running(g)
}

func (c *traceChooser) Touch(obj any, a runtime.Access) {
	switch o := obj.(type) {
	case *runtime.Chan:
		c.chans[o.ID()] = append(c.chans[o.ID()], fmt.Sprintf("%d%s", c.g, map[runtime.Access]string{runtime.AccessRead: "r", runtime.AccessWrite: "w"}[a]))
	case *runtime.WaitGroup:
		c.chans[0] = append(c.chans[0], fmt.Sprintf("%d", c.g))
	case lang.Call:
		if strings.HasPrefix(string(o), "print") {
			c.output = append(c.output, fmt.Sprint(c.g))
		}
	}
	c.tracker.Touch(obj, a)
}

// trace returns the run's trace as a string.
func (c *traceChooser) trace() string {
	var ids []int64
	for id := range c.chans {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "c%d:%s ", id, strings.Join(compactReads(c.chans[id]), ","))
	}
	fmt.Fprintf(&b, "out:%s", strings.Join(c.output, ","))
	return b.String()
}

// compactReads drops repeated reads by one goroutine in a row.
func compactReads(acc []string) []string {
	var out []string
	for _, a := range acc {
		if len(out) > 0 && out[len(out)-1] == a && strings.HasSuffix(a, "r") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// traces walks src with reduction red and returns the distinct traces of
// its runs and how many runs there were.
func traces(t *testing.T, src string, procs, bound int, red Reduction) ([]string, *Verdict) {
	t.Helper()
	prog := compile(t, src)
	seen := map[string]bool{}
	v, err := walkTraced(prog, lang.Options{Procs: procs, Costs: runtime.ZeroCosts()}, bound, red, func(tr string) { seen[tr] = true })
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for tr := range seen {
		out = append(out, tr)
	}
	slices.Sort(out)
	return out, v
}

// walkTraced walks prog and calls seen with each run's trace.
func walkTraced(prog *lang.Program, opts lang.Options, bound int, red Reduction, seen func(string)) (*Verdict, error) {
	cfg := Config{Program: prog, Options: opts, Bound: bound, Reduction: red}
	cfg.wrap = func(tc *trackingChooser) (runtime.Chooser, func()) {
		c := &traceChooser{trackingChooser: tc, chans: map[int64][]string{}}
		return c, func() { seen(c.trace()) }
	}
	return Walk(cfg, nil)
}

// handCounted are programs whose traces under dpor.go's dependence are
// counted by hand, at one P with the textbook costs: each goroutine's
// channel operations are W accesses of the channel, a blocked receive
// makes its access when it blocks, and the sender then wakes it.
var handCounted = []struct {
	name   string
	src    string
	traces int
	dpor   int // schedules DPOR runs (TestDPORHandCounted)
}{
	// a sends on c1, b on c2, and each is done with a wait group that
	// main waits on. Only a touches c1 and only b c2: the channels add no
	// order. The wait group's accesses are: main's add, then a's done,
	// b's done and main's wait in any order where the wait is first
	// (it blocks), between (it blocks) or last, with the dones either
	// way: 3 x 2 = 6 traces.
	{"two goroutines, two channels", `c1, c2 = chan(1), chan(1)
wg = waitgroup()
wg.add(2)
def w(c, v):
    c.send(v)
    wg.done()
spawn(w, c1, 1)
spawn(w, c2, 2)
wg.wait()
`, 6, 22},
	// The same on one channel: the sends' order doubles the 6, less two
	// orders that Go's queues rule out at one P: the goroutine preempted
	// between its send and its done went to the global queue before
	// main did, so its done comes before main's wait. 10 traces.
	{"two goroutines, one channel", `c = chan(2)
wg = waitgroup()
wg.add(2)
def w(c, v):
    c.send(v)
    wg.done()
spawn(w, c, 1)
spawn(w, c, 2)
wg.wait()
`, 10, 41},
	// a sends on c1, b on c2, main receives from c1 then c2. Each send
	// is before or after the receive of its channel (blocked first): 2
	// x 2 = 4 traces; the rest is ordered by the receives.
	{"two senders, two channels, main receives", `c1, c2 = chan(1), chan(1)
def a():
    c1.send(1)
def b():
    c2.send(2)
spawn(a)
spawn(b)
c1.recv()
c2.recv()
`, 4, 12},
	// Both on one channel: the two sends S_a, S_b and main's receives
	// R1 < R2 all touch c. Main runs R2 only after R1 got a value, so
	// after a send; the orders of the four with R1 before R2 and a send
	// before R2 are R1 S R2 S, R1 S S R2, S R1 R2 S, S R1 S R2 and
	// S S R1 R2, each with the sends either way: 10 traces.
	//
	// DPOR without sleep sets ran 27 schedules; with them, 26 (sleep.go).
	// The one left out is 1,0,1,1,1: main (G1) is preempted before its
	// first receive, a (G2) sends, main is preempted again at that
	// receive (point 2, b runs), b (G3) is preempted at once, before its
	// send (point 3), and main receives. Main's receive sleeps from
	// point 2, where the walk had already run its 0, and b's start (up
	// to its first call) touched nothing, so the run is blocked there
	// (1,0,1,1,0 runs, its outcome counted) and its switch at point 4,
	// 1,0,1,1,1, is not tried: its trace, a's send, main's receive, b's
	// send, main's receive, is 1,0,0,1's.
	{"two senders, one channel", `c = chan(2)
def a():
    c.send(1)
def b():
    c.send(2)
spawn(a)
spawn(b)
c.recv()
c.recv()
`, 10, 26},
}

// TestDPORHandCounted: DPOR's runs meet exactly the traces counted by
// hand, the same as the naive walk's, in no more schedules; and, as its
// sleep sets are not enough to make it optimal, it may run a trace more
// than once: the counts are pinned so that a change shows.
func TestDPORHandCounted(t *testing.T) {
	for _, tc := range handCounted {
		naive, nv := traces(t, tc.src, 1, -1, NoReduction)
		got, dv := traces(t, tc.src, 1, -1, DPOR)
		t.Logf("%s: naive %d schedules, dpor %d, %d traces", tc.name, nv.Schedules, dv.Schedules, len(got))
		if len(naive) != tc.traces {
			t.Errorf("%s: the naive walk meets %d traces, counted %d:\n%s", tc.name, len(naive), tc.traces, strings.Join(naive, "\n"))
		}
		if !slices.Equal(got, naive) {
			t.Errorf("%s: dpor meets traces\n%s\nthe naive walk\n%s", tc.name, strings.Join(got, "\n"), strings.Join(naive, "\n"))
		}
		if dv.Schedules > nv.Schedules || !dv.Complete {
			t.Errorf("%s: dpor %d schedules (complete %v), naive %d", tc.name, dv.Schedules, dv.Complete, nv.Schedules)
		}
		if dv.Schedules != tc.dpor {
			t.Errorf("%s: dpor %d schedules, pinned %d", tc.name, dv.Schedules, tc.dpor)
		}
	}
}

// TestSleepSetsNeedTheRunQueues: without the run queues as an object of
// the sleep test (sleep.go), the wait-group program of handCounted loses
// a trace, main's add, a's done, b's done, main's wait: only the naive
// walk's 1,0,0,1,0,0 meets it, main preempted before it spawns b, and
// there main's spawn sleeps (its 0 ran first) while a's steps, on c1 and
// the wait group's done, are independent of it. Main then runs asleep
// and the run is blocked, though Go's queues differ: b went into
// runnext after a ran, not before, and only that order lets b finish
// before main waits.
func TestSleepSetsNeedTheRunQueues(t *testing.T) {
	tc := handCounted[0]
	_, v := traces(t, tc.src, 1, -1, DPOR)
	if v.blocked == 0 {
		t.Errorf("%s: no run blocked by a sleeper", tc.name)
	}
	ignoreRunQueues = true
	defer func() { ignoreRunQueues = false }()
	got, _ := traces(t, tc.src, 1, -1, DPOR)
	if len(got) >= tc.traces || slices.Contains(got, "c0:1,2,3,1 c1:2w c2:3w out:") {
		t.Errorf("%s: without the run queues, dpor meets %d traces:\n%s", tc.name, len(got), strings.Join(got, "\n"))
	}
}

// soundPrograms are the programs of this package's tests.
var soundPrograms = map[string]string{
	"twoGoroutines": twoGoroutines,
	"lost update": `counter = [0]
wg = waitgroup()
def inc():
    v = counter[0]
    now()
    counter[0] = v + 1
    wg.done()
wg.add(2)
spawn(inc)
spawn(inc)
wg.wait()
assert(counter[0] == 2, "lost an update: counter is %d" % counter[0])
`,
	"select": `a, b = chan(1), chan(1)
a.send("a")
b.send("b")
i, v, ok = select(a.on_recv(), b.on_recv())
print(v)
`,
	"handoff": `c = chan()
done = chan()
def r():
    v = c.recv()
    assert(v == 1, "got 2 first")
    c.recv()
    done.send(None)
spawn(r)
spawn(lambda: c.send(1))
spawn(lambda: c.send(2))
done.recv()
`,
	"order": `c = chan(2)
def w(v):
    c.send(v)
spawn(w, 1)
spawn(w, 2)
print(c.recv(), c.recv())
`,
}

// soundness compares the naive walk and DPOR on every program of this
// package's tests, at one and two Ps, without a bound and with bounds 0
// to 3, and returns what differs: the verdict, the outcomes met, or more
// schedules with DPOR.
func soundness(t *testing.T) []string {
	progs := map[string]string{}
	for name, src := range soundPrograms {
		progs[name] = src
	}
	for _, tc := range handCounted {
		progs[tc.name] = tc.src
	}
	var diffs []string
	for name, src := range progs {
		prog := compile(t, src)
		for _, procs := range []int{1, 2} {
			for _, bound := range []int{-1, 0, 1, 2, 3} {
				v := walkBoth(t, prog, procs, bound)
				naive, dpor := v[0], v[1]
				var nk, dk []string
				for _, c := range naive.Classes {
					nk = append(nk, fmt.Sprint(c.Key))
				}
				for _, c := range dpor.Classes {
					dk = append(dk, fmt.Sprint(c.Key))
				}
				slices.Sort(nk)
				slices.Sort(dk)
				switch {
				case !naive.Complete || !dpor.Complete:
					diffs = append(diffs, fmt.Sprintf("%s procs %d bound %d: incomplete", name, procs, bound))
				case dpor.Schedules > naive.Schedules:
					diffs = append(diffs, fmt.Sprintf("%s procs %d bound %d: dpor %d schedules, naive %d", name, procs, bound, dpor.Schedules, naive.Schedules))
				case (naive.Failure != nil) != (dpor.Failure != nil) || !slices.Equal(nk, dk):
					diffs = append(diffs, fmt.Sprintf("%s procs %d bound %d: outcomes naive %v, dpor %v", name, procs, bound, nk, dk))
				}
			}
		}
	}
	slices.Sort(diffs)
	return diffs
}

// TestDPORSound: on this package's programs, DPOR meets the naive walk's
// verdict and outcomes, in no more schedules.
func TestDPORSound(t *testing.T) {
	for _, d := range soundness(t) {
		t.Error(d)
	}
}

// TestDPORSoundCatchesABrokenDependence: with channel operations taken as
// independent of each other, a wrong dependence, TestDPORSound's
// comparison fails.
func TestDPORSoundCatchesABrokenDependence(t *testing.T) {
	breakChannels = true
	defer func() { breakChannels = false }()
	diffs := soundness(t)
	if len(diffs) == 0 {
		t.Fatal("the comparison finds nothing wrong with channels independent")
	}
	t.Logf("with channels independent:\n%s", strings.Join(diffs, "\n"))
}

// walkBoth walks prog at procs Ps up to bound (zero costs, at most 20,000
// schedules) without reduction and with DPOR, and returns the two
// verdicts in that order.
func walkBoth(t *testing.T, prog *lang.Program, procs, bound int) [2]*Verdict {
	t.Helper()
	var v [2]*Verdict
	for i, red := range []Reduction{NoReduction, DPOR} {
		var err error
		v[i], err = Walk(Config{Program: prog, Options: lang.Options{Procs: procs, Costs: runtime.ZeroCosts()}, Bound: bound, MaxSchedules: 20000, Reduction: red}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	return v
}
