package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/explore"
	"github.com/schedlab/schedlab/internal/explore/scriptrun"
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
	timing   every cost of the costs profile (thread wake-ups, timer
	         lateness, spawns, switches, steps...) drawn from its
	         distribution measured on real Go, the quantum of steps at
	         which two Ps' code interleaves varied, and threads that lose
	         their CPU to the OS now and then (the profile's stall and
	         stall_every); with --costs=zero durations of work, sleep and
	         syscall scaled by 0.75-1.25, up to 50µs more thread wake-up
	         latency and a 5% chance of preemption at each safe point (a
	         builtin call or the start of work) instead: schedules Go
	         itself can produce (the default)
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
ok. All but left and ok are failures; --accept leak,limit counts those
outcomes as passing, for a program that leaks by design. A class is the
runs with the same outcome, message and output; --group=message ignores
the output, --group=outcome the message too, for a program whose output
order varies from run to run.

Each run has the limits of 'schedlab run' (no step limit), except the
wall-clock --timeout, 10s unless the script's directives set it, so that
one bad schedule cannot hang the sweep. A replay command carries the
limits only for a limit class.

--shard k/n does part k (from 0) of n of the sweep: runs
[k*runs/n, (k+1)*runs/n). Write each shard's report with --json and
combine them with 'schedlab explore merge': the result is the report of
the whole sweep, as if it had run in one process. docs/explore.md shows
how to spread shards with GNU parallel, a Kubernetes indexed Job or a
Slurm array.

A progress bar is drawn on stderr when stderr is a terminal. --json
writes the report as JSON instead of the table.

Ctrl-C (SIGINT) starts no more runs, lets the runs under way finish, and
prints the report of the runs before the first one not started, without
replay checks; a second Ctrl-C kills the process.

