// Package calibrate measures this machine's Go runtime and writes a costs
// profile: what each step of the scheduler takes, as a distribution, for
// schedlab's engine to charge in virtual time (`schedlab calibrate`,
// docs/runtime.md "Calibration").
//
// # How
//
// Each cost is measured by a probe (probes.go), a small Go program run
// inside this process: spawn-and-block, a ping-pong and two goroutines
// calling Gosched on one P, a goroutine readied while another P is idle
// (with and without every idle thread taken, for the cost of making one),
// short syscalls, and sleeps below and above a millisecond. Each probe
// runs twice, the same code both times: once under runtime/trace, read
// back with internal/realtrace (golang.org/x/exp/trace's parser and
// validator), where the events split what the probe does into the
// runtime's steps (analyze.go); and once without, where only the probe's
// own clock readings tell how long the whole of it took. The step cost is
// measured differently (step.go): Go's time per statement over Starlark's
// steps per statement.
//
// # Tracing perturbs what it measures
//
// Every trace event costs the thread that writes it tens of nanoseconds,
// and a traced thread wakes up later. So the trace gives each cost's shape
// and its share of a probe's interval, and the untraced run gives the
// level: each cost's samples are scaled by the ratio of the medians of the
// probe's own clock samples untraced and traced (the level factor, one per
// probe class, in the profile's notes and in the Report). Costs no clock
// can see alone (a steal pass) keep the traced level.
package calibrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	goruntime "runtime"
	"runtime/debug"
	"runtime/trace"
	"slices"
	"strings"
	"time"

	"github.com/schedlab/schedlab/internal/realtrace"
	"github.com/schedlab/schedlab/runtime"
)

// Options say how to calibrate.
type Options struct {
	Runs     int       // rounds of each probe (some probes do fewer, see rounds); at least 1
	Command  string    // the command line, for the profile
	Name     string    // the profile's name; "" is "default"
	Progress io.Writer // where to say what is being measured; nil for nowhere
}

// A Line is one cost of a Report.
type Line struct {
	Cost    runtime.CostKind
	N       int
	Method  string  // "clock": the untraced probe's own clock; "trace": the trace's events, scaled by Factor; "none": not measured, the default profile's kept
	Traced  int64   // the median of the cost as the trace shows it, before any scaling
	Clock   int64   // the median of the untraced probe's clock samples of the cost's class (0 if none)
	Factor  float64 // the level factor applied to the trace's samples (1 for none)
	Profile runtime.Dist
}

// A Report says how each cost of a profile was made.
type Report struct {
	Lines       []Line
	ClockCost   int64     // ns one clock reading adds
	StarSteps   []float64 // Starlark steps per statement, by step kind
	WakeSkipped map[string]int
	NewM        int     // newm probe rounds whose readied goroutine ran on a new thread
	StealMedian int64   // the median time from the woken P's start to its running the readied G (the runnext steal)
	Within100us float64 // the share of untraced wake-ups (ready to running on the other P) within 100µs
	// Within100usTraced is the same share in the traced run, by the
	// probe's clock: how much tracing slows the wake-up.
	Within100usTraced float64
	Elapsed           time.Duration
}

// rounds returns the rounds of probe name for runs.
func rounds(name string, runs int) int {
	switch name {
	case "timers":
		return max(runs/8, 2) // each round sleeps about 6ms
	case "newm":
		return max(runs/2, 4) // each round makes threads
	case "step":
		return max(runs/50, 2) // each round times every kind
	}
	return runs
}

