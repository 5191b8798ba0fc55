package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace"
	"github.com/schedlab/schedlab/trace/exectrace"
)

// Views are what one run of a script shows, for a program that shows them
// side by side (the playground): each is the bytes the schedlab command
// prints or writes for the same script and run flags.
type Views struct {
	Stdout   []byte // what `schedlab run FLAGS script` prints on stdout
	Stderr   []byte // and on stderr
	Trace    []byte // what `schedlab run --trace --trace-startup FLAGS script` prints on stdout: every event, a line each
	Timeline []byte // what `--timeline FILE` writes, if asked for
	GoTrace  []byte // what `--go-trace FILE` writes, if asked for
	Code     int    // the exit status of `schedlab run`
	Events   int    // scheduling events (prints not counted), the steps of the run
}

// Want says which of the views that take work RunViews makes.
type Want struct {
	Timeline bool // the HTML timeline
	GoTrace  bool // the Go execution trace
}

// eventCounter counts scheduling events, as the REPL's :step does: prints
// are not steps.
type eventCounter struct{ n int }

func (c *eventCounter) Event(ev *runtime.Event) {
	if ev.Kind != runtime.EvPrint {
		c.n++
	}
}

// RunViews runs the script filename, whose source is src, once with the
// run flags args (as `schedlab run` takes them, without the script's
// name) and returns its views, the timeline and the Go execution trace
// if want says so. The script's directives apply as for `schedlab run`.
// Flags that write files (--timeline, --chrome-trace, --go-trace) and
// --check-determinism are refused, as a bad flag; so are the
// schedtrace flags, whose lines go to stderr. The trace is that of the
// same run: tracing never changes what a run does.
//
// Stdout and Trace are each the stdout of `schedlab run` with and without
// --trace: with the script's own --trace directive both are the trace.
// The text trace never folds runtime.main's start-up (--startup=go), as
// if --trace-startup were given: each of its event lines is one of the
// Events, the steps a stepper takes through the same run.
// The text of a bad flag is the one `schedlab run` prints, and Code is 2.
func RunViews(filename string, src []byte, args []string, want Want, stdout, stderr io.Writer) *Views {
	var out, errb, tr, tl, gt bytes.Buffer
	v := &Views{}
	finish := func() *Views {
		v.Stdout, v.Stderr, v.Trace, v.Timeline, v.GoTrace = out.Bytes(), errb.Bytes(), tr.Bytes(), tl.Bytes(), gt.Bytes()
		return v
	}
	s, err := PageSettings(filename, src, args)
	if err != nil {
		errb.WriteString(err.Error())
		v.Code = 2
		return finish()
	}

	// Output and stderr stream to the caller as they are written, as
	// well as into the views.
	var o, e io.Writer = &out, &errb
	if stdout != nil {
		o = io.MultiWriter(&out, stdout)
	}
	if stderr != nil {
		e = io.MultiWriter(&errb, stderr)
	}
	opts := s.Options(o, e)
	h := s.Header()
	var text flushTracer
	var textTrace *trace.Text // the text trace, folding the start-up as schedlab run's does
	if s.TraceFormat == "json" {
		text = trace.NewJSON(&tr, h)
	} else {
		textTrace = trace.NewText(&tr, h)
		text = textTrace
	}
	count := &eventCounter{}
	tracers := []runtime.Tracer{text, count}
	var page *trace.Timeline
	if want.Timeline {
		page = trace.NewTimeline(&tl, h)
		tracers = append(tracers, page)
	}
	var goTrace *exectrace.Writer
	if want.GoTrace {
		// As runScript makes it: the stacks are the goroutines' Starlark
		// backtraces, which lang gives once the Machine exists.
		goTrace = exectrace.New(&gt, exectrace.Options{Procs: s.Procs, GenerationEvents: goTraceGenerationEvents})
		tracers = append(tracers, goTrace)
		opts.OnStart = func(m *runtime.Machine) { goTrace.SetStacks(lang.GoTraceStacks(m)) }
	}
	if s.GCTrace {
		addGCTrace(&opts) // its lines are stderr's, as schedlab run prints them
	}
	if textTrace != nil {
		s.foldStartup(textTrace, &opts) // after every other setting of opts.OnStart
	}
	opts.Tracer = runtime.MultiTracer(tracers...)
	opts.Warnings = opts.Stderr // as schedlab run says them
	// Prints go to stdout and, as events, to the trace: both views.
	opts.PrintsInTrace = false
	v.Code = 1
	if res := lang.RunFile(filename, src, opts); res != nil {
		v.Code = res.ExitCode
	}
	if textTrace != nil {
		textTrace.Close() // the start-up's events, if main.main never began
	} else {
		text.Flush()
	}
	if page != nil {
		page.Close()
	}
	if goTrace != nil {
		goTrace.Close()
	}
	v.Events = count.n
	if textTrace != nil {
		v.Events -= textTrace.Folded() // the start-up's line is no step
	}
	finish()
	if s.Trace {
		v.Stdout = v.Trace // --trace (a directive) puts the trace on stdout
	}
	return v
}

// PageSettings returns the settings of a run of the script filename with
// the run flags args, as `schedlab run` makes them (defaults, then the
// script's directives, then args), for a program that shows the run
// itself: args name no script, and the flags that write files or
// schedtrace lines are refused. A bad flag's error is the text `schedlab
// run` prints for it, ending in a newline.
func PageSettings(filename string, src []byte, args []string) (*Settings, error) {
	var msg bytes.Buffer
	fs := newFlagSet(NewSettings())
	files, err := ParseInterspersed(fs, args)
	if err == nil && len(files) > 0 {
		err = fmt.Errorf("want only run flags, got %q: the script is the one in the editor", files[0])
	}
	if err != nil {
		usageError(&msg, err.Error())
		return nil, errors.New(msg.String())
	}
	s, err := settingsFor(filename, src, args)
	if err != nil {
		return nil, errors.New(err.Error() + "\n")
	}
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"timeline", s.Timeline != ""}, {"chrome-trace", s.ChromeTrace != ""}, {"go-trace", s.GoTrace != ""},
		{"check-determinism", s.CheckDeterminism}, {"schedtrace", s.SchedTrace > 0}, {"scheddetail", s.SchedDetail},
	} {
		if f.set {
			usageError(&msg, "--"+f.name+" is not available here")
			return nil, errors.New(msg.String())
		}
	}
	return s, nil
}
