// Package lab is `schedlab lab`, the latency lab: one script run over a
// grid of settings (GOMAXPROCS, the CPU quota, the script's own
// parameters), each cell over several seeds, and one table of what each
// traffic source saw per cell: requests sent and answered, throughput,
// latency percentiles and the time the process spent throttled.
//
// Start from Config, what the command line asked for; New checks it,
// compiles the script and settles every cell's settings as `schedlab run`
// would (internal/cli's flags, by name); Lab.Run does the runs and
// returns the Report, which writes itself as a table or as JSON.
//
// The runs are a sweep of internal/explore: run i of the sweep is seed
// i mod Seeds + 1 of cell i / Seeds, done by scriptrun's Jobs on the
// host's cores. A cell's latencies are pooled over its seeds in seed
// order into one HdrHistogram summary (internal/latency), so a cell's
// figures are the same bytes whatever the number of jobs and whatever
// order the runs finish in.
//
// For a page of charts (internal/labhtml), RunOptions asks for each
// source's latency curve and for a tracer of each cell's first seed,
// whose events make its timeline.
//
// The files: grid.go, the sweeps and their cartesian product; lab.go, a
// lab's cells and its runs; report.go, pooling, the table and JSON.
package lab

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/explore"
	"github.com/schedlab/schedlab/internal/explore/scriptrun"
	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// A Config is what the command line asks of a lab.
type Config struct {
	Script string // the script's file name
	Src    []byte // its text

	Sweeps []Sweep // the grid, in the order given (--sweep)
	Seeds  int     // seeds 1 to Seeds in each cell (--seeds)

	// RunFlags are the flags of `schedlab run` given to the lab, in the
	// order given: every run of every cell, and every replay command,
	// takes them.
	RunFlags []Flag
}

// A Flag is one run flag as the command line gave it: --Name=Value.
type Flag struct {
	Name, Value string
}

func (f Flag) arg() string { return "--" + f.Name + "=" + f.Value }

// A Lab is a checked Config with its script compiled and each cell's
// options settled, ready to run.
type Lab struct {
	cfg   Config
	grid  *Grid
	prog  *lang.Program
	cells []cellSetup
}

// A cellSetup is what every run of a cell shares.
type cellSetup struct {
	values []string     // one for each sweep
	opts   lang.Options // all but the seed
	procs  int          // the settled --procs, for the replay command
	first  cli.Settings // the settings of its first seed, for RunTracer
}

// New checks cfg and prepares its cells: the grid's bounds, sweeps that
// clash with run flags, the script (compiled once for every run), and
// each cell's settings: the script's directives, then cfg.RunFlags, then
// the cell's values, through the flags of `schedlab run`.
func New(cfg Config) (*Lab, error) {
	if cfg.Seeds < 1 || cfg.Seeds > MaxSeeds {
		return nil, fmt.Errorf("--seeds %d: out of range, want 1 to %d", cfg.Seeds, MaxSeeds)
	}
	grid, err := NewGrid(cfg.Sweeps)
	if err != nil {
		return nil, err
	}
	for _, sw := range cfg.Sweeps {
		for _, f := range cfg.RunFlags {
			if clashes(sw.Name, f) {
				return nil, fmt.Errorf("--sweep %s and %s: give one", sw.Name, f.arg())
			}
		}
	}
	prog, err := lang.Compile(cfg.Script, cfg.Src, lang.Options{})
	if err != nil {
		return nil, &CompileError{Text: strings.TrimSuffix(lang.FormatCompileError(err), "\n")}
	}
	l := &Lab{cfg: cfg, grid: grid, prog: prog}
	for i := range grid.Len() {
		c, err := l.setup(grid.Cell(i))
		if err != nil {
			return nil, err
		}
		l.cells = append(l.cells, c)
	}
	return l, nil
}

// A CompileError is a script that does not load: the text `schedlab
// run` would print for it.
type CompileError struct {
	Text string
}

func (e *CompileError) Error() string { return e.Text }

// clashes reports whether the run flag f sets what the sweep name sets.
func clashes(name string, f Flag) bool {
	if flag := runSweeps[name]; flag != "" {
		return f.Name == flag
	}
	param, _, _ := strings.Cut(f.Value, "=")
	return f.Name == "param" && param == name
}

