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
// short syscalls, sleeps below and above a millisecond, forced GC cycles
// of a heap of pointers (read from runtime/metrics, untraced) and writes
// of a short line to a pipe. Each probe
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
	// StartupOnly measures only a young program's start-up (startup.go:
	// init_runtime, init_packages, init_after, malg_rank, sema_first) and
	// returns the shipped default profile with them in place of its own.
	StartupOnly bool
}

// A Line is one cost of a Report.
type Line struct {
	Cost    runtime.CostKind
	N       int
	Method  string  // "clock": the untraced probe's own clock; "trace": the trace's events, scaled by Factor; "metrics": the runtime's own account (runtime/metrics); "inittrace": GODEBUG=inittrace=1 of a fresh process (startup.go); "none": not measured, the default profile's kept
	Traced  int64   // the median of the cost as the trace shows it, before any scaling
	Clock   int64   // the median of the untraced probe's clock samples of the cost's class (0 if none)
	Factor  float64 // the level factor applied to the trace's samples (1 for none)
	Profile runtime.Dist
}

// A Report says how each cost of a profile was made.
type Report struct {
	Lines     []Line
	ClockCost int64     // ns one clock reading adds
	StarSteps []float64 // Starlark steps per statement, by step kind
	// StepKinds is, for each kind of statement the step is calibrated
	// by, its Starlark steps and the median ps of a step: the kinds that
	// step and step_ps pool into one distribution.
	StepKinds   []StepKind
	WakeSkipped map[string]int
	NewM        int     // newm probe rounds whose readied goroutine ran on a new thread
	StealNapped int     // fruitless P runs left out of steal_pass: they slept in runqgrab (withoutNaps)
	StealMedian int64   // the median time from the woken P's start to its running the readied G (the runnext steal)
	Within100us float64 // the share of untraced wake-ups (ready to running on the other P) within 100µs
	// Within100usTraced is the same share in the traced run, by the
	// probe's clock: how much tracing slows the wake-up.
	Within100usTraced float64
	// MalgRank is main.main's go statements' times by rank in a fresh
	// process (startup.go), the profile's malg_rank.
	MalgRank []runtime.Dist
	Elapsed  time.Duration
	// StartupOnly says the Run measured only the start-up
	// (Options.StartupOnly): every other cost is the default profile's.
	StartupOnly bool
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
	case "gcmark":
		return max(runs/20, 3) // each round is a forced GC cycle of a 4 MiB heap
	case "fastpath":
		return max(runs/50, 2) // each round times every operation 20,000 times
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
	c := newCalibration(opts)
	c.progress("%s, go %s, load %s", c.p.Machine, c.p.Go, c.p.Load)
	if opts.StartupOnly {
		return c.startupOnly()
	}

	// The collector's work is not the scheduler's: keep it out.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	goruntime.GC()
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))

	c.rep.ClockCost = clockCost()
	c.clock = float64(c.rep.ClockCost)
	for _, step := range []func() error{
		c.newproc,
		c.switches,
		c.wakeup,
		c.stalls,
		c.newm,
		c.syscalls,
		c.timers,
		c.stealPass,
		c.gcPauses,
		c.gcMark,
		c.write,
		c.sysmonLate,
		c.step,
		c.fastPaths,
		c.startup,
	} {
		if err := step(); err != nil {
			return nil, nil, err
		}
	}
	slices.SortFunc(c.rep.Lines, func(a, b Line) int { return int(a.Cost) - int(b.Cost) })
	c.p.Notes = "newproc, switch, gosched, newm, syscall_enter/exit, runnext_sleep: the untraced probes' own clock; wakeup, timer_late(_short): " +
		"the trace's events, scaled to untraced by the ratio of the probes' clock medians (" + strings.Join(c.notes, ", ") + "); " +
		fmt.Sprintf("step: Go ns per statement over Starlark steps per statement, %d kinds, rounded up to whole ns; ", len(stepKinds)) +
		fmt.Sprintf("steal_pass: a quarter of a spinning M's findRunnable that found nothing (%d passes), less those as long as runqgrab's shortest usleep(3), which slept in it (runnext_sleep); ", stealTries) +
		fmt.Sprintf("gc_mark_mib: runtime/metrics' mark CPU (assist, dedicated, fractional, idle) over the cycle's scan work, forced cycles of a %d MiB heap of pointer blocks at GOMAXPROCS 1; ", gcMarkBlock*gcMarkBlocks>>20) +
		fmt.Sprintf("write: a raw write(2) of a %d-byte line to a pipe, by the probe's clock over %d lines; ", len(writeLine), writeBatch) +
		"sysmon_late: how late a raw nanosleep(20us), sysmon's usleep(20), returns while another goroutine spins; " +
		fmt.Sprintf("chan_op, sync_op: Go loops of %d operations of each kind alone, by the monotonic clock (fastpath.go); ", len(fastPathOps)) +
		startupNotes(c.opts.Runs) + "\n"
	c.p.Notes = strings.TrimSpace(c.p.Notes)
	c.rep.Elapsed = time.Since(c.start)
	c.progress("done in %.1fs", c.rep.Elapsed.Seconds())
	return c.p, c.rep, nil
}