Exit status: 0 when no run failed, 1 when some class is a failure (or a
replay check failed), 2 for a bad flag or a script that cannot be read or
loaded, 130 when SIGINT ended the sweep.`

// maxJobs bounds --jobs: each job is an engine of its own.
const maxJobs = 1024

// Explore's own defaults for each run: the wall-clock limit (the step
// limit is run's: none), and the perturbation.
const (
	exploreTimeout = 10 * time.Second
	explorePerturb = "timing"
)

// exploreRunFlags are the flags of `schedlab run` that explore passes on
// to every run.
var exploreRunFlags = []string{"preempt", "costs", "sched", "startup", "print", "cpus", "max-steps", "max-goroutines", "max-time", "timeout"}

// limitFlags are the exploreRunFlags that only bound a run: a replay needs
// them only to reproduce a limit.
var limitFlags = map[string]bool{"max-steps": true, "max-goroutines": true, "max-time": true, "timeout": true}

// exploreCmd is `schedlab explore`, in the steps internal/explore takes
// too: parse the command line (parseExplore), settle the settings of every
// run (sweepSettings), sweep the plan (sweep), then report (finishExplore).
func exploreCmd(args []string, stdout, stderr io.Writer) int {
	return exploreIn(cli.Host{}, args, stdout, stderr)
}

// exploreIn is `schedlab explore` in host h. When the process is its own
// (the schedlab command), SIGINT ends the sweep with the report of the
// runs done so far.
func exploreIn(h cli.Host, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return mergeCmd(args[1:], stdout, stderr)
	}
	cmd, code := parseExplore(args, stdout, stderr)
	if cmd == nil {
		return code
	}
	ss, err := cmd.sweepSettings()
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 2
	}
	// The script and its modules are compiled once for every run; a
	// script that does not load fails the same way on every seed.
	prog, err := lang.Compile(cmd.filename, cmd.src, lang.Options{})
	if err != nil {
		io.WriteString(stderr, lang.FormatCompileError(err))
		return 2
	}
	runner := &scriptRunner{prog: prog, base: ss.base}
	plan := &explore.Plan{Runs: cmd.runs, SeedStart: cmd.seedStart, Procs: ss.procs, Shard: cmd.shard}
	opt := explore.SweepOptions{Jobs: cmd.jobs, FailFast: cmd.failFast, Policy: cmd.policy}
	if h.OwnsProcess {
		cancel, stop := cli.CatchInterrupt()
		defer stop()
		opt.Stop = cancel
	}
	tally := sweep(plan, runner, opt, stderr)
	report := explore.NewReport(plan, tally, cmd.filename, cmd.src, ss.perturb, ss.runFlags, ss.limits)
	return finishExplore(report, runner, cmd.jsonOut, stdout, stderr)
}

// An exploreCommand is the command line of `schedlab explore`, parsed,
// with the script it names.
type exploreCommand struct {
	fs        *flag.FlagSet  // its flags, to tell which were given
	runs      int            // --runs
	seedStart uint64         // --seed-start
	jobs      int            // --jobs
	jsonOut   bool           // --json
	failFast  bool           // --fail-fast
	procs     []int          // --procs; nil for the script's
	perturb   string         // --perturb; "" for the script's, else explorePerturb
	shard     explore.Shard  // --shard
	policy    explore.Policy // --group and --accept
	filename  string
	src       []byte
}

// parseExplore parses the command line of `schedlab explore` and reads
// the script. It returns nil and the exit status when the command ends
// here: with its help, or a bad command line.
func parseExplore(args []string, stdout, stderr io.Writer) (*exploreCommand, int) {
	cmd := &exploreCommand{}
	fs := cmd.flags()
	files, err := cli.ParseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printExploreHelp(stdout, fs)
		return nil, 0
	}
	if err == nil {
		err = (&explore.Plan{Runs: cmd.runs, SeedStart: cmd.seedStart, Procs: cmd.procs, Shard: cmd.shard}).Check()
	}
	if err == nil && (cmd.jobs < 0 || cmd.jobs > maxJobs) {
		err = fmt.Errorf("--jobs %d: out of range, want 0 (one per CPU) to %d", cmd.jobs, maxJobs)
	}
	if err == nil && len(files) != 1 {
		err = fmt.Errorf("want one script, got %d", len(files))
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab explore: %v\nusage: %s (see 'schedlab explore -h')\n", err, exploreSynopsis)
		return nil, 2
	}
	cmd.filename = files[0]
	if cmd.src, err = lang.ReadScript(cmd.filename); err != nil {
		fmt.Fprintf(stderr, "schedlab explore: %v\n", err)
		return nil, 2
	}
	if cmd.jobs < 1 {
		cmd.jobs = goruntime.NumCPU()
	}
	return cmd, 0
}

// flags returns the flag set of `schedlab explore`, bound to cmd: its own
// flags, then the run flags it passes on (exploreRunFlags).
func (cmd *exploreCommand) flags() *flag.FlagSet {
	fs := flag.NewFlagSet("schedlab explore", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&cmd.runs, "runs", 1000, "do `N` runs in all")
	fs.Uint64Var(&cmd.seedStart, "seed-start", 1, "seed `S` of the first run; run i has seed S+i")
	fs.IntVar(&cmd.jobs, "jobs", 0, "do `N` runs at once, each in an engine of its own (0: one per CPU)")
	fs.BoolVar(&cmd.jsonOut, "json", false, "write the report as JSON, for machines and for 'explore merge'")
	fs.BoolVar(&cmd.failFast, "fail-fast", false, "stop at the first failing run")
	fs.Func("procs", "proc counts `LIST` such as 1,2,4, taken in turn (default: the script's --procs)", func(v string) (err error) {
		cmd.procs, err = explore.ParseProcs(v, cli.MaxProcs)
		return err
	})
	fs.Func("perturb", "what varies from seed to seed besides steal order and select: `none|timing|runnext|pct|all` (default: the script's --perturb, else timing)", func(v string) error {
		if _, err := cli.Perturbation(v); err != nil {
			return err
		}
		cmd.perturb = v
		return nil
	})
	fs.Func("shard", "do part `k/n` of the sweep, k from 0 to n-1", func(v string) (err error) {
		cmd.shard, err = explore.ParseShard(v)
		return err
	})
	fs.Func("accept", "count the failing outcomes `LIST` as passing, such as leak,limit (for programs that leak by design)", func(v string) (err error) {
		cmd.policy.Accept, err = explore.ParseAccept(v)
		return err
	})
	fs.Func("group", "what makes a class: `full` (outcome, message and output), message (outcome and message) or outcome (the outcome alone)", func(v string) error {
		if !slices.Contains(explore.Groupings, v) {
			return fmt.Errorf("want one of %s", strings.Join(explore.Groupings, ", "))
		}
		cmd.policy.Group = v
		return nil
	})
	defaults := cli.NewSettings()
	defaults.Timeout = exploreTimeout
	defaults.RegisterFlags(fs, exploreRunFlags...)
	cmd.fs = fs
	return fs
}

// sweepSettings are what every run of a sweep shares.
type sweepSettings struct {
	base     lang.Options // the options of every run, but its seed, procs and outputs
	procs    []int        // the proc counts, taken in turn
	perturb  string       // the --perturb mode
	runFlags []string     // flags of every replay command
	limits   []string     // flags of a replay command that reproduces a limit
}

// sweepSettings returns the settings of every run: the script's
// directives, then the run flags given to explore, then explore's own
// limits where neither set one.
func (cmd *exploreCommand) sweepSettings() (*sweepSettings, error) {
	given := map[string]bool{}
	var passOn []string
	cmd.fs.Visit(func(f *flag.Flag) {
		given[f.Name] = true
		if slices.Contains(exploreRunFlags, f.Name) {
			passOn = append(passOn, "--"+f.Name+"="+f.Value.String())
		}
	})
	s, err := cli.ScriptSettings(cmd.filename, cmd.src, passOn)
	if err != nil {
		return nil, err
	}
	if !s.Given("timeout") {
		s.Timeout = exploreTimeout
		given["timeout"] = true
	}
	ss := &sweepSettings{procs: cmd.procs, perturb: cmd.perturb}
	for _, name := range exploreRunFlags {
		if !given[name] {
			continue // the script's directive, if any, sets it for run too
		}
		f := "--" + name + "=" + runFlagValue(s, name)
		if limitFlags[name] {
			ss.limits = append(ss.limits, f)
		} else {
			ss.runFlags = append(ss.runFlags, f)
		}
	}
	ss.runFlags = append(ss.runFlags, viewsOff(s)...)
	if ss.perturb == "" {
		ss.perturb = explorePerturb
		if s.Given("perturb") {
			ss.perturb = s.Perturb
		}
	}
	if ss.procs == nil {
		ss.procs = []int{s.Procs}
	}
	// The runs share this process: no watchdog of the process's memory,
	// which would stop every run at once (and replayRun's check runs
	// with --max-memory=0 to match).
	s.Perturb, s.MaxMemory = ss.perturb, 0
	// Every goroutine still alive when main returns is listed, so that a
	// run that leaves some (left) is told from one that does not (ok); the
	// replay of such a class says --alive.
	s.Alive = true
	ss.base = s.Options(nil, nil)
	return ss, nil
}

// runFlagValue writes the value of the run flag name (one of
// exploreRunFlags) in s as the flag takes it.
func runFlagValue(s *cli.Settings, name string) string {
	switch name {
	case "preempt":
		return cli.OnOff(s.Preempt)
	case "costs":
		return s.Costs
	case "sched":
		return s.Sched
	case "startup":
		return s.Startup
	case "print":
		return s.Print
	case "cpus":
		return strconv.Itoa(s.CPUs)
	case "max-steps":
		return strconv.FormatUint(s.MaxSteps, 10)
	case "max-goroutines":
		return strconv.Itoa(s.MaxGoroutines)
	case "max-time":
		return durationFlag(s.MaxTime)
	case "timeout":
		return s.Timeout.String()
	}
	panic("explore: not a run flag: " + name)
}

// viewsOff returns the flags that turn off, in a replay, the views the
// script's directives turn on: explore shows the program's output, not
// views.
func viewsOff(s *cli.Settings) []string {
	var off []string
	if s.Trace {
		off = append(off, "--trace=false")
	}
	if s.SchedTrace > 0 {
		off = append(off, "--schedtrace=0")
	}
	if s.SchedDetail {
		off = append(off, "--scheddetail=false")
	}
	if s.GCTrace {
		off = append(off, "--gctrace=false")
	}
	return off
}

// sweep does the runs of plan with runner, drawing a progress bar on
// stderr when it is a terminal.
func sweep(plan *explore.Plan, runner *scriptRunner, opt explore.SweepOptions, stderr io.Writer) *explore.Tally {
	lo, hi := plan.Range()
	progress, finish := progressBar(stderr, hi-lo, "exploring")
	opt.Progress = progress
	tally := explore.Sweep(plan, runner.newJob, opt)
	finish()
	return tally
}

// progressBar returns a Progress function (explore.SweepOptions'), which
// draws a bar of n runs on stderr, and the function that clears the bar
// once the runs are done; when stderr is not a terminal, or there is no
// run to do, nil and a function that does nothing.
func progressBar(stderr io.Writer, n int, description string) (progress func(done int), finish func()) {
	if !isTerminal(stderr) || n <= 0 {
		return nil, func() {}
	}
	bar := progressbar.NewOptions(n,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription(description),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("runs"),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	return func(int) { bar.Add(1) }, func() {
		bar.Finish()
		bar.Clear()
	}
}

// finishExplore replays the first run of every failing class, writes the
// report (as JSON with jsonOut) and returns the exit status.
func finishExplore(report *explore.Report, runner *scriptRunner, jsonOut bool, stdout, stderr io.Writer) int {
	replayFailed := false
	for i := range report.Classes {
		c := &report.Classes[i]
		if c.Failure && report.Interrupted {
			c.ReplayCheck = "not checked: interrupted"
		} else if c.Failure {
			c.ReplayCheck = runner.checkReplay(report, c)
			replayFailed = replayFailed || c.ReplayCheck != "ok"
		}
	}
	if err := writeReport(report, jsonOut, stdout); err != nil {
		fmt.Fprintf(stderr, "schedlab explore: %v\n", err)
		return 2
	}
	if report.Interrupted {
		return cli.ExitInterrupted
	}
	if n, _ := report.Failures(); n > 0 || replayFailed {
		return 1
	}
	return 0
}

// writeReport writes r as a table, or as JSON with jsonOut.
func writeReport(r *explore.Report, jsonOut bool, w io.Writer) error {
	if jsonOut {
		return r.WriteJSON(w)
	}
	return r.WriteTable(w)
}

// durationFlag writes virtual ns as --max-time takes them.
func durationFlag(ns int64) string { return runtime.FormatDuration(ns) }

// scriptRunner does the runs of one script.
type scriptRunner struct {
	prog *lang.Program // compiled once, with the language's own names (assert is only watched)
	base lang.Options  // all but the seed, procs and outputs
}

// newJob returns the function with which one job does its runs
// (scriptrun.NewJob, as the playground's sweeps do them).
func (sr *scriptRunner) newJob() func(explore.Run) explore.Result {
	return scriptrun.NewJob(sr.prog, sr.base)
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

// mergeCmd is `schedlab explore merge`: read the shards' reports, merge
// them, write the merged report.
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
	reports, err := readReports(files)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab explore merge: %v\n", err)
		return 2
	}
	m, err := explore.Merge(reports)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab explore merge: %v\n", err)
		return 2
	}
	if missing := missingShards(m); len(missing) > 0 {
		fmt.Fprintf(stderr, "schedlab explore merge: warning: shards missing: %s\n", strings.Join(missing, " "))
	}
	if err := writeReport(m, *jsonOut, stdout); err != nil {
		fmt.Fprintf(stderr, "schedlab explore merge: %v\n", err)
		return 2
	}
	if mergedFailures(m) > 0 {
		return 1
	}
	return 0
}

// readReports reads the JSON reports of the files named.
func readReports(files []string) ([]*explore.Report, error) {
	var reports []*explore.Report
	for _, f := range files {
		data, err := cli.ReadInput(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		r, err := explore.ReadJSON(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		reports = append(reports, r)
	}
	return reports, nil
}

// missingShards returns the shards, as k/n, that the merged report m
// lacks; none when it is complete.
func missingShards(m *explore.Report) []string {
	if m.Complete() {
		return nil
	}
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
	return missing
}

// mergedFailures counts the failing classes of the merged report m and
// the replay checks that failed.
func mergedFailures(m *explore.Report) int {
	n, _ := m.Failures()
	for _, c := range m.Classes {
		if c.Failure && c.ReplayCheck != "ok" {
			n++
		}
	}
	return n
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
