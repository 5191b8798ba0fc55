package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/internal/check"
	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/explore"
	"github.com/schedlab/schedlab/internal/play"
	"github.com/schedlab/schedlab/internal/schedfile"
	"github.com/schedlab/schedlab/lang"
)

const checkSynopsis = "schedlab check [--bound K] [--reduction none|dpor] [--jobs N] [--max-schedules N] [--keep-going] [--out FILE] [run flags] script.star"

const checkHelpText = `Check runs a script once for every schedule, up to a bound on
preemptions, and reports the first that fails: a deadlock, a leaked
goroutine, a failed assert, a panic or a limit. Where explore samples
schedules by seed, check walks them one by one, as CHESS does: at each of
the engine's choice points (a safe point where another goroutine could
run instead; a select with several cases ready) it tries every answer in
turn. docs/check.md says which nondeterminism the choice points cover and
which they do not yet (how two running Ps interleave between safe points,
which waiter a close wakes, timers due together). --stalls=on adds one
that moves the clock: a thread that loses its CPU until the next event
of the process, for bugs that need a goroutine late by more than a sleep.

--bound K walks the schedules with at most K preemptions (a switch away
from a goroutine that could have gone on), as CHESS's iterative context
bounding; without it the walk is exhaustive. Most bugs need one or two.
The first schedule is the one with no preemption: what 'schedlab run'
prints. Each run is 'schedlab run' with the run flags given here.

When a schedule fails, check prints how, the run's stderr, and the
command that replays it: 'schedlab run --choices LIST', or, with --out
FILE, 'schedlab run --schedule FILE', a file that names the script and
the settings it fits; 'schedlab repl --choices LIST', whose world stays
where the schedule failed (when the run flags are the REPL's); and
'schedlab play --step N --link ...', which prints a playground link that
replays it and opens at its last event, where it failed. It stops there
unless --keep-going is given. When none fails it prints 'no failure in N schedules (complete up to bound
K)', or says the walk is incomplete when --max-schedules or SIGINT ended
it first. Then it lists the outcomes seen, with how many schedules gave
each and a hash of their output.

--jobs N runs N schedules of the naive walk at once (0, the default: one
per CPU; 1: one after another): a walk in progress gives the subtrees
it has not reached to a worker that has nothing to do, and the runs are
read back in the walk's own order, so the verdict, the schedule numbers
and the first failure are those of one worker.

--reduction dpor leaves out schedules that differ from one it runs only
in the order of independent steps (dynamic partial-order reduction): two
steps are dependent when they touch one channel, mutex, wait group or
other engine object and one of them changes it, when both print, or,
in a program whose goroutines may share a changing plain value, always.
It then also runs the naive walk, up to --naive schedules, and prints how
many that took. docs/check.md says what the reduction covers. With it,
where a goroutine running alone comes back to a state it was in, as a
loop that polls and finds nothing does, the walk keys the states of its
safe points (its frames and locals, the timers, the objects it wrote) and
tries a switch only at the first point of each state: the stutter keys
(docs/check.md, "Stutter"), which make a loop of a million turns that
never blocks a few points to try, not a million. They are off in a
program whose goroutines may share a changing plain value. With
--reduction none, the default, the walk is naive: schedules that differ
only in the order of independent steps all run. A progress bar is drawn
on stderr when stderr is a terminal.

A script can say how it is to be searched: a comment line
'# schedlab check: --reduction=dpor' or '# schedlab check: --stalls=on'
among the comments at its top sets those flags, unless the command line
gives them (run flags go in a '# schedlab:' directive, as for run).

Exit status: 0 when no schedule failed, 1 when one did, 2 for a bad
command line or a script that cannot be read or loaded, 130 when SIGINT
ended the walk.`

// checkRunFlags are the flags of 'schedlab run' that check passes on to
// every run.
var checkRunFlags = []string{"procs", "seed", "preempt", "costs", "sched", "startup", "net-latency", "cpu-quota", "cpu-period", "cpus", "gogc", "memlimit", "gc-cycle", "gc-assist", "print", "stalls", "max-steps", "max-goroutines", "max-time", "timeout"}

