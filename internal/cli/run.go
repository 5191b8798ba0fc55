package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/internal/latency"
	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace"
	"github.com/schedlab/schedlab/trace/exectrace"
)

// RunSynopsis is the one-line usage of `schedlab run`.
const RunSynopsis = "schedlab run [flags] script.star"

// runHelp is the text of `schedlab run -h` between the synopsis and the
// flags.
const runHelp = `Run runs a Starlark experiment on the simulated Go scheduler. The top
level of the script is the main goroutine G1 on P0; spawn(f) starts a
goroutine. When the top level returns the program ends, as in Go. The
program's print output goes to stdout; a panic, a deadlock report and the
list of goroutines still alive at the end go to stderr.

With --trace, stdout carries the text trace instead: a header line with
the trace format version and the settings of the run (procs, seed,
preempt, then any limit that was set), then one line per scheduling event
(virtual time, P, M, G, event, details), with the program's own output
inline. The same script, flags and seed always give the same bytes.

A script sets its own default flags with comment lines at its top, before
the first line that is neither blank nor a comment:

	# schedlab: --procs=4 --trace

Flags on the command line override them. Flags may come before or after
the script's name. Flags are written -flag or --flag, and -flag=value or
-flag value.

--trace-format=json makes --trace write JSON lines instead, one object per
event, the program's output included. --trace-states adds a GoStatus
event for every change of a goroutine's status (casgstatus), such as
_Grunning→_Gwaiting, to every view of the trace. Under --startup=go the
text trace folds runtime.main's start-up, the events before main.main's
first statement, into one line (# start-up: N events folded ...);
--trace-startup prints them instead. --chrome-trace, --timeline and
--go-trace also write the run to a file, as a Chrome trace (for Perfetto
or chrome://tracing), as a self-contained HTML page, or as a Go execution
trace in Go 1.26's format, which go tool trace opens (go tool trace
FILE) with the goroutines' Starlark stacks; they do not change what
stdout shows, and a directive cannot set them. --gctrace prints on
stderr, as each GC cycle ends, the line a Go program prints with
GODEBUG=gctrace=1. --schedtrace D prints on stderr, every D of virtual
time, the line a Go program prints with GODEBUG=schedtrace=X; with
--scheddetail it prints the state of every P, M and G instead, as
GODEBUG=scheddetail=1 does. With either flag, a run
that dies of a deadlock or a panic prints one detailed dump in its
report, where Go prints it. docs/trace-format.md describes every format.

The limits end the run with a diagnosis on stderr and exit status 2.
Two are the host's and on by default: --timeout, wall-clock time,
defaults to 1m, and --max-memory, the memory the whole process holds (the
Go heap and goroutine stacks), to 4GiB; the others are off unless set.

An output file is never an input of the run (the script or a module it
loads) nor another output's file, and is written to a temporary file
renamed into place when the run ends, so that no run leaves half a file.
With --check-determinism, the files are those of the first run.

Ctrl-C (SIGINT) stops the run as a limit does: the diagnosis
"interrupted (SIGINT)", the goroutine dump, and the trace files up to that
point; a second Ctrl-C kills the process. A call that goes on past a limit
or an interrupt for 500ms (one builtin call cannot be stopped halfway)
ends the process with the diagnosis and the dump, and writes no files.

Exit status: 0 when main returns (even with goroutines still alive), 2
for a panic, a deadlock, a limit or a bad flag, 1 when the script cannot
be read or loaded, 130 when SIGINT stopped the run.`

// Run is `schedlab run` in a process shared with other work (Host{}.Run):
// the golden-file harness, explore's replay check and the tests run
// scripts with it.
func Run(args []string, stdout, stderr io.Writer) int {
	return Host{}.Run(args, stdout, stderr)
}