// Run measures the costs and returns the profile and how it was made.
func Run(opts Options) (*runtime.Costs, *Report, error) {
	if !supported {
		return nil, nil, fmt.Errorf("calibrate runs on Linux only: the probes need thread IDs and /proc/self/task (this is %s)", goruntime.GOOS)
	}
	if opts.Runs < 1 {
		return nil, nil, fmt.Errorf("runs %d, want at least 1", opts.Runs)
	}
	if trace.IsEnabled() {
		return nil, nil, errors.New("runtime/trace is already on in this process; calibrate needs it for itself")
	}
	start := time.Now()
	progress := func(format string, args ...any) {
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "calibrate: "+format+"\n", args...)
		}
	}
	p := &runtime.Costs{
		Name:     opts.Name,
		Machine:  machine(goruntime.NumCPU()),
		Go:       goruntime.Version() + " " + goruntime.GOOS + "/" + goruntime.GOARCH,
		Command:  opts.Command,
		Recorded: start.UTC().Format("2006-01-02"),
		Load:     loadAverage(),
	}
	if p.Name == "" {
		p.Name = "default"
	}
	progress("%s, go %s, load %s", p.Machine, p.Go, p.Load)

	// The collector's work is not the scheduler's: keep it out.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	goruntime.GC()
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))

	rep := &Report{}
	rep.ClockCost = clockCost()
	clock := float64(rep.ClockCost)
	var notes []string
	add := func(l Line, samples []float64) error {
		if len(samples) == 0 {
			return fmt.Errorf("%s: no samples (the probe's trace has none of the events it needs)", l.Cost)
		}
		l.Profile = Quantiles(samples)
		if l.Cost == runtime.CostStep {
			// The profile counts whole ns and a step is a fraction
			// of one: rounded up, so that code takes time
			// (docs/runtime.md, "Calibration").
			l.Profile = stepQuantiles(samples)
		}
		l.N = l.Profile.N
		p.Dists[l.Cost] = l.Profile
		rep.Lines = append(rep.Lines, l)
		progress("  %-16s n=%-5d p50 %-8s (%s; traced %s, untraced clock %s, level x%.2f)",
			l.Cost, l.N, ns(l.Profile.Median()), l.Method, ns(l.Traced), ns(l.Clock), l.Factor)
		return nil
	}
	// keep puts the default profile's cost k in the profile, with n 0 to
	// say it was not measured: for the costs whose probes find samples
	// only sometimes (a short --runs), so that a profile still comes out.
	keep := func(k runtime.CostKind, why string) {
		d := runtime.DefaultCosts().Dists[k]
		d.N = 0
		p.Dists[k] = d
		rep.Lines = append(rep.Lines, Line{Cost: k, Method: "none", Factor: 1, Profile: d})
		progress("  %-16s n=0     not measured (%s): the default profile's kept", k, why)
		notes = append(notes, fmt.Sprintf("%s not measured (%s), the default profile's kept (n 0)", k, why))
	}
	// fromClock makes cost name from the untraced probe's own clock
	// samples less one reading: the probe's interval is the cost. The
	// trace's samples of the same interval are only reported, as a
	// check: their timestamps are too coarse for costs of tens of ns.
	fromClock := func(k runtime.CostKind, traced []float64, u samples, class string) error {
		if len(traced) == 0 {
			return fmt.Errorf("%s: the trace shows none of the intervals the probe makes", k)
		}
		cs := shift(u[class], clock)
		l := Line{Cost: k, Method: "clock", Traced: int64(median(traced)), Factor: 1}
		if len(cs) > 0 {
			l.Clock = int64(median(cs))
		}
		return add(l, cs)
	}
	// fromTrace makes cost name from the trace's samples, scaled by the
	// level factor of class.
	fromTrace := func(k runtime.CostKind, traced []float64, factor float64, u samples, class string) error {
		l := Line{Cost: k, Method: "trace", Factor: factor}
		if len(traced) > 0 {
			l.Traced = int64(median(traced))
		}
		if len(u[class]) > 0 {
			l.Clock = int64(median(u[class]))
		}
		return add(l, scale(traced, factor))
	}

	// twin runs a probe traced and untraced and returns the trace and
	// both runs' samples.
	twin := func(name string, procs int, f func(ctx context.Context, rounds int) samples) (*realtrace.Trace, samples, samples, error) {
		n := rounds(name, opts.Runs)
		progress("%s: %d rounds, GOMAXPROCS %d, traced then untraced", name, n, procs)
		goruntime.GOMAXPROCS(procs)
		var buf bytes.Buffer
		if err := trace.Start(&buf); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		traced := f(context.Background(), n)
		trace.Stop()
		untraced := f(context.Background(), n)
		tr, err := realtrace.Read(&buf)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return tr, traced, untraced, nil
	}
	// level is the ratio of the untraced to the traced clock samples of
	// class, less what the clock adds.
	level := func(t, u samples, class string, sub float64) float64 {
		if len(t[class]) == 0 || len(u[class]) == 0 {
			return 1
		}
		mt, mu := median(t[class])-sub, median(u[class])-sub
		if mt <= 0 || mu <= 0 {
			return 1
		}
		f := mu / mt
		notes = append(notes, fmt.Sprintf("%s x%.2f", class, f))
		return f
	}
	procs := max(goruntime.GOMAXPROCS(0), 2)
	var passes []float64

	// newproc
	var t samples
	tr, _, u, err := twin("spawn", procs, probeSpawn)
	if err != nil {
		return nil, nil, err
	}
	if err := fromClock(runtime.CostNewproc, shift(spawnGaps(tr), clock), u, "spawn"); err != nil {
		return nil, nil, err
	}
	passes = append(passes, stealPasses(tr)...)

	// switch and gosched, on one P
	tr, _, u, err = twin("switch", 1, probeSwitch)
	if err != nil {
		return nil, nil, err
	}
	if err := fromClock(runtime.CostSwitch, switchGaps(tr, "switch", realtrace.Waiting, ""), u, "switch"); err != nil {
		return nil, nil, err
	}
	tr, _, u, err = twin("gosched", 1, probeGosched)
	if err != nil {
		return nil, nil, err
	}
	if err := fromClock(runtime.CostGosched, switchGaps(tr, "gosched", realtrace.Runnable, "runtime.Gosched"), u, "gosched"); err != nil {
		return nil, nil, err
	}

	// wakeup
	tr, t, u, err = twin("wake", procs, probeWake)
	if err != nil {
		return nil, nil, err
	}
	w := analyzeWake(tr)
	rep.WakeSkipped = w.skip
	if len(w.steal["wake"]) > 0 {
		rep.StealMedian = int64(median(w.steal["wake"]))
	}
	rep.Within100us, rep.Within100usTraced = within(u["wake"], 100_000), within(t["wake"], 100_000)
	// The wake-up as the engine charges it: from the ready until the
	// woken thread holds the other P (GoUnblock → ProcStart), scaled to
	// the untraced level. What follows, until the readied goroutine
	// runs, is mostly the thief's sleep in runqgrab, runnext_sleep below.
	if len(w.wakeup["wake"]) == 0 {
		return nil, nil, errors.New("wakeup: the trace shows no wake-up of the other P")
	}
	if err := fromTrace(runtime.CostWakeup, w.wakeup["wake"], level(t, u, "wake", 0), u, "wake"); err != nil {
		return nil, nil, err
	}
	passes = append(passes, stealPasses(tr)...)

	// runnext_sleep: runqgrab's usleep(3), by the clock; the trace's
	// steal (ProcStart → GoStart of the woken P) checks it
	progress("usleep: %d rounds of runqgrab's usleep(3), by the clock", opts.Runs)
	us := probeUsleep(opts.Runs)
	var stealMedian int64
	if len(w.steal["wake"]) > 0 {
		stealMedian = int64(median(w.steal["wake"]))
	}
	if err := add(Line{Cost: runtime.CostRunnextSleep, Method: "clock", Traced: stealMedian, Clock: int64(median(us["usleep"])), Factor: 1},
		shift(us["usleep"], clock)); err != nil {
		return nil, nil, err
	}

	// stall, stall_every: what the OS takes from threads running code
	stallRun := int64(opts.Runs) * 200_000
	progress("stall: %d goroutines reading the clock for %s each, GOMAXPROCS %d", procs, ns(stallRun), procs)
	goruntime.GOMAXPROCS(procs)
	st := probeStalls(procs, stallRun)
	if len(st["stall"]) == 0 {
		keep(runtime.CostStall, "no thread lost its CPU")
		keep(runtime.CostStallEvery, "no thread lost its CPU")
	} else {
		if err := add(Line{Cost: runtime.CostStall, Method: "clock", Clock: int64(median(st["stall"])), Factor: 1}, st["stall"]); err != nil {
			return nil, nil, err
		}
		if err := add(Line{Cost: runtime.CostStallEvery, Method: "clock", Clock: int64(median(st["stall_every"])), Factor: 1}, st["stall_every"]); err != nil {
			return nil, nil, err
		}
	}

	// newm: what a new thread costs startm over an idle one, untraced.
	// Rounds that end their thread make new ones likely, not certain:
	// more rounds until there are samples, up to five times as many.
	n := rounds("newm", opts.Runs)
	progress("newm: %d rounds, GOMAXPROCS 1, a locked thread's hand-off to an idle thread, then to a new one", 2*n)
	goruntime.GOMAXPROCS(1)
	h := probeHandoff(n, false)
	for try := 0; try < 5 && len(h["handoff_new"]) < max(n/4, 1); try++ {
		h.merge(probeHandoff(n, true))
	}
	rep.NewM = len(h["handoff_new"])
	if len(h["handoff_idle"]) == 0 {
		return nil, nil, errors.New("newm: no hand-off found an idle thread")
	}
	idle := median(h["handoff_idle"])
	if len(h["handoff_new"]) == 0 {
		keep(runtime.CostNewm, fmt.Sprintf("no round of %d made a thread", len(h["handoff_idle"])))
	} else {
		if err := add(Line{Cost: runtime.CostNewm, Method: "clock", Clock: int64(median(h["handoff_new"])), Factor: 1},
			shift(h["handoff_new"], idle)); err != nil {
			return nil, nil, err
		}
		notes = append(notes, fmt.Sprintf("newm: a new thread's hand-off less an idle one's (%s median)", ns(int64(idle))))
	}

	// syscalls: the runtime's share of a call, untraced, split as the
	// trace splits it
	tr, _, u, err = twin("syscall", procs, probeSyscall)
	if err != nil {
		return nil, nil, err
	}
	enter, exit := syscallParts(tr, median(u["raw"]))
	if len(enter) == 0 || len(exit) == 0 {
		return nil, nil, errors.New("syscall: the trace shows no syscalls of the probe")
	}
	share := 0.5
	if me, mx := median(enter), median(exit); me+mx > 0 {
		share = max(me, 0) / (max(me, 0) + mx)
	}
	overhead := u["syscall"]
	if err := add(Line{Cost: runtime.CostSyscallEnter, Method: "clock", Traced: int64(median(enter)), Clock: int64(median(overhead)), Factor: share}, scale(overhead, share)); err != nil {
		return nil, nil, err
	}
	if err := add(Line{Cost: runtime.CostSyscallExit, Method: "clock", Traced: int64(median(exit)), Clock: int64(median(overhead)), Factor: 1 - share}, scale(overhead, 1-share)); err != nil {
		return nil, nil, err
	}
	notes = append(notes, fmt.Sprintf("syscall split %.0f%%/%.0f%% as traced", 100*share, 100*(1-share)))
	passes = append(passes, stealPasses(tr)...)

	// timers
	tr, t, u, err = twin("timers", procs, probeTimers)
	if err != nil {
		return nil, nil, err
	}
	lates, err := timerLates(tr, rounds("timers", opts.Runs))
	if err != nil {
		return nil, nil, err
	}
	if err := fromTrace(runtime.CostTimerLate, lates["timer_long"], level(t, u, "timer_long", 0), u, "timer_long"); err != nil {
		return nil, nil, err
	}
	if err := fromTrace(runtime.CostTimerLateShort, lates["timer_short"], level(t, u, "timer_short", 0), u, "timer_short"); err != nil {
		return nil, nil, err
	}
	passes = append(passes, stealPasses(tr)...)

	if len(passes) == 0 {
		keep(runtime.CostStealPass, "no P ran without running a goroutine")
	} else if err := fromTrace(runtime.CostStealPass, passes, 1, nil, ""); err != nil {
		return nil, nil, err
	}

	// gc_sweep_term, gc_mark_term: no probe yet; the default's are
	// gctrace's (runtime/costs_default.json, notes)
	keep(runtime.CostGCSweepTerm, "no probe: gctrace's pauses")
	keep(runtime.CostGCMarkTerm, "no probe: gctrace's pauses")

	// the step, with the collector on: allocating statements pay for it
	// in Go as they do in Starlark
	debug.SetGCPercent(100)
	progress("step: %d rounds of %d statement kinds, Go time over Starlark steps", rounds("step", opts.Runs), len(stepKinds))
	steps, per, err := measureSteps(rounds("step", opts.Runs))
	if err != nil {
		return nil, nil, err
	}
	rep.StarSteps = per
	if err := add(Line{Cost: runtime.CostStep, Method: "clock", Factor: 1}, steps); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(rep.Lines, func(a, b Line) int { return int(a.Cost) - int(b.Cost) })

	p.Notes = "newproc, switch, gosched, newm, syscall_enter/exit, runnext_sleep: the untraced probes' own clock; wakeup, timer_late(_short): " +
		"the trace's events, scaled to untraced by the ratio of the probes' clock medians (" + strings.Join(notes, ", ") + "); " +
		fmt.Sprintf("step: Go ns per statement over Starlark steps per statement, %d kinds, rounded up to whole ns; ", len(stepKinds)) +
		fmt.Sprintf("steal_pass: a quarter of a spinning M's findRunnable that found nothing (%d passes)", stealTries) + "\n"
	p.Notes = strings.TrimSpace(p.Notes)
	rep.Elapsed = time.Since(start)
	progress("done in %.1fs", rep.Elapsed.Seconds())
	return p, rep, nil
}

// within returns the share of xs below d (0 for none).
func within(xs []float64, d float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	n := 0
	for _, x := range xs {
		if x < d {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

// ns formats a duration in ns for a person.
func ns(d int64) string {
	switch {
	case d >= 1_000_000:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	case d >= 10_000:
		return fmt.Sprintf("%.1fµs", float64(d)/1e3)
	}
	return fmt.Sprintf("%dns", d)
}