// defaultMaxSchedules is --max-schedules' default.
const defaultMaxSchedules = 100_000

// checkCmd is 'schedlab check' in host h.
func checkCmd(h cli.Host, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schedlab check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	bound := boundFlag(-1)
	fs.Var(&bound, "bound", "walk the schedules with at most `K` preemptions, K from 0 (default: every schedule)")
	maxSchedules := fs.Int("max-schedules", defaultMaxSchedules, "stop after `N` schedules, and say the walk is incomplete (0: no limit)")
	keepGoing := fs.Bool("keep-going", false, "walk on after a failing schedule, and count the failures")
	out := fs.String("out", "", "write the first failing schedule to `FILE`, for schedlab run --schedule FILE")
	reduction := reductionFlag(check.NoReduction)
	fs.Var(&reduction, "reduction", "`R`: none walks every schedule; dpor leaves out those that only reorder independent steps (partial-order reduction)")
	naive := fs.Int("naive", defaultNaive, "with --reduction dpor, also run the naive walk, at most `N` schedules, and print its count (0: not)")
	jobs := fs.Int("jobs", 0, "do `N` runs of the naive walk at once, each in an engine of its own (0: one per CPU); the verdict is the same for any N, and a walk with --reduction dpor does one at a time")
	cli.NewSettings().RegisterFlags(fs, checkRunFlags...)
	var runArgs []string
	passParams(fs, func(v string) { runArgs = append(runArgs, "--param="+v) })
	files, err := cli.ParseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(stdout, checkSynopsis, checkHelpText, fs)
		return 0
	}
	if err == nil && *naive < 0 {
		err = fmt.Errorf("--naive %d: want 0 (no naive walk) or more", *naive)
	}
	if err == nil && (*jobs < 0 || *jobs > maxJobs) {
		err = fmt.Errorf("--jobs %d: out of range, want 0 (one per CPU) to %d", *jobs, maxJobs)
	}
	if err == nil && *maxSchedules < 0 {
		err = fmt.Errorf("--max-schedules %d: want 0 (no limit) or more", *maxSchedules)
	}
	if err == nil && len(files) != 1 {
		err = fmt.Errorf("want one script, got %d", len(files))
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab check: %v\nusage: %s (see 'schedlab check -h')\n", err, checkSynopsis)
		return 2
	}
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(checkRunFlags, f.Name) {
			runArgs = append(runArgs, "--"+f.Name+"="+f.Value.String())
		}
	})
	script := files[0]
	src, err := lang.ReadScript(script)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab check: %v\n", err)
		return 2
	}
	cd, err := cli.ParseCheckDirectives(script, src)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab check: %v\n", err)
		return 2
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if cd.Reduction != "" && !given["reduction"] {
		reduction.Set(cd.Reduction) // checked by ParseCheckDirectives
	}
	if cd.Stalls != "" && !given["stalls"] {
		runArgs = append(runArgs, "--stalls="+cd.Stalls)
	}
	s, err := cli.ScriptSettings(script, src, runArgs)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab check: %s\n", strings.TrimPrefix(err.Error(), "schedlab run: "))
		return 2
	}
	if s.Choices != nil || s.Given("perturb") {
		fmt.Fprintf(stderr, "schedlab check: %s: a directive sets --choices or --perturb, which check decides itself\n", script)
		return 2
	}
	if s.Stalls && check.Reduction(reduction) == check.DPOR {
		fmt.Fprintf(stderr, "schedlab check: --stalls=on with --reduction=dpor: DPOR does not know what a stall reorders yet; walk stalls with --reduction=none\n")
		return 2
	}
	prog, err := lang.Compile(script, src, lang.Options{})
	if err != nil {
		io.WriteString(stderr, lang.FormatCompileError(err))
		return 2
	}
	opts := s.Options(nil, nil)
	opts.MaxMemory = 0 // the runs share this process: no watchdog of its memory
	cfg := check.Config{Program: prog, Options: opts, Bound: int(bound), MaxSchedules: *maxSchedules, StopAtFailure: !*keepGoing, Reduction: check.Reduction(reduction)}
	if h.OwnsProcess {
		cancel, stop := cli.CatchInterrupt()
		defer stop()
		cfg.Stop = cancel
	}
	progress, finish := progressBar(stderr, *maxSchedules, "check")
	cfg.Progress = progress
	cfg.Jobs = *jobs
	if cfg.Jobs == 0 {
		cfg.Jobs = goruntime.NumCPU()
	}
	header := boundText(int(bound))
	if cfg.Reduction == check.DPOR {
		header += ", reduction dpor"
	}
	fmt.Fprintf(stdout, "check %s: %s, %s\n", script, s.ScheduleSettings(), header)
	v, err := check.Walk(cfg, nil)
	finish()
	if err != nil {
		fmt.Fprintf(stderr, "schedlab check: %v\n", err)
		return 3
	}
	var replay []check.Replay
	if f := v.Failure; f != nil {
		replay = append(replay, check.Replay{How: "replay", Command: replayCommand(script, s, runArgs, f.Schedule(), *out)})
		list := trimmedChoices(f.Schedule())
		if c := replCommand(script, runArgs, list); c != "" {
			replay = append(replay, check.Replay{How: "repl", Command: c})
		}
		if c := playCommand(script, src, runArgs, list); c != "" {
			replay = append(replay, check.Replay{How: "playground", Command: c})
		}
		if *out != "" {
			if err := writeSchedule(*out, f.File(script, src, s.ScheduleSettings())); err != nil {
				fmt.Fprintf(stderr, "schedlab check: %v\n", err)
				return 2
			}
		}
	}
	var stopped check.Budget
	switch {
	case v.Interrupted:
		stopped = "interrupted (SIGINT)"
	case v.HostLimit != "":
		stopped = check.Budget(v.HostLimit)
	case !v.Complete && v.Failure == nil, !v.Complete && *keepGoing:
		stopped = check.Budget("stopped by --max-schedules " + strconv.Itoa(*maxSchedules))
	}
	if err := v.WriteText(stdout, int(bound), stopped, replay); err != nil {
		fmt.Fprintf(stderr, "schedlab check: %v\n", err)
		return 2
	}
	if cfg.Reduction == check.DPOR && *naive > 0 && !v.Interrupted && v.HostLimit == "" {
		ncfg := cfg
		ncfg.Reduction = check.NoReduction
		ncfg.MaxSchedules = *naive
		nv, err := check.Walk(ncfg, nil)
		if err != nil {
			fmt.Fprintf(stderr, "schedlab check: the naive walk: %v\n", err)
			return 3
		}
		fmt.Fprintln(stdout, naiveText(v, nv, *naive))
		if v.Failure == nil && nv.Failure != nil {
			return 1
		}
	}
	switch {
	case v.Failure != nil:
		return 1
	case v.Interrupted:
		return cli.ExitInterrupted
	}
	return 0
}