// Run is `schedlab run` in host h: args are the arguments after "run". It
// writes the program's output (or the trace) to stdout and errors to
// stderr, and returns the exit status.
func (h Host) Run(args []string, stdout, stderr io.Writer) int {
	// First the command line alone: find the script, and report a bad
	// flag before reading any file.
	fs := newFlagSet(NewSettings())
	files, err := ParseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printRunHelp(stdout, fs)
		return 0
	}
	if err != nil {
		return usageError(stderr, err.Error())
	}
	switch len(files) {
	case 0:
		return usageError(stderr, "no script named")
	case 1:
	default:
		return usageError(stderr, fmt.Sprintf("want one script, got %d: %s", len(files), strings.Join(files, " ")))
	}
	filename := files[0]
	src, err := lang.ReadScript(filename)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab run: %v\n", err)
		return 1
	}

	// Then the script's directives, overridden by the command line.
	s, err := settingsFor(filename, src, args)
	if err == nil {
		err = stallsNeedSchedule("run", s)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 2
	}
	return runScript(h, filename, src, s, stdout, stderr)
}

// RunFlags returns the flags of `schedlab run`, every setting's, bound to
// fresh settings: what another command's flag of the same name must be
// (the REPL's are these; cmd/schedlab's tests compare them).
func RunFlags() *flag.FlagSet { return newFlagSet(NewSettings()) }

