package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/explore"
	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

const exploreSynopsis = "schedlab explore [flags] script.star\n       schedlab explore merge [--json] report.json..."

const exploreHelpText = `Explore runs a script under many seeds and proc counts, on every core, and
sorts the runs into classes by how they ended: the outcome, its message
and a hash of what the program printed. For each class it prints how many
runs fell in it, the first seed that produced it and the exact command
that replays that run; it replays the first run of every failing class
itself and checks that the replay prints the same bytes.

Run i of the sweep (from 0) has seed --seed-start+i and the i-th proc
count of --procs, taken in turn. Each run is the run 'schedlab run --seed
S --procs P --perturb=X script.star' would do, with the script's own
'# schedlab:' directives, in an engine of its own. The result does not
depend on --jobs.

What varies from seed to seed, besides the scheduler's own random choices
(steal order, select), is set by --perturb:

	none     nothing more
	timing   durations of work, sleep and syscall scaled by 0.75-1.25,
	         up to 50µs more thread wake-up latency, and a 5% chance of
	         preemption at each safe point (a builtin call or the start of
	         work): schedules Go itself can produce (the default)
	runnext  a G meant for runnext goes to the tail of the run queue half
	         the time, as under the race detector's randomizeScheduler:
	         beyond what a race-free Go build does
	pct      3 PCT change points among the first 200 safe points
	         (Burckhardt et al., ASPLOS 2010): a G preempted where Go's
	         sysmon would not preempt it
	all      timing, runnext and pct together

Outcomes: assert (a failed assert), panic, fatal (a fatal error other
than a deadlock), deadlock, leak (goroutines the leak check marked
leaked), limit (a limit or a wedged P), error (the script does not load,
or schedlab failed), left (main returned with goroutines still alive) and
ok. All but left and ok are failures.

Each run has limits so that one bad schedule cannot hang the sweep:
--max-steps and --timeout default to 10000000 and 10s unless the script's
directives set them. A replay command carries them only for a limit.

--shard k/n does part k (from 0) of n of the sweep: runs
[k*runs/n, (k+1)*runs/n). Write each shard's report with --json and
combine them with 'schedlab explore merge': the result is the report of
the whole sweep, as if it had run in one process. docs/explore.md shows
how to spread shards with GNU parallel, a Kubernetes indexed Job or a
Slurm array.

A progress bar is drawn on stderr when stderr is a terminal. --json
writes the report as JSON instead of the table.

Exit status: 0 when no run failed, 1 when some class is a failure (or a
replay check failed), 2 for a bad flag or a script that cannot be read or
loaded.`

// Explore's own defaults for the limits of each run.
const (
	exploreMaxSteps = 10_000_000
	exploreTimeout  = 10 * time.Second
	explorePerturb  = "timing"
)

// exploreRunFlags are the flags of `schedlab run` that explore passes on
// to every run.
var exploreRunFlags = []string{"preempt", "max-steps", "max-goroutines", "max-time", "timeout"}

// limitFlags are the exploreRunFlags that only bound a run: a replay needs
// them only to reproduce a limit.
var limitFlags = map[string]bool{"max-steps": true, "max-goroutines": true, "max-time": true, "timeout": true}