// defaultNaive is --naive's default.
const defaultNaive = 10_000

// naiveText says how the naive walk nv compares with the reduced walk v:
// its count, and whether it found what v found.
func naiveText(v, nv *check.Verdict, limit int) string {
	var b strings.Builder
	switch {
	case nv.Complete:
		fmt.Fprintf(&b, "naive walk: %s", pluralS(nv.Schedules, "schedule"))
	case nv.Failure == nil:
		fmt.Fprintf(&b, "naive walk: more than %s (stopped by --naive %d)", pluralS(nv.Schedules, "schedule"), limit)
	default:
		fmt.Fprintf(&b, "naive walk: %s to the first failure", pluralS(nv.Schedules, "schedule"))
	}
	switch {
	case v.Failure == nil && nv.Failure != nil:
		fmt.Fprintf(&b, "; it fails (%s: %s), which the reduced walk missed: a bug of schedlab check", nv.Failure.Result.Outcome, nv.Failure.Result.Message)
	case v.Failure != nil && nv.Failure == nil && nv.Complete:
		b.WriteString("; it finds no failure: a bug of schedlab check")
	}
	return b.String()
}

// pluralS is n and what, with an s unless n is 1.
func pluralS(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// boundText says the walk's bound.
func boundText(bound int) string {
	if bound < 0 {
		return "every schedule"
	}
	return fmt.Sprintf("bound %d", bound)
}

// replayCommand is the command that replays a failing schedule: with the
// schedule file if one is written, else with its choices inline.
func replayCommand(script string, s *cli.Settings, runArgs []string, choices check.Schedule, out string) string {
	words := []string{"schedlab", "run"}
	if out != "" {
		words = append(words, "--schedule", explore.ShellQuote(out))
	} else {
		words = append(words, "--choices", explore.ShellQuote(schedfile.FormatChoices(choices, ",")))
	}
	for _, a := range runArgs {
		words = append(words, explore.ShellQuote(a))
	}
	return strings.Join(append(words, explore.ShellQuote(script)), " ")
}

// trimmedChoices returns choices as --choices takes them, without the
// zeros after the last answer that is not one, which a replay answers
// anyway (runtime.Replay answers 0 after its list): a long run whose
// only preemption comes early makes a short command.
func trimmedChoices(choices check.Schedule) string {
	n := len(choices)
	for n > 1 && choices[n-1] == 0 {
		n--
	}
	return schedfile.FormatChoices(choices[:n], ",")
}

// replCommand is the command that opens a failing schedule in the REPL:
// the script runs under the schedule list as it loads, and the world
// stays where it failed. It is "" when a run flag is one a session does
// not take (--param, --timeout, --max-steps and the others not in
// replSettings).
func replCommand(script string, runArgs []string, list string) string {
	words := []string{"schedlab", "repl", "--choices", explore.ShellQuote(list)}
	for _, a := range runArgs {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !slices.Contains(replSettings, name) {
			return ""
		}
		words = append(words, explore.ShellQuote(a))
	}
	return strings.Join(append(words, explore.ShellQuote(script)), " ")
}

// playCommand is the command that prints the share link of a failing
// schedule (schedlab play --link): a playground page that replays the
// schedule list and opens at its last scheduling event, the state the
// failure was found in (a step more ends the run with its diagnosis). It
// is "" when the page cannot take the run's flags.
func playCommand(script string, src []byte, runArgs []string, list string) string {
	args := append([]string{"--choices=" + list}, runArgs...)
	st, err := play.NewStepper(script, src, args)
	if err != nil {
		return ""
	}
	st = st.Goto(math.MaxInt)
	step := st.Events()
	st.Close()
	words := []string{"schedlab", "play", "--step", strconv.Itoa(step), "--link", explore.ShellQuote(script), "--choices", explore.ShellQuote(list)}
	for _, a := range runArgs {
		words = append(words, explore.ShellQuote(a))
	}
	return strings.Join(words, " ")
}

// writeSchedule writes f to the file path.
func writeSchedule(path string, f interface{ Write(io.Writer) error }) error {
	w, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := f.Write(w); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// boundFlag is --bound: a preemption bound from 0; -1, its default, is
// none.
type boundFlag int

func (b *boundFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("want a number of preemptions, an integer from 0")
	}
	if n < 0 {
		return fmt.Errorf("%d: out of range, want 0 or more (no --bound walks every schedule)", n)
	}
	*b = boundFlag(n)
	return nil
}

func (b *boundFlag) String() string {
	if b == nil || *b < 0 {
		return ""
	}
	return strconv.Itoa(int(*b))
}

// reductionFlag is --reduction: none or dpor.
type reductionFlag check.Reduction

func (r *reductionFlag) Set(v string) error {
	switch v {
	case "none":
		*r = reductionFlag(check.NoReduction)
	case "dpor":
		*r = reductionFlag(check.DPOR)
	default:
		return fmt.Errorf("%q: want none or dpor", v)
	}
	return nil
}

func (r *reductionFlag) String() string {
	if r == nil {
		return "none"
	}
	return check.Reduction(*r).String()
}

func checkHelp(w io.Writer) { checkCmd(cli.Host{}, []string{"-h"}, w, io.Discard) }