// newFlagSet returns a flag set of the run flags, bound to s. It reports
// nothing itself: Run prints errors and help.
func newFlagSet(s *Settings) *flag.FlagSet {
	fs := flag.NewFlagSet("schedlab run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s.register(fs)
	return fs
}

// ParseInterspersed parses args with fs, letting flags come after the
// positional arguments too (`schedlab run x.star --trace`), and returns
// the positional arguments.
func ParseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// stallsNeedSchedule is the error of `schedlab CMD` given --stalls=on
// without a schedule to answer the stalls: only a replayed schedule (check
// prints one) says when a thread loses its CPU.
func stallsNeedSchedule(cmd string, s *Settings) error {
	if s.Stalls && s.Choices == nil {
		return fmt.Errorf("schedlab %s: --stalls=on answers thread stalls in a schedule: give it with --choices or --schedule (schedlab check prints both)", cmd)
	}
	return nil
}

// settingsFor returns the settings for running the script filename: the
// defaults, then the script's directives, then the command-line args.
// Its errors name `schedlab run`; settingsForCmd's name another command.
func settingsFor(filename string, src []byte, args []string) (*Settings, error) {
	return settingsForCmd("run", filename, src, args)
}

// settingsForCmd is settingsFor for `schedlab CMD`, whose name its errors
// about the command line carry.
func settingsForCmd(cmd, filename string, src []byte, args []string) (*Settings, error) {
	s := NewSettings()
	fs := newFlagSet(s)
	s.dir = filepath.Dir(filename) // a directive's --costs FILE is next to its script
	for _, d := range directives(src) {
		err := fs.Parse(d.args)
		if errors.Is(err, flag.ErrHelp) {
			err = errors.New("-h is not a run flag")
		}
		if err == nil && fs.NArg() > 0 {
			err = fmt.Errorf("unexpected argument %q: a directive holds only flags", fs.Arg(0))
		}
		if err == nil {
			fs.Visit(func(f *flag.Flag) {
				if slices.Contains(fileFlags, f.Name) && err == nil {
					err = fmt.Errorf("-%s writes a file; give it on the command line", f.Name)
				}
				if f.Name == "schedule" && err == nil {
					err = errors.New("-schedule reads a schedule of one run; give it on the command line")
				}
			})
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: schedlab directive: %v", filename, d.line, err)
		}
	}
	s.dir = ""
	if _, err := ParseInterspersed(fs, args); err != nil {
		return nil, fmt.Errorf("schedlab %s: %v", cmd, err) // cannot happen: the command parsed args already
	}
	fs.Visit(func(f *flag.Flag) { s.set[f.Name] = true })
	if !s.set["procs"] && (s.CPUQuota > 0 || s.CPUs > 0) {
		// Go's default GOMAXPROCS on the machine's CPUs, under a
		// container's limit.
		cpus := s.CPUs
		if cpus == 0 {
			cpus = MaxProcs
		}
		s.Procs = runtime.DefaultGOMAXPROCS(cpus, s.CPUQuota)
	}
	if err := s.loadSchedule(src); err != nil {
		return nil, fmt.Errorf("schedlab %s: %v", cmd, err)
	}
	return s, nil
}

// runScript runs the script with settings s in host and returns the
// exit status.
func runScript(host Host, filename string, src []byte, s *Settings, stdout, stderr io.Writer) int {
	// The script and its modules are compiled first: they are the inputs
	// that no output file may overwrite (output.go).
	prog, err := lang.Compile(filename, src, lang.Options{})
	if err != nil {
		io.WriteString(stderr, lang.FormatCompileError(err))
		return lang.ExitLoad
	}
	if s.CheckDeterminism {
		return checkDeterminism(host, prog, s, stdout, stderr)
	}
	opts := host.Options(s, filename, stdout, stderr)

	// The trace writers of the run, each finished when it ends. The
	// files come first, so that one that cannot be created stops the run
	// before anything is written.
	h := s.Header()
	outs, sinks, goTrace, err := s.openOutputs(prog, h)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab run: %v\n", err)
		return 1
	}
	if exit := opts.OnOverrun; exit != nil {
		// The command's own process: a call that outlasts a limit ends
		// it, and SIGINT stops the run as a limit does.
		opts.OnOverrun = func(le *runtime.LimitError, report []byte) {
			outs.Abort() // a trace cut in the middle of a call is no trace
			exit(le, report)
		}
		cancel, stop := CatchInterrupt()
		defer stop()
		opts.Cancel = cancel
	}
	var text *trace.Text
	if s.Trace {
		var w interface {
			sink
			Flush() error
		}
		switch s.TraceFormat {
		case "json":
			w = flusher{trace.NewJSON(stdout, h)}
		default:
			text = trace.NewText(stdout, h)
			w = textSink{text}
		}
		sinks = append(sinks, w)
		opts.PrintsInTrace = true
		// The trace is buffered: flush it before anything reaches
		// stderr, so that on a terminal a panic shows up after the
		// events that led to it.
		opts.Stderr = flushFirst{w, stderr}
	}

	// Go's gctrace lines go to stderr as each cycle ends, after the trace
	// that leads to them (gcMarkTermination prints them).
	if s.GCTrace {
		addGCTrace(&opts)
	}

	// Go's schedtrace lines go to stderr as they are due, after the trace
	// that leads to them; they read the Machine's state, which lang hands
	// over before the first event. When the run dies, Go prints one
	// detailed dump in its report (startpanic_m); crashDump puts it there.
	if s.SchedTrace > 0 || s.SchedDetail {
		// It comes first: its lines show the state before the event that
		// makes them due, so they must be out before the trace's line of
		// that event.
		st := trace.NewSchedTrace(opts.Stderr, s.SchedTrace, s.SchedDetail)
		opts.OnStart = func(m *runtime.Machine) {
			st.Attach(m)
			m.OnAdvance(st.Advance)
		}
		sinks = append([]sink{flusher{st}}, sinks...)
		opts.Stderr = &crashDump{w: opts.Stderr, st: st}
	}

	// The Go execution trace's stacks are the goroutines' Starlark
	// backtraces, which lang gives once the Machine exists.
	if goTrace != nil {
		onStart := opts.OnStart
		opts.OnStart = func(m *runtime.Machine) {
			if onStart != nil {
				onStart(m)
			}
			goTrace.SetStacks(lang.GoTraceStacks(m))
		}
	}

	var machine *runtime.Machine
	if s.Stats {
		onStart := opts.OnStart
		opts.OnStart = func(m *runtime.Machine) {
			if onStart != nil {
				onStart(m)
			}
			machine = m
		}
	}

	if text != nil {
		s.foldStartup(text, &opts)
	}

	tracers := make([]runtime.Tracer, len(sinks))
	for i, w := range sinks {
		tracers[i] = w
	}
	opts.Tracer = runtime.MultiTracer(tracers...)
	opts.Warnings = opts.Stderr // after the trace that leads to them
	res := prog.Run(opts)
	code := res.ExitCode
	if machine != nil {
		writeStats(opts.Stderr, machine)
	}
	if r, ok := opts.Chooser.(*runtime.Replay); ok {
		if err := r.Err(); err != nil {
			fmt.Fprintf(opts.Stderr, "schedlab run: warning: the schedule does not fit this run: %v; the run went its own way after it\n", err)
		}
	}
	if lang.IsInterrupt(res) {
		code = ExitInterrupted
	}
	return finishOutputs(outs, sinks, code, stderr)
}

