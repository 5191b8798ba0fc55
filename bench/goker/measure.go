package main

import (
	"fmt"
	"os"
	"time"

	"github.com/schedlab/schedlab/internal/check"
	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/explore/scriptrun"
	"github.com/schedlab/schedlab/lang"
)

// Config is what the benchmark measures, from the command's flags.
type Config struct {
	Dir          string
	Filter       string
	Short        bool
	Instances    int
	MaxBound     int
	MaxSchedules int
	FixedBound   int
	FixedTimeout time.Duration
	Runs         int
	ExploreProcs int
	// CheckTimeout and ExploreTimeout bound the wall-clock time of a
	// kernel's check walks (all bounds) and of each explore sweep.
	CheckTimeout   time.Duration
	ExploreTimeout time.Duration
	// Reduction is the check walks' (-reduction): none, the naive walk,
	// or dpor.
	Reduction check.Reduction
}

// A Kernel is one ported GoKer kernel and its fixed version.
type Kernel struct {
	Name  string // the Go file's name without .go: cockroach10214
	Kind  string // channel, mutex, waitgroup, cond or mixed
	Path  string
	Fixed string // the fixed version's path, "" if there is none
	// Check and FixedCheck are the `# schedlab check:` directives of the
	// kernel and of its fixed version: the search each needs.
	Check, FixedCheck cli.CheckDirectives
}

// A Row is what the benchmark measured of one kernel.
type Row struct {
	Kernel Kernel

	// CheckFlags are the flags of `schedlab check` that the kernel's
	// walks had: --reduction=dpor with -dpor or the kernel's directive,
	// --stalls=on with its directive.
	CheckFlags []string

	CheckFound     bool
	CheckOutcome   string // the first failure's outcome: leak, deadlock, ...
	CheckBound     int    // the lowest bound at which check found it
	CheckSchedules int    // schedules run, over the bounds from 0, to the first failure (or in all)
	CheckTime      time.Duration
	CheckTimedOut  bool // the walks stopped at their wall-clock budget

	Random, PCT ExploreResult

	HasFixed       bool
	FixedVerdict   string // clean, incomplete, or the outcome of a failing schedule
	FixedSchedules int
	FixedTime      time.Duration
}

// An ExploreResult is how many of explore's runs it took to fail.
type ExploreResult struct {
	First   int    // the run (from 1, seed = run) that first failed; 0 if none did
	Outcome string // its outcome
	Runs    int    // the runs done
	// TimedOut says that the sweep stopped at its wall-clock budget.
	TimedOut bool
}

// script is a compiled kernel and the options of its runs.
type script struct {
	prog *lang.Program
	opts lang.Options
}

// load compiles the script at path and returns it with the options of
// `schedlab run --param instances=N extra... path`.
func load(cfg Config, path string, extra ...string) (*script, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	args := append([]string{fmt.Sprintf("--param=instances=%d", cfg.Instances)}, extra...)
	s, err := cli.ScriptSettings(path, src, args)
	if err != nil {
		return nil, err
	}
	s.MaxMemory = 0 // the runs share this process
	prog, err := lang.Compile(path, src, lang.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s", lang.FormatCompileError(err))
	}
	return &script{prog: prog, opts: s.Options(nil, nil)}, nil
}

