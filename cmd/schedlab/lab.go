package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	goruntime "runtime"
	"slices"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/lab"
	"github.com/schedlab/schedlab/internal/labhtml"
	"github.com/schedlab/schedlab/lang"
)

const labSynopsis = "schedlab lab [--sweep NAME=V1,V2,...]... [--seeds N] [--json] [--html FILE] [--jobs J] [run flags] script.star"

const labHelpText = `Lab runs a script over a grid of settings and prints one table of what
each traffic source of the script saw in each cell: requests sent and
answered, throughput, latency percentiles, and the time the process spent
throttled by its CPU quota. docs/lab.md has an example.

Each --sweep NAME=V1,V2,... adds a dimension to the grid; the cells are
every combination of the values, the first sweep varying slowest. NAME is

	procs    GOMAXPROCS (--procs), from 1 to 1024
	quota    the CPU quota (--cpu-quota), in CPUs, such as 0.5 or 2, or
	         unlimited
	cpus     the machine's CPUs (--cpus), from 1 to 1024
	gogc     the GC percent at start (--gogc), or off
	memlimit the soft memory limit at start (--memlimit), or off
	gc-assist
	         mark assists (--gc-assist), on or off
	other    a parameter of the script, which param(NAME, default) reads
	         (--param NAME=V), converted to the default's type

A grid has at most 10,000 cells. A parameter that no run reads is named
in a warning: sweeping it changes nothing.

Each cell runs seeds 1 to --seeds N, each the run 'schedlab run --seed S'
would do with the cell's settings, the script's '# schedlab:' directives
and the run flags given here. The cells' runs are spread over --jobs
engines on the host's cores; a cell's figures are the same whatever
--jobs is.

The table has a row for each traffic source and cell. sent, answered and
failed are sums over the cell's seeds; req/s is the requests answered
per virtual second, from each source's start to its last reply (summed
over the seeds); p50, p90, p99, p99.9 and max are over the latencies of
every seed together, from an HdrHistogram (three significant digits);
throttled is the virtual time the process spent throttled by
--cpu-quota, the mean over the seeds. A cell with a seed that fails (a
panic, a deadlock, a limit) has '-' for its figures, and the table is
followed by the seed, how the run ended and the command that replays it;
the other cells go on. --json writes the report as JSON instead: one
object per cell, with its settings and each source's figures.

--html FILE also writes the report as one HTML page that loads nothing
from the network: for each traffic source, the latency by percentile of
each cell (HdrHistogram's plot: the percentile axis is 1/(1-p) on a log
scale), p99 against the load (the sweep --html-load names; rate, else
the first swept parameter) with a line per GOMAXPROCS, throughput
against GOMAXPROCS with a line per quota, and the table, where each
cell's first seed opens in schedlab's timeline, embedded in the page
(the first 64 cells, runs of at most 100,000 events, 16 MB in all).
The file is checked before the grid runs.

A progress bar is drawn on stderr when stderr is a terminal. Ctrl-C
(SIGINT) starts no more runs and prints the cells done before it.

Exit status: 0 when every cell ran, 1 when a cell failed, no run started
traffic or the page cannot be written, 2 for a bad command line or a
script that cannot be read or loaded, 130 when SIGINT ended the lab.`

// labRunFlags are the flags of `schedlab run` that the lab passes on to
// every run (and --param, which it handles itself).
var labRunFlags = []string{"procs", "cpu-quota", "cpu-period", "cpus", "gogc", "memlimit", "gc-cycle", "gc-assist", "print", "preempt", "costs", "sched", "startup", "perturb", "net-latency", "max-steps", "max-goroutines", "max-time", "timeout"}

// labCmd is `schedlab lab` in host h: parse the command line, prepare the
// lab, run it (SIGINT ends it early when the process is its own), print
// the report.
func labCmd(h cli.Host, args []string, stdout, stderr io.Writer) int {
	cfg, f, code := parseLab(args, stdout, stderr)
	if cfg == nil {
		return code
	}
	l, err := lab.New(*cfg)
	var ce *lab.CompileError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintln(stderr, ce.Text)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "schedlab lab: %v\n", err)
		return 2
	}
	opt := lab.RunOptions{Jobs: f.jobs}
	// The page's file is opened before the grid runs, so that one that
	// cannot be written is said before anything runs.
	var (
		outs      cli.Outputs
		page      *cli.Output
		timelines *labhtml.Timelines
	)
	if f.html != "" {
		outs.Input(cfg.Script, "the script")
		if page, err = outs.Open("--html", f.html); err != nil {
			fmt.Fprintf(stderr, "schedlab lab: %v\n", err)
			return 1
		}
		defer outs.Abort() // after Commit, nothing
		timelines = labhtml.NewTimelines()
		opt.Curves, opt.Trace = true, timelines
	}
	if h.OwnsProcess {
		cancel, stop := cli.CatchInterrupt()
		defer stop()
		opt.Stop = cancel
	}
	progress, finish := progressBar(stderr, l.Runs(), "lab")
	opt.Progress = progress
	report := l.Run(opt)
	finish()
	for _, w := range report.Warnings() {
		fmt.Fprintf(stderr, "schedlab lab: warning: %s\n", w)
	}
	if f.json {
		err = report.WriteJSON(stdout)
	} else {
		err = report.WriteTable(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab lab: %v\n", err)
		return 2
	}
	if page != nil {
		err = labhtml.Write(page, report, labhtml.Options{Load: f.load, Timelines: timelines, Replay: l.Replay})
		if err == nil {
			err = outs.Commit()
		}
		if err != nil {
			fmt.Fprintf(stderr, "schedlab lab: writing the page: %v\n", err)
			return 1
		}
	}
	switch {
	case report.Interrupted:
		return cli.ExitInterrupted
	case report.Failed() > 0 || !report.Tabulated():
		return 1
	}
	return 0
}