// addGCTrace makes the run of opts print Go's gctrace=1 line of each GC
// cycle on opts.Stderr (--gctrace).
func addGCTrace(opts *lang.Options) {
	gt := trace.NewGCTrace(opts.Stderr)
	onStart := opts.OnStart
	opts.OnStart = func(m *runtime.Machine) {
		if onStart != nil {
			onStart(m)
		}
		m.OnGCCycle(gt.Cycle)
	}
}

// openOutputs checks the output files of s against the inputs of prog and
// each other, and opens them (output.go), each with its trace writer; the
// Go execution trace's writer is also returned, for its stacks. On an
// error nothing is left behind.
func (s *Settings) openOutputs(prog *lang.Program, h trace.Header) (*Outputs, []sink, *exectrace.Writer, error) {
	outs := &Outputs{}
	for i, f := range prog.Files() {
		what := "the script"
		if i > 0 {
			what = "a module the script loads"
		}
		outs.Input(f, what)
	}
	var sinks []sink
	var goTrace *exectrace.Writer
	for _, out := range []struct {
		flag, file string
		open       func(io.Writer, trace.Header) closer
	}{
		{"-chrome-trace", s.ChromeTrace, func(w io.Writer, h trace.Header) closer { return trace.NewChrome(w, h) }},
		{"-timeline", s.Timeline, func(w io.Writer, h trace.Header) closer { return trace.NewTimeline(w, h) }},
		{"-go-trace", s.GoTrace, func(w io.Writer, h trace.Header) closer {
			goTrace = exectrace.New(w, exectrace.Options{Procs: s.Procs, GenerationEvents: goTraceGenerationEvents})
			return goTrace
		}},
	} {
		if out.file == "" {
			continue
		}
		f, err := outs.Open(out.flag, out.file)
		if err != nil {
			outs.Abort()
			return nil, nil, nil, err
		}
		sinks = append(sinks, fileSink{out.open(f, h), f})
	}
	return outs, sinks, goTrace, nil
}