// Measure runs kernel k under check and explore, and proves its fixed
// version.
func Measure(cfg Config, k Kernel) (Row, error) {
	row := Row{Kernel: k}
	reduction, runFlags, flags := search(cfg, k.Check)
	row.CheckFlags = flags
	sc, err := load(cfg, k.Path, runFlags...)
	if err != nil {
		return row, err
	}
	start := time.Now()
	stop, cancel := deadline(cfg.CheckTimeout)
	for bound := 0; bound <= cfg.MaxBound; bound++ {
		most := 0 // the most preemptions of a schedule of this walk
		v, err := check.Walk(check.Config{Program: sc.prog, Options: sc.opts, Bound: bound, MaxSchedules: cfg.MaxSchedules, StopAtFailure: true, Stop: stop, Reduction: reduction}, func(r *check.Run) bool {
			most = max(most, r.Preemptions())
			return true
		})
		if err != nil {
			return row, err
		}
		row.CheckSchedules += v.Schedules
		if v.Failure != nil {
			row.CheckFound, row.CheckBound, row.CheckOutcome = true, bound, string(v.Failure.Result.Outcome)
			break
		}
		if v.Interrupted || v.HostLimit != "" {
			row.CheckTimedOut = true
			break
		}
		if v.Complete && most < bound {
			break // the bound was not reached: higher bounds walk the same schedules
		}
	}
	row.CheckTime = time.Since(start)
	cancel()

	for _, p := range []struct {
		mode string
		res  *ExploreResult
	}{{"timing", &row.Random}, {"pct", &row.PCT}} {
		sc, err := load(cfg, k.Path, "--perturb="+p.mode, fmt.Sprintf("--procs=%d", cfg.ExploreProcs), "--timeout=10s")
		if err != nil {
			return row, err
		}
		*p.res = exploreUntilFailure(sc, cfg.Runs, cfg.ExploreTimeout)
	}

	if k.Fixed == "" {
		return row, nil
	}
	row.HasFixed = true
	reduction, runFlags, _ = search(cfg, k.FixedCheck)
	fx, err := load(cfg, k.Fixed, runFlags...)
	if err != nil {
		return row, err
	}
	stop, cancel = deadline(cfg.FixedTimeout)
	start = time.Now()
	v, err := check.Walk(check.Config{Program: fx.prog, Options: fx.opts, Bound: cfg.FixedBound, StopAtFailure: true, Stop: stop, Reduction: reduction}, nil)
	row.FixedTime = time.Since(start)
	cancel()
	if err != nil {
		return row, err
	}
	row.FixedSchedules = v.Schedules
	switch {
	case v.Failure != nil:
		row.FixedVerdict = string(v.Failure.Result.Outcome)
	case v.Complete:
		row.FixedVerdict = "clean"
	default:
		row.FixedVerdict = "incomplete"
	}
	return row, nil
}

// search returns how check is to walk a script with the directives d:
// its reduction, the run flags of its runs, and the flags of `schedlab
// check` that say both. The directive's --reduction wins over -dpor;
// --stalls=on walks naively, as check refuses it with DPOR.
func search(cfg Config, d cli.CheckDirectives) (check.Reduction, []string, []string) {
	reduction := cfg.Reduction
	switch d.Reduction {
	case "dpor":
		reduction = check.DPOR
	case "none":
		reduction = check.NoReduction
	}
	var run, flags []string
	if d.Stalls == "on" {
		run = append(run, "--stalls=on")
		flags = append(flags, "--stalls=on")
		reduction = check.NoReduction
	}
	if reduction == check.DPOR {
		flags = append([]string{"--reduction=dpor"}, flags...)
	}
	return reduction, run, flags
}

// deadline returns a channel closed after d (never when d is 0), and the
// function that stops its timer.
func deadline(d time.Duration) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	if d <= 0 {
		return ch, func() {}
	}
	t := time.AfterFunc(d, func() { close(ch) })
	return ch, func() { t.Stop() }
}

// exploreUntilFailure runs sc with seeds 1 to runs, as `schedlab explore
// --fail-fast` does on one core, and reports the first failing run. It
// stops early, failing nothing, after timeout of wall-clock time, or when
// a run reaches its own wall-clock limit (sc's --timeout).
func exploreUntilFailure(sc *script, runs int, timeout time.Duration) ExploreResult {
	job := scriptrun.New(sc.prog)
	start := time.Now()
	for seed := 1; seed <= runs; seed++ {
		if timeout > 0 && time.Since(start) > timeout {
			return ExploreResult{Runs: seed - 1, TimedOut: true}
		}
		opts := sc.opts
		opts.Seed = uint64(seed)
		res, lres := job.Run(opts)
		if lres.HostLimit != nil {
			// The run's own wall-clock limit: not the schedule's outcome.
			return ExploreResult{Runs: seed - 1, TimedOut: true}
		}
		if res.Outcome.Failure() {
			return ExploreResult{First: seed, Outcome: string(res.Outcome), Runs: seed}
		}
	}
	return ExploreResult{Runs: runs}
}
