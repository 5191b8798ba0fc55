package calibrate

import (
	"bytes"
	"context"
	"math"
	"runtime"
	"runtime/trace"
	"testing"

	"github.com/schedlab/schedlab/internal/realtrace"
	schedrt "github.com/schedlab/schedlab/runtime"
)

// traced runs a probe under runtime/trace at GOMAXPROCS procs and reads
// the trace back.
func traced(t *testing.T, procs int, f func(ctx context.Context) samples) (*realtrace.Trace, samples) {
	t.Helper()
	if !supported {
		t.Skip("the probes run on Linux only")
	}
	if trace.IsEnabled() {
		t.Skip("tracing already on")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	s := f(context.Background())
	trace.Stop()
	tr, err := realtrace.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return tr, s
}

// A goroutine that sleeps is never readied before its time: every
// lateness the trace shows is at least 0 (less the few hundred ns between
// time.Sleep reading the clock and the goroutine blocking), and the
// probe's own clock agrees.
func TestTimerProbe(t *testing.T) {
	const rounds = 2
	tr, s := traced(t, 2, func(ctx context.Context) samples { return probeTimers(ctx, rounds) })
	lates, err := timerLates(tr, rounds)
	if err != nil {
		t.Fatal(err)
	}
	for class, ls := range lates {
		for _, l := range ls {
			if l < -1000 {
				t.Errorf("%s: a sleep readied %.0fns early", class, -l)
			}
		}
	}
	for class, ls := range s {
		for _, l := range ls {
			if l < 0 {
				t.Errorf("%s: the clock says a sleep ended %.0fns early", class, -l)
			}
		}
	}
	if len(lates["timer_long"]) != 2*rounds || len(lates["timer_short"]) != 3*rounds {
		t.Errorf("lates %v, want %d long and %d short", lates, 2*rounds, 3*rounds)
	}
}

// The spawn, switch and Gosched probes' traces hold the intervals the
// analysis looks for, each well under the orders of magnitude of
// DESIGN.md (a spawn and a hand-off take well under 100µs on any machine
// that runs these tests).
func TestSchedProbes(t *testing.T) {
	const rounds = 20
	for _, c := range []struct {
		name  string
		procs int
		probe func(context.Context, int) samples
		gaps  func(*realtrace.Trace) []float64
		min   int
	}{
		{"spawn", 2, probeSpawn, spawnGaps, rounds},
		{"switch", 1, probeSwitch, func(tr *realtrace.Trace) []float64 { return switchGaps(tr, "switch", realtrace.Waiting, "") }, rounds},
		{"gosched", 1, probeGosched, func(tr *realtrace.Trace) []float64 {
			return switchGaps(tr, "gosched", realtrace.Runnable, "runtime.Gosched")
		}, rounds},
	} {
		tr, s := traced(t, c.procs, func(ctx context.Context) samples { return c.probe(ctx, rounds) })
		gaps := c.gaps(tr)
		if len(gaps) < c.min {
			t.Errorf("%s: %d intervals in the trace, want at least %d", c.name, len(gaps), c.min)
		}
		if len(s[c.name]) == 0 {
			t.Errorf("%s: no clock samples", c.name)
		}
		// Any one interval may include the OS running another thread
		// (a loaded test machine); the median may not.
		for _, g := range gaps {
			if g < 0 {
				t.Errorf("%s: an interval of %.0fns", c.name, g)
				break
			}
		}
		if m := median(gaps); len(gaps) > 0 && m > 100_000 {
			t.Errorf("%s: a median interval of %.0fns", c.name, m)
		}
	}
}

// A goroutine readied while the waker goes on running is run by the other
// P after that P's thread wakes up: the trace splits the interval, and the
// parts add up.
func TestWakeProbe(t *testing.T) {
	const rounds = 10
	tr, s := traced(t, 2, func(ctx context.Context) samples { return probeWake(ctx, rounds) })
	w := analyzeWake(tr)
	n := len(w.wakeup["wake"])
	if n == 0 {
		t.Fatalf("no wake-up in %d rounds (left out: %v)", rounds, w.skip)
	}
	for i := range n {
		if w.wakeup["wake"][i] <= 0 || w.steal["wake"][i] < 0 || w.wakeup["wake"][i]+w.steal["wake"][i] != w.total["wake"][i] {
			t.Errorf("round %d: wakeup %.0f + steal %.0f != %.0f", i, w.wakeup["wake"][i], w.steal["wake"][i], w.total["wake"][i])
		}
	}
	if len(s["wake"]) == 0 {
		t.Error("no clock samples")
	}
}

// A locked thread that blocks hands its P to another thread: one from
// the idle list while threads go back to it, a new one (a thread ID not
// listed before) once rounds end theirs. Broken if the probe classified
// by anything but the thread's ID, or if the locked goroutine's exit did
// not end its thread.
func TestHandoffProbe(t *testing.T) {
	if !supported {
		t.Skip("the probes run on Linux only")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const rounds = 20
	s := probeHandoff(rounds, false)
	if len(s["handoff_idle"]) < rounds/2 {
		t.Errorf("unlocking first: %d of %d hand-offs to an idle thread, want most", len(s["handoff_idle"]), rounds)
	}
	// How many threads sit idle decides how many rounds it takes to
	// end them all: up to ten times as many.
	s = samples{}
	for try := 0; try < 10 && len(s["handoff_new"]) == 0; try++ {
		s.merge(probeHandoff(rounds, true))
	}
	if len(s["handoff_new"]) == 0 {
		t.Errorf("exiting locked: no hand-off to a new thread in %d rounds (%d idle, %d threads now)", 10*rounds, len(s["handoff_idle"]), len(threads()))
	}
	for class, vs := range s {
		for _, v := range vs {
			if v <= 0 {
				t.Errorf("%s: interval %.0fns, want > 0", class, v)
			}
		}
	}
}

// The step calibration counts Starlark steps exactly: more for a longer
// statement, and the same each time.
func TestStarSteps(t *testing.T) {
	a, err := starSteps()
	if err != nil {
		t.Fatal(err)
	}
	b, err := starSteps()
	if err != nil {
		t.Fatal(err)
	}
	for k := range a {
		if a[k] != b[k] || a[k] < 2 {
			t.Errorf("%s: %v then %v steps per iteration, want the same, at least 2", stepKinds[k].star, a[k], b[k])
		}
	}
	// x = x + 1 is fewer steps than a[i % 8] = a[i % 8] + 1.
	if a[0] >= a[1] {
		t.Errorf("steps: x = x + 1 %v, a[i %% 8] = a[i %% 8] + 1 %v; want fewer for the first", a[0], a[1])
	}
	steps, _, err := measureSteps(1)
	if err != nil || len(steps) != len(stepKinds) {
		t.Fatalf("measureSteps(1) = %d samples, %v", len(steps), err)
	}
	// By kind, a step of x = x + 1 is far cheaper than one of a string
	// formatted (about 25ps against 3-5ns on the machines measured).
	kinds := stepKindMedians(steps, a)
	var format StepKind
	for k, sk := range stepKinds {
		if sk.kind == schedrt.StepFormat {
			format = kinds[k]
		}
	}
	if plain := kinds[0]; plain.MedianPs <= 0 || plain.MedianPs*4 >= format.MedianPs || plain.Steps != a[0] {
		t.Errorf("by kind: %+v and %+v; want the first's step a quarter of the last's or less, and its steps %v", plain, format, a[0])
	}
}

// The mark probe reads a sample per forced cycle, and each cycle's scan
// work covers the probe's live heap of pointers: broken if the heap were
// not kept alive, held no pointers (nothing to scan), or if the probe
// read the metrics before the cycle ended.
func TestGCMarkProbe(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const rounds = 5
	s := probeGCMark(rounds)
	if len(s["gcmark"]) != rounds {
		t.Fatalf("%d samples of %d cycles, want one a cycle", len(s["gcmark"]), rounds)
	}
	t.Logf("mark: median %.0f ns a MiB, %.0f bytes scanned a cycle", median(s["gcmark"]), median(s["gcscan"]))
	for i, scan := range s["gcscan"] {
		if scan < gcMarkBlocks*gcMarkBlock {
			t.Errorf("cycle %d scanned %.0f bytes, want at least the live heap's %d", i, scan, gcMarkBlocks*gcMarkBlock)
		}
		if rate := s["gcmark"][i]; rate < 1e3 || rate > 1e9 {
			t.Errorf("cycle %d: %.0f ns a MiB, want between 1µs and 1s", i, rate)
		}
	}
}

// The write probe times every round, and a line written to a pipe takes
// longer than a clock reading: broken if the probe timed nothing (a write
// of no bytes, or to a closed pipe, returns at once).
func TestWriteProbe(t *testing.T) {
	if !supported {
		t.Skip("the probes run on Linux only")
	}
	const rounds = 20
	s, err := probeWrite(rounds)
	if err != nil {
		t.Fatal(err)
	}
	if len(s["write"]) != rounds {
		t.Fatalf("%d samples of %d rounds", len(s["write"]), rounds)
	}
	if m, c := median(s["write"]), float64(clockCost()); m <= c {
		t.Errorf("a write took %.0fns at the median, no more than a clock reading (%.0fns)", m, c)
	}
	t.Logf("write: median %.0fns", median(s["write"]))
}

// stepKindMedians splits the samples, one per kind round after round, by
// kind, in picoseconds.
func TestStepKindMedians(t *testing.T) {
	n := len(stepKinds)
	var samples []float64
	for r := range 3 {
		for k := range n {
			samples = append(samples, float64(k+1)*0.001*float64(r+1)) // kind k: (k+1), 2(k+1), 3(k+1) ps
		}
	}
	per := make([]float64, n)
	for k := range per {
		per[k] = float64(10 + k)
	}
	got := stepKindMedians(samples, per)
	for k, sk := range got {
		want := StepKind{Statement: stepKinds[k].star, Steps: float64(10 + k), MedianPs: 2 * float64(k+1)}
		if sk.Statement != want.Statement || sk.Steps != want.Steps || math.Abs(sk.MedianPs-want.MedianPs) > 1e-9 {
			t.Errorf("kind %d: %+v, want %+v", k, sk, want)
		}
	}
	if got := stepKindMedians(nil, nil); got[0].MedianPs != 0 {
		t.Errorf("no samples: %+v, want medians of 0", got)
	}
}

// The sysmon sleep probe times every round, and a nanosleep of 20µs never
// returns early: broken if it timed nothing, or slept less than asked.
func TestSysmonSleepProbe(t *testing.T) {
	if !supported {
		t.Skip("the probes run on Linux only")
	}
	const rounds = 20
	s := probeSysmonSleep(rounds)
	if len(s["usleep"]) != rounds {
		t.Fatalf("%d samples of %d rounds", len(s["usleep"]), rounds)
	}
	if m := median(s["usleep"]); m < 0 {
		t.Errorf("a 20µs sleep returned %.0fns early at the median", -m)
	}
	t.Logf("sysmon_late: median %.0fns", median(s["usleep"]))
}