// labOptions are the flags of `schedlab lab` that are not the lab's
// Config.
type labOptions struct {
	jobs int    // --jobs
	json bool   // --json
	html string // --html
	load string // --html-load, settled by labhtml.Load
}

// parseLab parses the command line of `schedlab lab` and reads the
// script. It returns nil and the exit status when the command ends here:
// with its help, or a bad command line.
func parseLab(args []string, stdout, stderr io.Writer) (cfg *lab.Config, f labOptions, code int) {
	cfg = &lab.Config{}
	fs := labFlags(cfg, &f)
	files, err := cli.ParseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(stdout, labSynopsis, labHelpText, fs)
		return nil, f, 0
	}
	if err == nil && (f.jobs < 0 || f.jobs > maxJobs) {
		err = fmt.Errorf("--jobs %d: out of range, want 0 (one per CPU) to %d", f.jobs, maxJobs)
	}
	if err == nil && len(files) != 1 {
		err = fmt.Errorf("want one script, got %d", len(files))
	}
	if err == nil && f.load != "" && f.html == "" {
		err = errors.New("--html-load without --html: it names the x axis of the page's p99 chart")
	}
	if err == nil && f.html != "" {
		f.load, err = labhtml.Load(cfg.Sweeps, f.load)
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab lab: %v\nusage: %s (see 'schedlab lab -h')\n", err, labSynopsis)
		return nil, f, 2
	}
	// The run flags given, to pass on (--param's were gathered as given).
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "param" && slices.Contains(labRunFlags, f.Name) {
			cfg.RunFlags = append(cfg.RunFlags, lab.Flag{Name: f.Name, Value: f.Value.String()})
		}
	})
	cfg.Script = files[0]
	if cfg.Src, err = lang.ReadScript(cfg.Script); err != nil {
		fmt.Fprintf(stderr, "schedlab lab: %v\n", err)
		return nil, f, 2
	}
	if f.jobs < 1 {
		f.jobs = goruntime.NumCPU()
	}
	return cfg, f, 0
}

// labFlags returns the flag set of `schedlab lab`, bound to cfg and f:
// its own flags, then the run flags it passes on.
func labFlags(cfg *lab.Config, f *labOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("schedlab lab", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Func("sweep", "add `NAME=V1,V2,...` to the grid: procs, quota (CPUs, or unlimited) or a parameter of the script (repeat the flag for each)", func(v string) error {
		sw, err := lab.ParseSweep(v)
		if err != nil {
			return err
		}
		cfg.Sweeps = append(cfg.Sweeps, sw)
		return nil
	})
	fs.IntVar(&cfg.Seeds, "seeds", 1, fmt.Sprintf("run seeds 1 to `N` in each cell, from 1 to %d", lab.MaxSeeds))
	fs.BoolVar(&f.json, "json", false, "write the report as JSON, one object per cell, for machines")
	fs.StringVar(&f.html, "html", "", "also write the report as an HTML page with charts and each cell's timeline to `FILE`, to open in a browser")
	fs.StringVar(&f.load, "html-load", "", "the swept parameter `NAME` on the x axis of the page's p99 chart (default rate, else the first swept parameter)")
	fs.IntVar(&f.jobs, "jobs", 0, "do `N` runs at once, each in an engine of its own (0: one per CPU)")
	defaults := cli.NewSettings()
	defaults.RegisterFlags(fs, labRunFlags...)
	passParams(fs, func(v string) { cfg.RunFlags = append(cfg.RunFlags, lab.Flag{Name: "param", Value: v}) })
	return fs
}

// passParams defines --param on fs for a command that passes it on to
// `schedlab run`: it may be given many times, and each, once run's own
// flag has checked it, goes to pass as given.
func passParams(fs *flag.FlagSet, pass func(v string)) {
	params := flag.NewFlagSet("", flag.ContinueOnError)
	cli.NewSettings().RegisterFlags(params, "param")
	check := params.Lookup("param")
	fs.Func("param", check.Usage, func(v string) error {
		if err := check.Value.Set(v); err != nil {
			return err
		}
		pass(v)
		return nil
	})
}

func labHelp(w io.Writer) { labCmd(cli.Host{}, []string{"-h"}, w, io.Discard) }