// exploreCmd is `schedlab explore`.
func exploreCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return mergeCmd(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("schedlab explore", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		runs      = fs.Int("runs", 1000, "do `N` runs in all")
		seedStart = fs.Uint64("seed-start", 1, "seed `S` of the first run; run i has seed S+i")
		jobs      = fs.Int("jobs", 0, "do `N` runs at once, each in an engine of its own (0: one per CPU)")
		jsonOut   = fs.Bool("json", false, "write the report as JSON, for machines and for 'explore merge'")
		failFast  = fs.Bool("fail-fast", false, "stop at the first failing run")
		procs     []int
		perturb   string
		shard     explore.Shard
	)
	fs.Func("procs", "proc counts `LIST` such as 1,2,4, taken in turn (default: the script's --procs)", func(v string) (err error) {
		procs, err = explore.ParseProcs(v, 1024)
		return err
	})
	fs.Func("perturb", "what varies from seed to seed besides steal order and select: `none|timing|runnext|pct|all` (default: the script's --perturb, else timing)", func(v string) error {
		if _, err := cli.Perturbation(v); err != nil {
			return err
		}
		perturb = v
		return nil
	})
	fs.Func("shard", "do part `k/n` of the sweep, k from 0 to n-1", func(v string) (err error) {
		shard, err = explore.ParseShard(v)
		return err
	})
	defaults := cli.NewSettings()
	defaults.MaxSteps, defaults.Timeout = exploreMaxSteps, exploreTimeout
	defaults.RegisterFlags(fs, exploreRunFlags...)

	files, err := cli.ParseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printExploreHelp(stdout, fs)
		return 0
	}
	if err == nil && *runs < 1 {
		err = fmt.Errorf("--runs must be at least 1, got %d", *runs)
	}
	if err == nil && len(files) != 1 {
		err = fmt.Errorf("want one script, got %d", len(files))
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab explore: %v\nusage: %s (see 'schedlab explore -h')\n", err, exploreSynopsis)
		return 2
	}
	filename := files[0]
	src, err := os.ReadFile(filename)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab explore: %v\n", err)
		return 2
	}

	// The settings of every run: the script's directives, then the run
	// flags given to explore, then explore's own limits where neither
	// set one.
	given := map[string]bool{}
	var passOn []string
	fs.Visit(func(f *flag.Flag) {
		given[f.Name] = true
		if isRunFlag(f.Name) {
			passOn = append(passOn, "--"+f.Name+"="+f.Value.String())
		}
	})
	s, err := cli.ScriptSettings(filename, src, passOn)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 2
	}
	if !s.Given("max-steps") {
		s.MaxSteps = exploreMaxSteps
		given["max-steps"] = true
	}
	if !s.Given("timeout") {
		s.Timeout = exploreTimeout
		given["timeout"] = true
	}
	var runFlags, limits []string
	for _, name := range exploreRunFlags {
		if !given[name] {
			continue // the script's directive, if any, sets it for run too
		}
		v := map[string]string{
			"preempt":        onOffString(s.Preempt),
			"max-steps":      strconv.FormatUint(s.MaxSteps, 10),
			"max-goroutines": strconv.Itoa(s.MaxGoroutines),
			"max-time":       durationFlag(s.MaxTime),
			"timeout":        s.Timeout.String(),
		}[name]
		if limitFlags[name] {
			limits = append(limits, "--"+name+"="+v)
		} else {
			runFlags = append(runFlags, "--"+name+"="+v)
		}
	}
	// Explore shows the program's output, not views: a replay turns off
	// the ones the script's directives turn on.
	if s.Trace {
		runFlags = append(runFlags, "--trace=false")
	}
	if s.SchedTrace > 0 {
		runFlags = append(runFlags, "--schedtrace=0")
	}
	if s.SchedDetail {
		runFlags = append(runFlags, "--scheddetail=false")
	}
	if perturb == "" {
		perturb = explorePerturb
		if s.Given("perturb") {
			perturb = s.Perturb
		}
	}
	if procs == nil {
		procs = []int{s.Procs}
	}
	pt, _ := cli.Perturbation(perturb)
	base := lang.Options{
		Preempt:       s.Preempt,
		MaxSteps:      s.MaxSteps,
		MaxGoroutines: s.MaxGoroutines,
		MaxTime:       s.MaxTime,
		Timeout:       s.Timeout,
		Perturb:       pt,
	}
	// The script and its modules are compiled once for every run; a
	// script that does not load fails the same way on every seed.
	plan := &explore.Plan{Runs: *runs, SeedStart: *seedStart, Procs: procs, Shard: shard}
	prog, err := lang.Compile(filename, src, lang.Options{})
	if err != nil {
		io.WriteString(stderr, lang.FormatCompileError(err))
		return 2
	}
	runner := &scriptRunner{prog: prog, base: base}

	lo, hi := plan.Range()
	opt := explore.SweepOptions{Jobs: *jobs, FailFast: *failFast}
	if opt.Jobs < 1 {
		opt.Jobs = goruntime.NumCPU()
	}
	var bar *progressbar.ProgressBar
	if isTerminal(stderr) && hi > lo {
		bar = progressbar.NewOptions(hi-lo,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("exploring"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("runs"),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		opt.Progress = func(int) { bar.Add(1) }
	}
	tally := explore.Sweep(plan, runner.newJob, opt)
	if bar != nil {
		bar.Finish()
		bar.Clear()
	}

	report := explore.NewReport(plan, tally, filename, src, perturb, runFlags, limits)
	replayFailed := false
	for i := range report.Classes {
		c := &report.Classes[i]
		if c.Failure {
			c.ReplayCheck = runner.checkReplay(report, c)
			replayFailed = replayFailed || c.ReplayCheck != "ok"
		}
	}
	if *jsonOut {
		err = report.WriteJSON(stdout)
	} else {
		err = report.WriteTable(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab explore: %v\n", err)
		return 2
	}
	if n, _ := report.Failures(); n > 0 || replayFailed {
		return 1
	}
	return 0
}

// isRunFlag reports whether name is one of exploreRunFlags.
func isRunFlag(name string) bool {
	for _, n := range exploreRunFlags {
		if n == name {
			return true
		}
	}
	return false
}

func onOffString(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// durationFlag writes virtual ns as --max-time takes them.
func durationFlag(ns int64) string { return runtime.FormatDuration(ns) }

// scriptRunner does the runs of one script.
type scriptRunner struct {
	prog *lang.Program // compiled once, with the language's own names (assert is only watched)
	base lang.Options  // all but the seed, procs and outputs
}

// newJob returns the function with which one job does its runs; it reuses
// its buffers from run to run.
func (sr *scriptRunner) newJob() func(explore.Run) explore.Result {
	var stdout, stderr bytes.Buffer
	var assertMsg string
	// The language's assert, watched: a panic with the message of an
	// assert that failed is an assertion failure. What the run prints
	// does not change.
	orig := lang.Builtins()["assert"].(*starlark.Builtin)
	watched := starlark.NewBuiltin("assert", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		v, err := orig.CallInternal(thread, args, kwargs)
		if err != nil && assertMsg == "" {
			assertMsg = err.Error()
		}
		return v, err
	})
	predeclared := starlark.StringDict{"assert": watched}
	return func(r explore.Run) explore.Result {
		stdout.Reset()
		stderr.Reset()
		assertMsg = ""
		opts := sr.base
		opts.Seed, opts.Procs = r.Seed, r.Procs
		opts.Stdout, opts.Stderr = &stdout, &stderr
		opts.Predeclared = predeclared
		res := sr.prog.Run(opts)
		return explore.Classify(res.ExitCode, stdout.Bytes(), stderr.Bytes(), assertMsg)
	}
}

// checkReplay runs the replay command of class c as `schedlab run` does and
// reports "ok" if it prints the bytes the sweep's run printed, or what
// differs.
func (sr *scriptRunner) checkReplay(r *explore.Report, c *explore.ReportClass) string {
	// In this process, as the sweep's runs: without the watchdog of
	// --max-memory, which would end the whole process.
	args := append([]string{"--max-memory=0"}, r.ReplayArgs(c)...)
	var stdout, stderr bytes.Buffer
	code := cli.Run(args, &stdout, &stderr)
	d := explore.Digest(code, stdout.Bytes(), stderr.Bytes())
	if fmt.Sprintf("%x", d) == c.Digest {
		return "ok"
	}
	// Do the sweep's run again to say what differs.
	res := sr.newJob()(explore.Run{Index: c.FirstRun, Seed: c.Seed, Procs: c.Procs})
	if fmt.Sprintf("%x", res.Digest) != c.Digest {
		return "mismatch: the run itself does not repeat (a wall-clock timeout?)"
	}
	again := explore.Classify(code, stdout.Bytes(), stderr.Bytes(), "")
	switch {
	case again.Output != c.Output:
		return fmt.Sprintf("mismatch: replay printed output %s, want %s", again.Output, c.Output)
	default:
		return fmt.Sprintf("mismatch: replay ended %s (exit %d): %s", again.Outcome, code, again.Message)
	}
}

// mergeCmd is `schedlab explore merge`.
func mergeCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schedlab explore merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	jsonOut := fs.Bool("json", false, "write the merged report as JSON")
	files, err := cli.ParseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		exploreHelp(stdout)
		return 0
	}
	if err == nil && len(files) == 0 {
		err = errors.New("no reports named")
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab explore merge: %v\nusage: schedlab explore merge [--json] report.json...\n", err)
		return 2
	}
	var reports []*explore.Report
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil {
			var r *explore.Report
			if r, err = explore.ReadJSON(data); err == nil {
				reports = append(reports, r)
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "schedlab explore merge: %s: %v\n", f, err)
			return 2
		}
	}
	m, err := explore.Merge(reports)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab explore merge: %v\n", err)
		return 2
	}
	if !m.Complete() {
		missing := []string{}
		have := map[int]bool{}
		for _, s := range m.Shards {
			have[s] = true
		}
		for s := range m.ShardCount {
			if !have[s] {
				missing = append(missing, fmt.Sprintf("%d/%d", s, m.ShardCount))
			}
		}
		fmt.Fprintf(stderr, "schedlab explore merge: warning: shards missing: %s\n", strings.Join(missing, " "))
	}
	if *jsonOut {
		err = m.WriteJSON(stdout)
	} else {
		err = m.WriteTable(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab explore merge: %v\n", err)
		return 2
	}
	n, _ := m.Failures()
	for _, c := range m.Classes {
		if c.Failure && c.ReplayCheck != "ok" {
			n++
		}
	}
	if n > 0 {
		return 1
	}
	return 0
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

func printExploreHelp(w io.Writer, fs *flag.FlagSet) {
	printHelp(w, exploreSynopsis, exploreHelpText, fs)
}

// printHelp writes a command's help: its synopsis, its text and its flags.
func printHelp(w io.Writer, synopsis, text string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n\nFlags:\n", synopsis, text)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

func exploreHelp(w io.Writer) { exploreCmd([]string{"-h"}, w, io.Discard) }