// A calibration is one Run: the profile and the report it fills in, step
// by step, and what the steps share.
type calibration struct {
	opts   Options
	start  time.Time
	p      *runtime.Costs
	rep    *Report
	clock  float64   // ns one clock reading adds (Report.ClockCost)
	procs  int       // GOMAXPROCS of the probes that want every P, at least 2
	notes  []string  // how costs were made, for the profile's notes
	passes []float64 // steal passes, gathered from every probe's trace
	napMin float64   // the shortest usleep(3) of runqgrab measured (wakeup), 0 before
}

// newCalibration starts a Run: the profile's header, from this machine.
func newCalibration(opts Options) *calibration {
	start := time.Now()
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
	return &calibration{opts: opts, start: start, p: p, rep: &Report{}, procs: max(goruntime.GOMAXPROCS(0), 2)}
}

// progress says what is being measured, on Options.Progress.
func (c *calibration) progress(format string, args ...any) {
	if c.opts.Progress != nil {
		fmt.Fprintf(c.opts.Progress, "calibrate: "+format+"\n", args...)
	}
}

// add puts cost l.Cost in the profile, as the distribution of samples,
// and l in the report.
func (c *calibration) add(l Line, samples []float64) error {
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
	c.p.Dists[l.Cost] = l.Profile
	c.rep.Lines = append(c.rep.Lines, l)
	p50 := ns(l.Profile.Median())
	if psCost(l.Cost) {
		p50 = fmt.Sprintf("%dps", l.Profile.Median())
	}
	c.progress("  %-16s n=%-5d p50 %-8s (%s; traced %s, untraced clock %s, level x%.2f)",
		l.Cost, l.N, p50, l.Method, ns(l.Traced), ns(l.Clock), l.Factor)
	return nil
}

// keep puts the default profile's cost k in the profile, with n 0 to
// say it was not measured: for the costs whose probes find samples
// only sometimes (a short --runs), so that a profile still comes out.
func (c *calibration) keep(k runtime.CostKind, why string) {
	d := runtime.DefaultCosts().Dists[k]
	d.N = 0
	c.p.Dists[k] = d
	c.rep.Lines = append(c.rep.Lines, Line{Cost: k, Method: "none", Factor: 1, Profile: d})
	c.progress("  %-16s n=0     not measured (%s): the default profile's kept", k, why)
	c.notes = append(c.notes, fmt.Sprintf("%s not measured (%s), the default profile's kept (n 0)", k, why))
}