// cellArgs returns the flags of `schedlab run` that set a cell's values.
func (l *Lab) cellArgs(values []string) []string {
	var args []string
	for k, sw := range l.grid.Sweeps {
		v := values[k]
		if flag := runSweeps[sw.Name]; flag != "" {
			args = append(args, "--"+flag+"="+v)
		} else {
			args = append(args, "--param="+sw.Name+"="+v)
		}
	}
	return args
}

// setup settles the settings of the cell with values.
func (l *Lab) setup(values []string) (cellSetup, error) {
	var args []string
	for _, f := range l.cfg.RunFlags {
		args = append(args, f.arg())
	}
	args = append(args, l.cellArgs(values)...)
	s, err := cli.ScriptSettings(l.cfg.Script, l.cfg.Src, args)
	if err != nil {
		return cellSetup{}, fmt.Errorf("cell %s: %s", cellName(l.settings(values)), strings.TrimPrefix(err.Error(), "schedlab run: "))
	}
	// The runs share this process: no watchdog of the process's memory,
	// which would stop every run at once (as explore's).
	s.MaxMemory = 0
	first := *s
	first.Seed = 1
	return cellSetup{values: values, opts: s.Options(nil, nil), procs: s.Procs, first: first}, nil
}

// settings returns a cell's values with the names of their sweeps.
func (l *Lab) settings(values []string) Settings {
	var s Settings
	for k, sw := range l.grid.Sweeps {
		s = append(s, Setting{sw.Name, values[k]})
	}
	return s
}

// Cells returns the number of cells.
func (l *Lab) Cells() int { return len(l.cells) }

// Runs returns the number of runs of the lab: cells times seeds.
func (l *Lab) Runs() int { return len(l.cells) * l.cfg.Seeds }

// RunOptions say how a lab's runs are done.
type RunOptions struct {
	Jobs int // runs at once, each in an engine of its own; less than 1 means 1

	// Progress, if not nil, is called after each run, from the job that
	// did it, with the number of runs done so far.
	Progress func(done int)

	// Stop, if not nil, ends the lab early once it is closed (the
	// command's SIGINT): no run starts after it, and the report has the
	// cells whose runs were all done before the first run not started.
	Stop <-chan struct{}

	// Curves keeps each source's latency curve in the report
	// (Source.Curve), for a plot.
	Curves bool

	// Trace, if not nil, traces the first seed of the cells it wants
	// (for their timelines).
	Trace RunTracer
}

// A RunTracer traces the run of the first seed of the cells of a lab
// that it wants, as `schedlab run` traces the cell's replay command
// (Lab.Replay): its trace writers, in internal/cli and trace, are not
// the lab's. Both calls for one run come from the job that does it,
// and the runs end in no particular order.
type RunTracer interface {
	// Tracer returns the tracer of seed 1 of cell c, a run with the
	// settings s (s.Header() is its traces' header), or nil for none.
	Tracer(c int, s *cli.Settings) runtime.Tracer
	// Done says that the run of cell c that Tracer traced has ended.
	Done(c int)
}

// A runFigures is what one run of a cell came to.
type runFigures struct {
	failure   *Failure        // the run failed; nil if it ended well
	sources   []sourceRun     // each traffic source the run started, in order
	unread    []string        // the parameters it never read
	throttled int64           // virtual ns the process spent throttled
	gc        runtime.GCStats // the heap and the collector at the run's end
}

// A sourceRun is one traffic source in one run.
type sourceRun struct {
	name                   string // "1 :8080": its number in the run and its address
	sent, answered, failed int64
	lat                    []int64 // the answered requests' latencies, ns
	span                   int64   // from its start to its last reply, ns
}

