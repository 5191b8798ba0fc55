// Stepping a run: the playground's picture at any scheduling event.
//
// A Stepper runs a script as `schedlab run` does (lang.RunFile with the
// same settings) on a goroutine of its own, with a tracer that counts the
// run's scheduling events (not its prints, as the REPL's :step does not;
// nor runtime.main's start-up, which the text trace folds into one line,
// so that step k is the trace's k-th event line) and pauses the run right
// after the event asked for, in the middle of
// the action that emitted it. While it is paused the host reads the
// Machine: the views of :ps and :runq (package views), the event's line of
// the text trace, the output so far. Going forward resumes the run; going
// back replays it from the start, which determinism makes exact: the
// same script, flags and seed give the same events, so event k of a
// replay is event k of the run.
//
// The run is driven by a lang.Driver, as the REPL's Session drives its
// worlds: the tracer pauses it (Driver.Pause) and the host resumes it, so
// that exactly one of them touches the Machine at a time. A stepper that
// is closed before its run ends stops it as SIGINT stops `schedlab run`:
// it closes the run's Options.Cancel and resumes it, and the run ends at
// its next instruction.

package play

import (
	"bytes"
	"math"
	"strings"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/views"
	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace"
)

// A Stepper is one run of a script that can be paused after any event.
// Its methods must be called from one goroutine.
type Stepper struct {
	filename string
	src      []byte
	settings *cli.Settings

	m       *runtime.Machine
	events  int    // scheduling events so far
	target  int    // pause after this many; math.MaxInt for none
	line    string // the text trace's line of the last event
	out     bytes.Buffer
	drv     *lang.Driver  // runs the run; nil before it starts
	cancel  chan struct{} // closed to stop the run (Options.Cancel)
	code    int           // the run's exit status, once done
	done    bool
	closing bool // the host stops the run: no more pauses
	startup bool // in runtime.main's start-up, whose events are not counted
}

// NewStepper returns a stepper for the script with the run flags args,
// paused before its first event. A bad flag or directive is an error
// with the text `schedlab run` prints for it.
func NewStepper(filename string, src []byte, args []string) (*Stepper, error) {
	s, err := cli.PageSettings(filename, src, args)
	if err != nil {
		return nil, err
	}
	return &Stepper{filename: filename, src: src, settings: s, target: 0}, nil
}

// start begins the run; it pauses at the first event past target.
func (st *Stepper) start() {
	st.drv = lang.NewDriver()
	st.cancel = make(chan struct{})
	opts := st.settings.Options(&st.out, &st.out)
	// A stepped run waits for the person looking at it: the wall clock
	// and the memory watchdog are the host's (the page bounds each
	// advance itself, and stops the worker).
	opts.Timeout, opts.MaxMemory, opts.OnMemoryOverrun = 0, 0, nil
	opts.Tracer = st
	// As the text trace folds the start-up (--trace-startup unfolds it),
	// its events are not steps: step 1 is main.main's first event.
	st.startup = st.settings.Startup == "go" && !st.settings.TraceStartup
	opts.OnStart = func(m *runtime.Machine) {
		st.m = m
		m.OnMain(func(int64, int32, int32) { st.startup = false })
	}
	opts.Cancel = st.cancel
	st.ended(!st.drv.Do(func() {
		res := lang.RunFile(st.filename, st.src, opts)
		st.code = res.ExitCode
	}))
}

// Event is the stepper's tracer. It runs on the run's goroutine, while
// the host waits.
func (st *Stepper) Event(ev *runtime.Event) {
	if ev.Kind == runtime.EvPrint || st.closing || st.startup {
		return
	}
	st.events++
	st.line = strings.TrimSuffix(string(trace.AppendText(nil, ev)), "\n")
	if st.events < st.target {
		return
	}
	st.drv.Pause()
}

// ended notes that the run ended, if done: its driver is closed.
func (st *Stepper) ended(done bool) {
	if done {
		st.done = true
		st.drv.Close()
	}
}

// Events returns the number of events so far: where the stepper is.
func (st *Stepper) Events() int { return st.events }

// Done reports whether the run has ended.
func (st *Stepper) Done() bool { return st.done }

// Forward runs n more events, or to the end of the run.
func (st *Stepper) Forward(n int) {
	if st.done || n <= 0 {
		return
	}
	if n > math.MaxInt-st.events {
		st.target = math.MaxInt
	} else {
		st.target = st.events + n
	}
	if st.drv == nil {
		st.start()
		return
	}
	st.ended(!st.drv.Resume())
}

// Close stops the run if it has not ended.
func (st *Stepper) Close() {
	if st.drv == nil || st.done {
		return
	}
	st.closing = true
	close(st.cancel)
	for st.drv.Resume() {
	}
	st.ended(true)
}

// A Picture is the state of a run after some event: what the playground
// draws, and the REPL's :ps, :runq, :ms and :netpoll text of that state.
type Picture struct {
	Step   int               `json:"step"`        // events so far
	Done   bool              `json:"done"`        // the run ended
	Code   int               `json:"code"`        // its exit status, when Done
	Line   string            `json:"line"`        // the text trace's line of the last event
	Output string            `json:"output"`      // the program's output and reports so far (stdout and stderr)
	Time   int64             `json:"time"`        // virtual ns
	Gs     []views.Goroutine `json:"gs"`          // :ps
	Runq   views.Runq        `json:"runq"`        // :runq, and the Ms
	PS     string            `json:"ps"`          // the text of :ps
	RunqT  string            `json:"runqText"`    // of :runq
	MsT    string            `json:"msText"`      // of :ms
	NetT   string            `json:"netpollText"` // of :netpoll
}

// Picture returns the state the stepper is paused in (the state at the end
// when the run is over).
func (st *Stepper) Picture() *Picture {
	p := &Picture{Step: st.events, Done: st.done, Line: st.line, Output: st.out.String()}
	if st.done {
		p.Code = st.code
	}
	if st.m == nil {
		// Before the first event there is no Machine yet.
		p.Gs = []views.Goroutine{}
		p.Runq = views.Runq{Ps: []views.P{}, Global: []int64{}, IdlePs: []int{}, Spinning: []int{}, Ms: []views.M{},
			Netpoll: views.Netpoll{M: -1, Waiting: []views.Waiter{}}}
	} else {
		p.Gs = views.PS(st.m)
		if p.Gs == nil {
			p.Gs = []views.Goroutine{}
		}
		p.Runq = views.RunqOf(st.m.Snapshot())
		p.Time = p.Runq.Time
	}
	var b bytes.Buffer
	views.WritePS(&b, p.Gs, nil)
	p.PS = b.String()
	b.Reset()
	views.WriteRunq(&b, p.Runq, nil)
	p.RunqT = b.String()
	b.Reset()
	views.WriteMs(&b, p.Runq)
	p.MsT = b.String()
	b.Reset()
	views.WriteNetpoll(&b, p.Runq.Netpoll, p.Time)
	p.NetT = b.String()
	return p
}

// Goto returns a stepper paused after event k of the same run: st itself
// moved forward, or, for an earlier event, a replay from the start (st is
// closed then).
func (st *Stepper) Goto(k int) *Stepper {
	if k < st.events {
		st.Close()
		st = &Stepper{filename: st.filename, src: st.src, settings: st.settings}
	}
	st.Forward(k - st.events)
	return st
}