// fromClock makes cost k from the untraced probe's own clock samples of
// class less one reading: the probe's interval is the cost. The trace's
// samples of the same interval are only reported, as a check: their
// timestamps are too coarse for costs of tens of ns.
func (c *calibration) fromClock(k runtime.CostKind, traced []float64, u samples, class string) error {
	if len(traced) == 0 {
		return fmt.Errorf("%s: the trace shows none of the intervals the probe makes", k)
	}
	cs := shift(u[class], c.clock)
	l := Line{Cost: k, Method: "clock", Traced: int64(median(traced)), Factor: 1}
	if len(cs) > 0 {
		l.Clock = int64(median(cs))
	}
	return c.add(l, cs)
}

// fromTrace makes cost k from the trace's samples, scaled by the level
// factor of class.
func (c *calibration) fromTrace(k runtime.CostKind, traced []float64, factor float64, u samples, class string) error {
	l := Line{Cost: k, Method: "trace", Factor: factor}
	if len(traced) > 0 {
		l.Traced = int64(median(traced))
	}
	if len(u[class]) > 0 {
		l.Clock = int64(median(u[class]))
	}
	return c.add(l, scale(traced, factor))
}

// twin runs a probe traced and untraced and returns the trace and both
// runs' samples.
func (c *calibration) twin(name string, procs int, f func(ctx context.Context, rounds int) samples) (*realtrace.Trace, samples, samples, error) {
	n := rounds(name, c.opts.Runs)
	c.progress("%s: %d rounds, GOMAXPROCS %d, traced then untraced", name, n, procs)
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
// class, less what the clock adds; it notes the factor.
func (c *calibration) level(t, u samples, class string, sub float64) float64 {
	if len(t[class]) == 0 || len(u[class]) == 0 {
		return 1
	}
	mt, mu := median(t[class])-sub, median(u[class])-sub
	if mt <= 0 || mu <= 0 {
		return 1
	}
	f := mu / mt
	c.notes = append(c.notes, fmt.Sprintf("%s x%.2f", class, f))
	return f
}

// newproc measures a spawn, by the untraced probe's clock.
func (c *calibration) newproc() error {
	tr, _, u, err := c.twin("spawn", c.procs, probeSpawn)
	if err != nil {
		return err
	}
	if err := c.fromClock(runtime.CostNewproc, shift(spawnGaps(tr), c.clock), u, "spawn"); err != nil {
		return err
	}
	c.passes = append(c.passes, stealPasses(tr)...)
	return nil
}

// switches measures a switch and a gosched, on one P.
func (c *calibration) switches() error {
	tr, _, u, err := c.twin("switch", 1, probeSwitch)
	if err != nil {
		return err
	}
	if err := c.fromClock(runtime.CostSwitch, switchGaps(tr, "switch", realtrace.Waiting, ""), u, "switch"); err != nil {
		return err
	}
	tr, _, u, err = c.twin("gosched", 1, probeGosched)
	if err != nil {
		return err
	}
	return c.fromClock(runtime.CostGosched, switchGaps(tr, "gosched", realtrace.Runnable, "runtime.Gosched"), u, "gosched")
}

// wakeup measures the wake-up of an idle P, from the trace at the
// untraced level, and runnext_sleep, runqgrab's usleep(3), by the clock
// (the trace's steal, ProcStart → GoStart of the woken P, checks it).
func (c *calibration) wakeup() error {
	tr, t, u, err := c.twin("wake", c.procs, probeWake)
	if err != nil {
		return err
	}
	w := analyzeWake(tr)
	c.rep.WakeSkipped = w.skip
	if len(w.steal["wake"]) > 0 {
		c.rep.StealMedian = int64(median(w.steal["wake"]))
	}
	c.rep.Within100us, c.rep.Within100usTraced = within(u["wake"], 100_000), within(t["wake"], 100_000)
	// The wake-up as the engine charges it: from the ready until the
	// woken thread holds the other P (GoUnblock → ProcStart), scaled to
	// the untraced level. What follows, until the readied goroutine
	// runs, is mostly the thief's sleep in runqgrab, runnext_sleep below.
	if len(w.wakeup["wake"]) == 0 {
		return errors.New("wakeup: the trace shows no wake-up of the other P")
	}
	if err := c.fromTrace(runtime.CostWakeup, w.wakeup["wake"], c.level(t, u, "wake", 0), u, "wake"); err != nil {
		return err
	}
	c.passes = append(c.passes, stealPasses(tr)...)

	c.progress("usleep: %d rounds of runqgrab's usleep(3), by the clock", c.opts.Runs)
	us := probeUsleep(c.opts.Runs)
	if naps := shift(us["usleep"], c.clock); len(naps) > 0 {
		c.napMin = slices.Min(naps)
	}
	var stealMedian int64
	if len(w.steal["wake"]) > 0 {
		stealMedian = int64(median(w.steal["wake"]))
	}
	return c.add(Line{Cost: runtime.CostRunnextSleep, Method: "clock", Traced: stealMedian, Clock: int64(median(us["usleep"])), Factor: 1},
		shift(us["usleep"], c.clock))
}

// stalls measures stall and stall_every: what the OS takes from threads
// running code.
func (c *calibration) stalls() error {
	stallRun := int64(c.opts.Runs) * 200_000
	c.progress("stall: %d goroutines reading the clock for %s each, GOMAXPROCS %d", c.procs, ns(stallRun), c.procs)
	goruntime.GOMAXPROCS(c.procs)
	st := probeStalls(c.procs, stallRun)
	if len(st["stall"]) == 0 {
		c.keep(runtime.CostStall, "no thread lost its CPU")
		c.keep(runtime.CostStallEvery, "no thread lost its CPU")
		return nil
	}
	if err := c.add(Line{Cost: runtime.CostStall, Method: "clock", Clock: int64(median(st["stall"])), Factor: 1}, st["stall"]); err != nil {
		return err
	}
	return c.add(Line{Cost: runtime.CostStallEvery, Method: "clock", Clock: int64(median(st["stall_every"])), Factor: 1}, st["stall_every"])
}

// newm measures what a new thread costs startm over an idle one,
// untraced. Rounds that end their thread make new ones likely, not
// certain: more rounds until there are samples, up to five times as many.
func (c *calibration) newm() error {
	n := rounds("newm", c.opts.Runs)
	c.progress("newm: %d rounds, GOMAXPROCS 1, a locked thread's hand-off to an idle thread, then to a new one", 2*n)
	goruntime.GOMAXPROCS(1)
	h := probeHandoff(n, false)
	for try := 0; try < 5 && len(h["handoff_new"]) < max(n/4, 1); try++ {
		h.merge(probeHandoff(n, true))
	}
	c.rep.NewM = len(h["handoff_new"])
	if len(h["handoff_idle"]) == 0 {
		return errors.New("newm: no hand-off found an idle thread")
	}
	idle := median(h["handoff_idle"])
	if len(h["handoff_new"]) == 0 {
		c.keep(runtime.CostNewm, fmt.Sprintf("no round of %d made a thread", len(h["handoff_idle"])))
		return nil
	}
	if err := c.add(Line{Cost: runtime.CostNewm, Method: "clock", Clock: int64(median(h["handoff_new"])), Factor: 1},
		shift(h["handoff_new"], idle)); err != nil {
		return err
	}
	c.notes = append(c.notes, fmt.Sprintf("newm: a new thread's hand-off less an idle one's (%s median)", ns(int64(idle))))
	return nil
}

// syscalls measures the runtime's share of a syscall, untraced, split
// into entering and leaving as the trace splits it.
func (c *calibration) syscalls() error {
	tr, _, u, err := c.twin("syscall", c.procs, probeSyscall)
	if err != nil {
		return err
	}
	enter, exit := syscallParts(tr, median(u["raw"]))
	if len(enter) == 0 || len(exit) == 0 {
		return errors.New("syscall: the trace shows no syscalls of the probe")
	}
	share := 0.5
	if me, mx := median(enter), median(exit); me+mx > 0 {
		share = max(me, 0) / (max(me, 0) + mx)
	}
	overhead := u["syscall"]
	if err := c.add(Line{Cost: runtime.CostSyscallEnter, Method: "clock", Traced: int64(median(enter)), Clock: int64(median(overhead)), Factor: share}, scale(overhead, share)); err != nil {
		return err
	}
	if err := c.add(Line{Cost: runtime.CostSyscallExit, Method: "clock", Traced: int64(median(exit)), Clock: int64(median(overhead)), Factor: 1 - share}, scale(overhead, 1-share)); err != nil {
		return err
	}
	c.notes = append(c.notes, fmt.Sprintf("syscall split %.0f%%/%.0f%% as traced", 100*share, 100*(1-share)))
	c.passes = append(c.passes, stealPasses(tr)...)
	return nil
}

// timers measures how late timers fire, above and below a millisecond,
// from the trace at the untraced level.
func (c *calibration) timers() error {
	tr, t, u, err := c.twin("timers", c.procs, probeTimers)
	if err != nil {
		return err
	}
	lates, err := timerLates(tr, rounds("timers", c.opts.Runs))
	if err != nil {
		return err
	}
	if err := c.fromTrace(runtime.CostTimerLate, lates["timer_long"], c.level(t, u, "timer_long", 0), u, "timer_long"); err != nil {
		return err
	}
	if err := c.fromTrace(runtime.CostTimerLateShort, lates["timer_short"], c.level(t, u, "timer_short", 0), u, "timer_short"); err != nil {
		return err
	}
	c.passes = append(c.passes, stealPasses(tr)...)
	return nil
}

// stealPass makes steal_pass from the steal passes every probe's trace
// showed, less those of the fruitless runs that slept in runqgrab
// (withoutNaps).
func (c *calibration) stealPass() error {
	passes := withoutNaps(c.passes, c.napMin)
	c.rep.StealNapped = len(c.passes) - len(passes)
	if len(passes) == 0 {
		c.keep(runtime.CostStealPass, "no P ran without running a goroutine, but for runqgrab's naps")
		return nil
	}
	return c.fromTrace(runtime.CostStealPass, passes, 1, nil, "")
}

// withoutNaps returns the steal passes of the fruitless runs shorter than
// napMin, the shortest usleep(3) measured. A spinning M that found a
// running P's runnext sleeps in runqgrab before it takes it, and finds
// nothing when the P ran it meanwhile: that run of its P lasts a nap and
// its passes, a quarter of it about 20µs on a host whose usleep(3) takes
// 75µs, where a pass over two Ps takes 100-200ns. The engine charges the
// nap as its own cost (runnext_sleep, stealFrom), so a pass must not
// carry it too. A napMin of 0 (no naps measured) keeps every pass.
func withoutNaps(passes []float64, napMin float64) []float64 {
	if napMin <= 0 {
		return passes
	}
	var out []float64
	for _, p := range passes {
		if p*stealTries < napMin {
			out = append(out, p)
		}
	}
	return out
}

// gcPauses keeps gc_sweep_term and gc_mark_term: no probe yet; the
// default's are gctrace's (runtime/costs_default.json, notes).
func (c *calibration) gcPauses() error {
	c.keep(runtime.CostGCSweepTerm, "no probe: gctrace's pauses")
	c.keep(runtime.CostGCMarkTerm, "no probe: gctrace's pauses")
	return nil
}

// gcMark measures gc_mark_mib, a mark worker's time to scan 1 MiB, on
// one P: the runtime's own account of its mark CPU over the bytes it
// scanned (probeGCMark).
func (c *calibration) gcMark() error {
	n := rounds("gcmark", c.opts.Runs)
	c.progress("gcmark: %d forced cycles of a %d MiB heap of pointers, GOMAXPROCS 1", n, gcMarkBlock*gcMarkBlocks>>20)
	goruntime.GOMAXPROCS(1)
	s := probeGCMark(n)
	if len(s["gcmark"]) == 0 {
		c.keep(runtime.CostGCMarkMiB, "no cycle reported mark CPU")
		return nil
	}
	return c.add(Line{Cost: runtime.CostGCMarkMiB, Method: "metrics", Clock: int64(median(s["gcmark"])), Factor: 1}, s["gcmark"])
}

// write measures write, the kernel's part of a printed line's write(2),
// by the probe's own clock (probeWrite).
func (c *calibration) write() error {
	n := c.opts.Runs
	c.progress("write: %d rounds of %d lines written to a pipe, raw", n, writeBatch)
	s, err := probeWrite(n)
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.add(Line{Cost: runtime.CostWrite, Method: "clock", Clock: int64(median(s["write"])), Factor: 1}, s["write"])
}

// sysmonLate measures sysmon_late, how late sysmon's usleep(20) returns,
// by the probe's own clock (probeSysmonSleep), at GOMAXPROCS 2 or more so
// that a goroutine spins meanwhile.
func (c *calibration) sysmonLate() error {
	n := c.opts.Runs
	c.progress("sysmon_late: %d sleeps of 20µs, raw, beside a spinning goroutine", n)
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(c.procs))
	s := probeSysmonSleep(n)
	return c.add(Line{Cost: runtime.CostSysmonLate, Method: "clock", Clock: int64(median(s["usleep"])), Factor: 1}, s["usleep"])
}