// Run does every run of the lab, opt.Jobs at once, and returns the
// report. The report does not depend on opt.Jobs.
func (l *Lab) Run(opt RunOptions) *Report {
	seeds := l.cfg.Seeds
	rep := &Report{Script: l.cfg.Script, Seeds: seeds, Sweeps: l.grid.Sweeps, Cells: make([]Cell, len(l.cells))}
	// A cell's runs are kept from its first run to its last, when they
	// are pooled: memory for the cells under way, not for every run.
	var (
		mu      sync.Mutex
		pending = make([][]runFigures, len(l.cells)) // by cell, then seed
		left    = make([]atomic.Int64, len(l.cells)) // runs of each cell done
	)
	runsOf := func(c int) []runFigures {
		mu.Lock()
		defer mu.Unlock()
		if pending[c] == nil {
			pending[c] = make([]runFigures, seeds)
		}
		return pending[c]
	}
	newJob := func() func(explore.Run) explore.Result {
		j := scriptrun.New(l.prog)
		return func(r explore.Run) explore.Result {
			c, seed := r.Index/seeds, r.Index%seeds+1
			runs := runsOf(c)
			var tr runtime.Tracer
			if seed == 1 && opt.Trace != nil {
				first := l.cells[c].first
				tr = opt.Trace.Tracer(c, &first)
			}
			res := l.run(j, c, uint64(seed), tr, &runs[seed-1])
			if tr != nil {
				opt.Trace.Done(c)
			}
			if left[c].Add(1) == int64(seeds) {
				// The cell's last run: pool its seeds.
				rep.Cells[c] = l.pool(c, runs, opt.Curves)
				mu.Lock()
				pending[c] = nil
				mu.Unlock()
			}
			return res
		}
	}
	plan := &explore.Plan{Runs: l.Runs(), SeedStart: 1}
	tally := explore.Sweep(plan, newJob, explore.SweepOptions{Jobs: opt.Jobs, Progress: opt.Progress, Stop: opt.Stop})
	// With Stop, the runs before tally.Done were all done; a cell is in
	// the report only if all of its runs were.
	if tally.Interrupted {
		rep.Interrupted = true
		rep.Cells = rep.Cells[:tally.Done/seeds]
	}
	for i, c := range rep.Cells {
		if i == 0 {
			rep.Unread = c.unread
		}
		rep.Unread = intersect(rep.Unread, c.unread)
	}
	return rep
}

// run does seed of cell c with job j and records its figures in f, and
// its events with tr if not nil.
func (l *Lab) run(j *scriptrun.Job, c int, seed uint64, tr runtime.Tracer, f *runFigures) explore.Result {
	opts := l.cells[c].opts
	opts.Seed = seed
	opts.Tracer = tr
	var m *runtime.Machine
	opts.OnStart = func(mm *runtime.Machine) { m = mm }
	res, lres := j.Run(opts)
	f.unread = lres.UnreadParams
	if lres.ExitCode != 0 {
		f.failure = &Failure{Seed: seed, Outcome: string(res.Outcome), Message: res.Message, Replay: l.Replay(c, seed)}
		return res
	}
	if m == nil {
		return res // cannot happen: a run that ended well started
	}
	for i, tr := range m.Traffics() {
		sent, answered, failed := tr.Counts()
		start, end := tr.Span()
		f.sources = append(f.sources, sourceRun{
			name: fmt.Sprintf("%d %s", i+1, tr.Addr()),
			sent: sent, answered: answered, failed: failed,
			lat:  tr.Latencies(),
			span: end - start,
		})
	}
	_, f.throttled = m.Throttling()
	f.gc = m.GCStats()
	return res
}

// Replay returns the command that replays seed of cell c:
// schedlab run --seed S --procs P [--cpu-quota Q] [--cpus N] [--gogc G]
// [--memlimit L] [--gc-assist A] [run flags] [--param NAME=V]... SCRIPT.
func (l *Lab) Replay(c int, seed uint64) string {
	cell := l.cells[c]
	words := []string{"schedlab", "run", "--seed", strconv.FormatUint(seed, 10), "--procs", strconv.Itoa(cell.procs)}
	for k, sw := range l.grid.Sweeps {
		if flag := runSweeps[sw.Name]; flag != "" && sw.Name != SweepProcs {
			words = append(words, "--"+flag, cell.values[k])
		}
	}
	for _, f := range l.cfg.RunFlags {
		if f.Name != "procs" {
			words = append(words, f.arg())
		}
	}
	for k, sw := range l.grid.Sweeps {
		if isParam(sw.Name) {
			words = append(words, "--param", sw.Name+"="+cell.values[k])
		}
	}
	words = append(words, l.cfg.Script)
	for i, w := range words {
		words[i] = explore.ShellQuote(w)
	}
	return strings.Join(words, " ")
}

// intersect returns the names in both a and b, in a's order.
func intersect(a, b []string) []string {
	var both []string
	for _, n := range a {
		if slices.Contains(b, n) {
			both = append(both, n)
		}
	}
	return both
}
