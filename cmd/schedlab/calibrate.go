package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/schedlab/schedlab/internal/calibrate"
)

const calibrateSynopsis = "schedlab calibrate [-o FILE] [--runs N] [--name NAME] [--startup]"

const calibrateHelpText = `Calibrate measures this machine's Go runtime and writes a costs profile:
how long a spawn, a switch, a Gosched, a thread wake-up, a new thread, a
syscall's entry and exit, a timer's lateness, a spinning thread's steal
pass, a mark worker's scan of 1 MiB and the write(2) of a printed line
take, each as a distribution (21 quantiles, in ns), what one Starlark
step stands for in Go, and a young program's start-up: the runtime's and
the packages' init work before main.main, main.main's first four go
statements and its first WaitGroup.Wait. 'schedlab run --costs FILE'
charges them.

The probes run inside this process, each twice: under runtime/trace,
read back with golang.org/x/exp/trace, where the trace's events split each
probe into the runtime's steps; and untraced, where the probe's own clock
gives the level the costs are scaled to, since tracing slows down what it
measures. A step is Go's time per statement over Starlark's steps per
statement. The start-up is measured from outside: calibrate builds a
small program with the go command and runs it in fresh processes with
GODEBUG=inittrace=1, and again, at GOMAXPROCS 1, for its first park
(without a go command in $PATH the profile leaves the start-up out).
docs/runtime.md ("Calibration") says how each cost is measured.

With --startup it measures only the start-up, in a few seconds, and
writes the shipped default profile with this machine's start-up in place
of its own. The start-up is what differs most from one machine to the
next, and it decides the races that begin at main.main's first
statement: explore with such a profile (--costs FILE) comes closer to
the outcomes Go gives on this machine than with the default or with
the whole calibration (docs/faithfulness.md, "This host a day later").

Measure on a quiet machine: every other process on its CPUs shows up as
latency. The profile records the machine, the Go version, this command,
the date and the load average. Progress and a table of the results go to
stderr. It takes about 15s with the default --runs.`

// calibrateCmd is 'schedlab calibrate'.
func calibrateCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schedlab calibrate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		out  = fs.String("o", "", "write the profile to `FILE` (default: standard output)")
		runs = fs.Int("runs", 1000, "rounds of each probe: `N` samples or more of each cost (timers and the step do fewer rounds of many samples)")
		name = fs.String("name", "default", "the profile's `NAME`, recorded in the file (with --startup, default+startup)")
		up   = fs.Bool("startup", false, "measure only a young program's start-up (init_runtime, init_packages, init_after, malg_rank, sema_first) and write the default profile with it in place of its own (needs the go command)")
	)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(stdout, calibrateSynopsis, calibrateHelpText, fs)
		return 0
	}
	named := false
	fs.Visit(func(f *flag.Flag) { named = named || f.Name == "name" })
	if *up && !named {
		*name = "default+startup"
	}
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("want no arguments, got %q", fs.Arg(0))
	}
	if err == nil && *runs < 1 {
		err = fmt.Errorf("--runs must be at least 1, got %d", *runs)
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab calibrate: %v\nusage: %s (see 'schedlab calibrate -h')\n", err, calibrateSynopsis)
		return 2
	}
	p, rep, err := calibrate.Run(calibrate.Options{
		Runs:     *runs,
		Name:     *name,
		Command:  "schedlab calibrate " + strings.Join(args, " "),
		Progress: stderr,

		StartupOnly: *up,
	})
	if err != nil {
		fmt.Fprintf(stderr, "schedlab calibrate: %v\n", err)
		return 1
	}
	p.Command = strings.TrimSpace(p.Command)
	data := p.JSON()
	printCalibrateReport(stderr, rep)
	if *out == "" {
		stdout.Write(data)
		return 0
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintf(stderr, "schedlab calibrate: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "calibrate: wrote %s\n", *out)
	return 0
}

// printCalibrateReport writes the table of how each cost was made.
func printCalibrateReport(w io.Writer, rep *calibrate.Report) {
	fmt.Fprintf(w, "\n%-17s %6s %-9s %10s %10s %6s %10s %10s %10s\n", "COST", "N", "FROM", "TRACED", "CLOCK", "LEVEL", "P5", "P50", "P95")
	for _, l := range rep.Lines {
		q := l.Profile.Quantiles
		fmt.Fprintf(w, "%-17s %6d %-9s %10d %10d %6.2f %10d %10d %10d\n", l.Cost, l.N, l.Method, l.Traced, l.Clock, l.Factor, q[1], q[10], q[19])
	}
	for i, d := range rep.MalgRank {
		q := d.Quantiles
		fmt.Fprintf(w, "%-17s %6d %-9s %10s %10s %6s %10d %10d %10d\n", fmt.Sprintf("malg_rank[%d]", i), d.N, "clock", "", "", "", q[1], q[10], q[19])
	}
	if rep.StartupOnly {
		fmt.Fprintf(w, "(ns. FROM: clock = the start-up probe's own clock, inittrace = GODEBUG=inittrace=1 of a fresh process of it, firstpark = a fresh\n"+
			"process's first WaitGroup.Wait less its first channel receive's median. Every other cost is the default profile's.)\n")
		return
	}
	fmt.Fprintf(w, "(ns; step_ps and step_ps_* in ps. FROM: clock = the untraced probe's own clock, trace = the trace's events times LEVEL, the untraced/traced ratio\n"+
		"of the probe's clock medians, inittrace = GODEBUG=inittrace=1 of a fresh process of the start-up probe, firstpark = a fresh process's first\n"+
		"WaitGroup.Wait less its first channel receive's median. TRACED and CLOCK are the medians\n"+
		"of the two; a clock reading costs %dns.)\n", rep.ClockCost)
	var why []string
	for k, n := range rep.WakeSkipped {
		why = append(why, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(why)
	fmt.Fprintf(w, "wake-ups (ready to running on the other P): %.1f%% within 100µs untraced, %.1f%% traced; then the runnext steal %dns (median, traced);\n"+
		"rounds on a new thread %d; rounds left out: %s; fruitless P runs left out of steal_pass, as they slept in runqgrab: %d\n",
		100*rep.Within100us, 100*rep.Within100usTraced, rep.StealMedian, rep.NewM, strings.Join(why, ", "), rep.StealNapped)
	if len(rep.StepKinds) > 0 {
		var kinds []string
		for _, k := range rep.StepKinds {
			kinds = append(kinds, fmt.Sprintf("%s: %.0f steps, %.0fps", k.Statement, k.Steps, k.MedianPs))
		}
		fmt.Fprintf(w, "a step by kind of statement (Starlark steps an iteration, Go's time a step, median; step and step_ps pool them):\n  %s\n", strings.Join(kinds, "; "))
	}
}

func calibrateHelp(w io.Writer) { calibrateCmd([]string{"-h"}, w, io.Discard) }