// step measures a Starlark step, with the collector on: allocating
// statements pay for it in Go as they do in Starlark.
func (c *calibration) step() error {
	debug.SetGCPercent(100)
	c.progress("step: %d rounds of %d statement kinds, Go time over Starlark steps", rounds("step", c.opts.Runs), len(stepKinds))
	steps, per, err := measureSteps(rounds("step", c.opts.Runs))
	if err != nil {
		return err
	}
	c.rep.StarSteps = per
	c.rep.StepKinds = stepKindMedians(steps, per)
	if err := c.add(Line{Cost: runtime.CostStep, Method: "clock", Factor: 1}, steps); err != nil {
		return err
	}
	// The same samples in picoseconds, which keep the fraction of a ns
	// that step's whole ns round up.
	ps := make([]float64, len(steps))
	for i, v := range steps {
		ps[i] = v * 1000
	}
	if err := c.add(Line{Cost: runtime.CostStepPs, Method: "clock", Factor: 1}, ps); err != nil {
		return err
	}
	// And each kind's own, for a step charged by its kind
	// (runtime.StepKind, lang's stepkind.go): the samples come one per
	// kind, round after round.
	for k, sk := range stepKinds {
		if err := c.add(Line{Cost: sk.kind.Cost(), Method: "clock", Factor: 1}, kindSamples(ps, k)); err != nil {
			return err
		}
	}
	return nil
}

// fastPaths measures chan_op and sync_op: Go loops of the operations
// that do not park (fastpath.go).
func (c *calibration) fastPaths() error {
	n := rounds("fastpath", c.opts.Runs)
	c.progress("fastpath: %d rounds of %d operations that do not park", n, len(fastPathOps))
	s := measureFastPaths(n)
	for _, k := range []runtime.CostKind{runtime.CostChanOp, runtime.CostSyncOp} {
		if err := c.add(Line{Cost: k, Method: "clock", Clock: int64(median(s[k])), Factor: 1}, s[k]); err != nil {
			return err
		}
	}
	return nil
}

// psCost reports whether cost k is in picoseconds, not ns: step_ps and
// the kinds' steps.
func psCost(k runtime.CostKind) bool {
	return k == runtime.CostStepPs || slices.ContainsFunc(stepKinds, func(sk stepKind) bool { return sk.kind.Cost() == k })
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