// finishOutputs finishes every trace writer of a run that ended with exit
// status code and renames the files into place; a writer that failed
// makes the status 1 if it was 0, and leaves its file as it was.
func finishOutputs(outs *Outputs, sinks []sink, code int, stderr io.Writer) int {
	for _, w := range sinks {
		if err := w.finish(); err != nil {
			fmt.Fprintf(stderr, "schedlab run: writing the trace: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	if err := outs.Commit(); err != nil {
		fmt.Fprintf(stderr, "schedlab run: writing the trace: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// goTraceGenerationEvents, if positive, cuts --go-trace files into
// generations of that many events, for the tests of generation changes.
var goTraceGenerationEvents = 0

// A sink is a trace writer that must be finished when the run ends.
type sink interface {
	runtime.Tracer
	finish() error
}

// A flushTracer is a trace writer that needs a Flush (text, JSON lines).
type flushTracer interface {
	runtime.Tracer
	Flush() error
}

// flusher is the sink of a flushTracer.
type flusher struct{ flushTracer }

func (f flusher) finish() error { return f.Flush() }

// textSink is the sink of the text trace: Close writes the start-up
// events it still holds, if main.main never began (trace.Text.FoldStartup).
type textSink struct{ *trace.Text }

func (t textSink) finish() error { return t.Close() }

// foldStartup makes tw, the text trace of a run with settings s, fold
// runtime.main's start-up into one line, under --startup=go without
// --trace-startup: the Machine tells tw when main.main begins
// (runtime.Machine.OnMain). It chains opts.OnStart, so it must come after
// any setting of it that does not.
func (s *Settings) foldStartup(tw *trace.Text, opts *lang.Options) {
	if s.Startup != "go" || s.TraceStartup {
		return
	}
	tw.FoldStartup()
	onStart := opts.OnStart
	opts.OnStart = func(m *runtime.Machine) {
		if onStart != nil {
			onStart(m)
		}
		m.OnMain(tw.MainStart)
	}
}

// A closer is a trace writer that needs a Close (Chrome, timeline).
type closer interface {
	runtime.Tracer
	Close() error
}

// fileSink is a closer writing to an output file of its own.
type fileSink struct {
	closer
	f *Output
}

// finish ends the trace; the file is committed (or dropped) with the
// other outputs of the run. A file whose trace failed is dropped.
func (s fileSink) finish() error {
	if err := s.Close(); err != nil {
		s.f.Abort()
		return fmt.Errorf("%s: %v", s.f.Name(), err)
	}
	return nil
}

// flushFirst is a writer that finishes writing a buffered trace before
// each write.
type flushFirst struct {
	t interface{ Flush() error }
	w io.Writer
}

func (f flushFirst) Write(p []byte) (int, error) {
	f.t.Flush() // an error is remembered by the writer and reported at the end
	return f.w.Write(p)
}

// crashDump is the stderr of a run with --schedtrace or --scheddetail. A
// Go program that dies of a fatal error or an unrecovered panic with
// either set prints a detailed schedtrace dump (startpanic_m calls
// schedtrace(true)): after the "fatal error: ..." line, before the
// "panic: ..." line. The first thing lang writes to stderr is its report
// of how the run ended, so crashDump looks at that first write only and
// inserts the dump where Go has it.
type crashDump struct {
	w    io.Writer
	st   *trace.SchedTrace
	seen bool // the first write went by
}

func (c *crashDump) Write(p []byte) (int, error) {
	if c.seen {
		return c.w.Write(p)
	}
	c.seen = true
	switch {
	case bytes.HasPrefix(p, []byte("fatal error: ")):
		line := len(p)
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			line = i + 1
		}
		if n, err := c.w.Write(p[:line]); err != nil {
			return n, err
		}
		c.st.Crash()
		n, err := c.w.Write(p[line:])
		return line + n, err
	case bytes.HasPrefix(p, []byte("panic: ")):
		c.st.Crash()
	}
	return c.w.Write(p)
}

// usageError reports a bad command line: the error, then the synopsis and
// where to find help. It returns the exit status 2, as the flag package
// does.
func usageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "schedlab run: %s\nusage: %s (see 'schedlab run -h')\n", msg, RunSynopsis)
	return 2
}

// printRunHelp prints the help of `schedlab run`.
func printRunHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n\nFlags:\n", RunSynopsis, runHelp)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// RunHelp writes the help of `schedlab run` to w, as `schedlab run -h`
// prints it.
func RunHelp(w io.Writer) {
	printRunHelp(w, newFlagSet(NewSettings()))
}

// writeStats writes --stats: each traffic source's table line, or a line
// that says there was none.
func writeStats(w io.Writer, m *runtime.Machine) {
	rows := lang.TrafficRows(m)
	if len(rows) == 0 {
		fmt.Fprintln(w, "schedlab: --stats: the run started no traffic")
		return
	}
	fmt.Fprintln(w, "latency of each traffic source, virtual time:")
	latency.WriteTable(w, rows)
}
