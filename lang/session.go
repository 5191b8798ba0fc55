// A REPL session: a world whose main goroutine runs one statement at a time.
//
// A Session is the language's side of `schedlab repl`. It owns a world: a
// Machine, the Starlark globals, and G1, whose function is a loop: park for
// the host with wait reason "repl input" (G.ParkHost), take the statement
// the host readied it with (Machine.ReadyHost), run it in the globals,
// park again. While G1 waits for input and nothing else can run the run is
// Idle, not deadlocked. Readying G1 puts it on the global queue, as the
// netpoller readies a goroutine blocked reading its standard input, so a
// statement first lets the Ps run what they have queued ahead of G1.
//
// Every Machine.Step runs on the world's Driver (driver.go). The host (the
// REPL) hands it work and waits. The driver steps toward a goal: until G1
// waits for input again (a statement), until n more scheduling events have
// happened (:step), or until nothing but G1 could run (:run). For :step
// the world's tracer pauses the driver right after the nth event, in the
// middle of the action that emitted it, so that :step counts events, not
// engine actions; the host reads the scheduler's state while the driver
// is paused and later resumes it toward its next goal. The playground
// steps a script's run with the same Driver.
//
// A session never loses its state. An error in a statement is the
// statement's result and G1 goes on. A goroutine other than G1 that
// panics reports Go's panic text and its backtrace and exits, and the
// world goes on without it (a Go program would exit). What cannot be
// recovered in place — a statement that deadlocks the world, or one
// interrupted while G1 is blocked, since nothing can make G1's blocking
// call return — is undone: the world is rebuilt from its log. The log
// holds everything the host did to the world (each statement's source,
// how many Steps it took, where an interrupt cancelled a statement), and
// the simulation is deterministic, so replaying the log up to the failing
// statement, with output discarded, gives back exactly the world before it.
//
// An interrupt (Ctrl-C) is taken between Steps: it stops :step and :run;
// in a statement it cancels G1's Starlark thread, so that a busy loop ends
// with "Starlark computation cancelled" at its next instruction, and, if
// G1 is blocked or the interrupt is the second one, it undoes the
// statement. G1 gets a fresh thread for every statement, since a
// cancelled thread stays cancelled.

package lang

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/schedlab/schedlab/runtime"
)

// WaitReasonInput is G1's wait reason between statements.
const WaitReasonInput = "repl input"

// SessionOptions configure a Session.
type SessionOptions struct {
	// Options: Procs, Seed, Preempt, Stdout (the program's prints),
	// Stderr (reports: deadlocks, other goroutines' panics, undone
	// statements), MaxGoroutines, SliceSteps, WedgeSteps, TraceStates
	// (EvGoStatus events for OnEvent) and Predeclared mean what they
	// mean for RunFile. Tracer, PrintsInTrace,
	// Timeout, MaxTime, MaxSteps, MaxMemory, OnMemoryOverrun, Perturb and
	// OnStart are not used (runOptions drops them).
	Options

	// Root is the directory tree load() is confined to, and the directory
	// statements load from; "" means the current directory.
	Root string

	// OnEvent, if not nil, is called with every scheduling event as it
	// happens, on whichever goroutine runs the engine at that moment,
	// while the host waits for the Session. It is not called while a
	// world is rebuilt. It must not call the Session.
	OnEvent func(ev *runtime.Event)
}

// A Session is a REPL's world and the statements run in it. Its methods
// must be called from one goroutine, except Interrupt.
type Session struct {
	opts SessionOptions
	seed uint64
	root string
	w    *world
	intr atomic.Int32 // interrupts since the current operation began
}

// Stop says how a Session operation ended.
type Stop int

const (
	Reached     Stop = iota // the goal was reached: the statement returned, or n events happened
	Idle                    // nothing but G1, waiting for input, can run
	Interrupted             // Interrupt stopped it; the world is as it was left
	Undone                  // the world could not go on (a deadlock, an interrupt while G1 was blocked, an internal error): it was reported on Stderr and the world is back to where it was before the operation
)

var stopNames = [...]string{"reached", "idle", "interrupted", "undone"}

func (s Stop) String() string {
	if int(s) < len(stopNames) {
		return stopNames[s]
	}
	return fmt.Sprintf("Stop(%d)", int(s))
}

// An ExecResult is how a statement went.
type ExecResult struct {
	Value starlark.Value // an expression's value; nil for a statement
	Err   error          // a compile error, or the error the statement failed with
	Stop  Stop           // Reached, Interrupted (cancelled; Err says so) or Undone
}

// NewSession starts a world: a Machine with opts.Procs Ps and G1 waiting
// for its first statement.
func NewSession(opts SessionOptions) *Session {
	s := &Session{opts: opts, seed: opts.Seed, root: opts.Root}
	if s.root == "" {
		s.root = "."
	}
	if s.opts.Stdout == nil {
		s.opts.Stdout = io.Discard
	}
	if s.opts.Stderr == nil {
		s.opts.Stderr = io.Discard
	}
	s.w = s.newWorld(false)
	return s
}

// Machine returns the Machine of the current world, to read its state
// (Snapshot, Goroutines, Counters, Now) between operations. A Reset or an
// undone operation replaces it.
func (s *Session) Machine() *runtime.Machine { return s.w.m }

// Main returns G1.
func (s *Session) Main() *runtime.G { return s.w.main.g }

// Globals returns the session's global names and values, the builtins
// among them (a REPL chunk has no other predeclared names). The caller
// must not change it.
func (s *Session) Globals() starlark.StringDict { return s.w.globals }

// Seed returns the seed of the current world.
func (s *Session) Seed() uint64 { return s.seed }

// Paused reports whether the world is paused in the middle of an action,
// after the last event a Step asked for.
func (s *Session) Paused() bool { return s.w.drv.Paused() }

// Interrupt asks the operation in progress to stop (Ctrl-C). It may be
// called from any goroutine.
func (s *Session) Interrupt() { s.intr.Add(1) }

// Close ends the world. The Session cannot be used afterwards.
func (s *Session) Close() {
	if s.w != nil {
		s.w.close()
		s.w = nil
	}
}

// Reset replaces the world with a new one, with the session's options and
// the given seed.
func (s *Session) Reset(seed uint64) {
	s.w.close()
	s.seed = seed
	s.w = s.newWorld(false)
}

// Exec runs src as G1 and drives the scheduler until G1 waits for input
// again. src is what was typed at the prompt (one compound statement; an
// expression's value is returned), or, with chunk set, a whole file whose
// statements run in the session's globals (the script of `schedlab repl
// script.star`, :load). A syntax or resolve error is returned without
// touching the world. A statement that fails leaves the globals it
// assigned before failing, like every earlier one.
func (s *Session) Exec(filename string, src []byte, chunk bool) *ExecResult {
	return s.exec(&item{kind: itemExec, filename: filename, src: src, chunk: chunk})
}

// GOMAXPROCS runs runtime.GOMAXPROCS(n) as G1 (procresize, stopping the
// world) and returns the previous number of Ps.
func (s *Session) GOMAXPROCS(n int) (int, *ExecResult) {
	res := s.exec(&item{kind: itemProcs, procs: n})
	prev := 0
	if v, ok := res.Value.(starlark.Int); ok {
		prev, _ = starlark.AsInt32(v)
	}
	res.Value = nil
	return prev, res
}

// Step advances the world by n scheduling events while G1 waits for
// input. It returns Reached with the world paused right after the nth
// event (Paused reports true), Idle if nothing but G1 could run before
// that, or Interrupted.
func (s *Session) Step(n int) Stop {
	if n <= 0 {
		return Reached
	}
	return s.advance(goal{kind: goalEvents, events: n})
}

// Run advances the world until nothing but G1 could run. It returns Idle,
// or Interrupted.
func (s *Session) Run() Stop {
	return s.advance(goal{kind: goalIdle})
}

// advance drives the world toward g, continuing a paused action if there
// is one.
func (s *Session) advance(g goal) Stop {
	w := s.w
	s.intr.Store(0)
	w.flushSteps()
	mark := len(w.log)
	var paused bool
	if w.drv.Paused() {
		paused = w.resume(g)
	} else {
		paused = w.call(func() { w.goal = g; w.stop = w.drive(); w.goal = goal{} })
	}
	if paused {
		return Reached
	}
	switch w.stop {
	case stopIdle:
		return Idle
	case stopInterrupted:
		return Interrupted
	case stopReached:
		return Reached
	}
	s.report(w)
	s.undo(mark)
	return Undone
}

// exec runs one item as G1.
func (s *Session) exec(it *item) *ExecResult {
	if err := s.check(it); err != nil {
		return &ExecResult{Err: err}
	}
	w := s.w
	w.settle()
	s.intr.Store(0)
	w.flushSteps()
	mark := len(w.log)
	w.log = append(w.log, logEntry{kind: logReady, item: it.clone()})
	var readyErr error
	w.call(func() {
		w.goal = goal{kind: goalMain}
		w.cur = it
		if readyErr = w.m.ReadyHost(w.main.g, it); readyErr == nil {
			w.stop = w.drive()
		}
		w.goal = goal{}
	})
	if readyErr != nil {
		fmt.Fprintf(s.opts.Stderr, "schedlab: internal error: %v\n", readyErr)
		s.undo(mark)
		return &ExecResult{Stop: Undone}
	}
	switch w.stop {
	case stopReached:
		res := &ExecResult{Value: it.value, Err: it.err}
		if it.cancelled {
			res.Stop = Interrupted
		}
		return res
	case stopBlocked:
		fmt.Fprintf(s.opts.Stderr, "interrupted while goroutine 1 was blocked (%s)\n", w.main.g.WaitReason())
	default:
		s.report(w)
		fmt.Fprintln(s.opts.Stderr)
	}
	fmt.Fprintln(s.opts.Stderr, "schedlab: the statement is undone; the world is back where it was before it")
	s.undo(mark)
	return &ExecResult{Stop: Undone}
}

// report writes why the world cannot go on: Go's deadlock text and the
// goroutine dump, or the error that ended the run.
func (s *Session) report(w *world) {
	res := w.m.Result()
	switch {
	case w.internal != nil:
		fmt.Fprintf(s.opts.Stderr, "schedlab: internal error: %s\n", w.internal.Msg)
	case res.Outcome == runtime.Running || res.Outcome == runtime.Idle:
		fmt.Fprintf(s.opts.Stderr, "schedlab: internal error: the world stopped while %s\n", res.Outcome)
	default:
		WriteOutcome(s.opts.Stderr, w.m, res)
	}
}

// undo replaces the world with one rebuilt from the first mark entries of
// its log: the world as it was before the operation that failed.
func (s *Session) undo(mark int) {
	old := s.w
	log := old.log[:mark:mark]
	w := s.newWorld(true)
	w.call(func() { w.replay(log) })
	if w.internal != nil {
		// A bug: the log does not replay. Start afresh rather than go on
		// in a world that is not the one the log describes.
		fmt.Fprintf(s.opts.Stderr, "schedlab: internal error: the world cannot be rebuilt (%s); starting a new one\n", w.internal.Msg)
		w.close()
		w = s.newWorld(true)
		log = nil
	}
	w.log = log
	w.loud()
	old.close()
	s.w = w
}

// check parses and resolves it on the host, so that a typo never wakes G1.
func (s *Session) check(it *item) error {
	if it.kind != itemExec {
		return nil
	}
	f, err := parseItem(it)
	if err != nil {
		return err
	}
	globals := s.w.globals
	if expr := soleExpr(f); expr != nil && !it.chunk {
		_, err = resolve.ExprOptions(f.Options, expr, globals.Has, starlark.Universe.Has)
	} else {
		err = resolve.REPLChunk(f, globals.Has, func(string) bool { return false }, starlark.Universe.Has)
	}
	return err
}

// replFileOptions is the dialect, with load binding globally as in SL's
// REPL.
func replFileOptions() *syntax.FileOptions {
	opts := FileOptions()
	opts.LoadBindsGlobally = true
	return opts
}

// parseItem parses the source of it; a syntax error at yield gets the
// gosched hint.
func parseItem(it *item) (*syntax.File, error) {
	src := stripBOM(it.src)
	f, err := replFileOptions().Parse(it.filename, src, 0)
	if err != nil {
		return nil, withGoHints(src, err)
	}
	if err := checkDepth(f); err != nil {
		return nil, err // before anything walks the tree recursively
	}
	if err := checkGoArrow(f, src); err != nil {
		return nil, err
	}
	return f, nil
}

// soleExpr returns the expression of a file that is one expression
// statement, or nil. Mirrors SL's repl.
func soleExpr(f *syntax.File) syntax.Expr {
	if len(f.Stmts) == 1 {
		if stmt, ok := f.Stmts[0].(*syntax.ExprStmt); ok {
			return stmt.X
		}
	}
	return nil
}

// ---- the world ----

// A world is one Machine, its globals and G1, with the Driver that steps
// it and the log it can be rebuilt from.
type world struct {
	s       *Session
	r       *run
	m       *runtime.Machine
	main    *goroutine
	globals starlark.StringDict
	cur     *item     // the item G1 runs, or ran last
	quiet   bool      // starting or replaying: no events for OnEvent, no output
	stderr  io.Writer // reports of other goroutines' panics

	drv      *Driver                // runs the host's work, and pauses it after the last event asked for
	goal     goal                   // what drive steps toward; the host sets it only while the driver waits
	stop     stopReason             // why the last drive returned
	internal *runtime.InternalError // a throw caught by the driver

	log    []logEntry
	nsteps int // Steps since the last log entry
}

// A goal is what the driver steps toward.
type goal struct {
	kind   goalKind
	events int // goalEvents: events still to happen
}

type goalKind uint8

const (
	goalNone   goalKind = iota // finish the action in progress, then stop
	goalMain                   // until G1 waits for input again
	goalEvents                 // until events more events have happened
	goalIdle                   // until nothing but G1 could run
)

type stopReason uint8

const (
	stopReached     stopReason = iota // the goal was reached
	stopIdle                          // nothing but G1, waiting for input, can run
	stopEnded                         // the run ended: a deadlock or an internal error
	stopInterrupted                   // an interrupt stopped :step or :run
	stopBlocked                       // an interrupt found G1 blocked in its statement
)

// An item is one thing G1 runs for the host.
type item struct {
	kind     itemKind
	filename string
	src      []byte
	chunk    bool // a whole file: never printed as an expression
	procs    int  // itemProcs

	// Results, set by G1.
	value     starlark.Value
	err       error
	cancelled bool // an interrupt cancelled its thread
	done      bool // G1 waits for input again
}

type itemKind uint8

const (
	itemExec  itemKind = iota // run src
	itemProcs                 // gomaxprocs(procs)
)

// clone returns a copy of it without results, for the log.
func (it *item) clone() *item {
	return &item{kind: it.kind, filename: it.filename, src: it.src, chunk: it.chunk, procs: it.procs}
}

// A logEntry is one thing the host did to a world.
type logEntry struct {
	kind logKind
	n    int   // logSteps: how many Machine.Step calls
	item *item // logReady: G1 was readied with a copy of this
}

type logKind uint8

const (
	logSteps  logKind = iota // Machine.Step, n times
	logReady                 // Machine.ReadyHost(G1, item)
	logCancel                // G1's thread was cancelled by an interrupt
)

// runOptions returns the Options of the run of a world with the given
// seed: the session's, less what a session does not use (SessionOptions).
func (o *SessionOptions) runOptions(seed uint64) Options {
	opts := o.Options
	opts.Seed = seed
	opts.Tracer, opts.PrintsInTrace = nil, false // the world is the tracer; prints go to Stdout
	opts.Timeout, opts.MaxTime, opts.MaxSteps = 0, 0, 0
	opts.MaxMemory, opts.OnMemoryOverrun = 0, nil // the REPL watches the memory itself
	opts.Perturb, opts.OnStart = runtime.Perturb{}, nil
	return opts
}

// newWorld builds a world on a run made as every run is (run.start) and
// runs G1 until it first waits for input. A quiet world discards its
// output until loud is called.
func (s *Session) newWorld(quiet bool) *world {
	r := newRun(s.opts.runOptions(s.seed))
	r.root = s.root
	w := &world{
		s:      s,
		r:      r,
		quiet:  true,
		stderr: io.Discard,
		drv:    NewDriver(),
		cur:    &item{},
	}
	// What a session adds to the run: output off until loud, goroutines
	// that survive their panics, and statements that load modules
	// compiled on demand (only a file's top level loads, and in a
	// session every top level runs on G1).
	r.stdout = io.Discard
	r.wrapGoroutine = w.survive
	r.loadFn = w.load
	w.globals = make(starlark.StringDict, len(r.names)-len(parkedUniverse))
	for k, v := range r.names {
		if !isParked(k, v) { // a statement sees the universe's own (resolve.REPLChunk)
			w.globals[k] = v
		}
	}
	w.main = r.start(w, w.mainLoop)
	w.m = r.m
	w.call(func() { w.goal = goal{kind: goalMain}; w.stop = w.drive(); w.goal = goal{} })
	if w.stop != stopReached {
		// G1 did not reach its first wait: a bug of the engine.
		panic(&runtime.InternalError{Msg: fmt.Sprintf("G1 did not wait for input at the start: %v", w.m.Result().Err)})
	}
	w.nsteps = 0
	if !quiet {
		w.loud()
	}
	return w
}

// loud turns the world's output on.
func (w *world) loud() {
	w.quiet = false
	w.r.stdout = w.s.opts.Stdout
	w.stderr = w.s.opts.Stderr
}

// close finishes the action in progress and ends the world: its
// goroutines' coroutines and its driver.
func (w *world) close() {
	w.settle()
	w.call(func() { w.m.Close() })
	w.drv.Close()
}

// Event is the world's tracer: it passes the event on and pauses the
// driver after the last event a Step asked for. It runs on the driver's
// goroutine or on a G's coroutine, while the host waits.
func (w *world) Event(ev *runtime.Event) {
	if w.quiet || ev.Kind == runtime.EvPrint {
		return
	}
	if f := w.s.opts.OnEvent; f != nil {
		f(ev)
	}
	if w.goal.kind == goalEvents {
		w.goal.events--
		if w.goal.events <= 0 {
			w.drv.Pause() // the host sets the next goal (resume)
		}
	}
}

// do runs f. A broken invariant of the engine found on the scheduler's
// side (a throw outside any goroutine) ends the world as an internal
// error rather than crashing the host, as it ends a run (catchInternal).
func (w *world) do(f func()) {
	if ie := catchInternal(f); ie != nil {
		w.internal = ie
		w.stop = stopEnded
		w.goal = goal{}
	}
}

// call runs f on the driver (under do) and waits until it returns or
// pauses at an event. It reports whether it paused.
func (w *world) call(f func()) bool {
	return w.drv.Do(func() { w.do(f) })
}

// resume lets a paused driver go on toward g, and waits as call does.
func (w *world) resume(g goal) bool {
	w.goal = g
	return w.drv.Resume()
}

// settle finishes the action a paused driver is in.
func (w *world) settle() {
	for w.drv.Paused() {
		w.resume(goal{kind: goalNone})
	}
}

// flushSteps logs the Steps taken since the last log entry.
func (w *world) flushSteps() {
	if w.nsteps > 0 {
		w.log = append(w.log, logEntry{kind: logSteps, n: w.nsteps})
		w.nsteps = 0
	}
}

// drive steps the Machine toward w.goal. It runs on the driver; the goal
// may change while it is paused in Event.
func (w *world) drive() stopReason {
	cancelled := false
	for {
		switch w.goal.kind {
		case goalNone:
			return stopReached
		case goalMain:
			if w.cur.done {
				return stopReached
			}
		case goalEvents:
			if w.goal.events <= 0 {
				return stopReached
			}
		}
		if n := w.s.intr.Load(); n > 0 && !w.quiet {
			if w.goal.kind != goalMain {
				return stopInterrupted
			}
			if !cancelled {
				cancelled = true
				w.cancelMain()
			}
			if n > 1 || w.main.g.Status() == runtime.Gwaiting {
				return stopBlocked
			}
		}
		ok := w.m.Step()
		w.nsteps++
		if !ok {
			switch {
			case w.m.Done():
				return stopEnded
			case w.goal.kind == goalMain && w.cur.done:
				return stopReached
			case w.goal.kind == goalMain:
				return stopEnded // idle while G1 runs a statement: cannot be
			}
			return stopIdle
		}
	}
}

// cancelMain cancels the Starlark thread of G1's statement, between
// Steps, and logs it.
func (w *world) cancelMain() {
	w.flushSteps()
	w.log = append(w.log, logEntry{kind: logCancel})
	w.cur.cancelled = true
	w.main.thread.Cancel("interrupted")
}

// replay does again what log says was done to a world. It runs on the
// driver of a new, quiet world.
func (w *world) replay(log []logEntry) {
	for _, e := range log {
		switch e.kind {
		case logSteps:
			for range e.n {
				w.m.Step()
			}
		case logReady:
			it := e.item.clone()
			w.cur = it
			if err := w.m.ReadyHost(w.main.g, it); err != nil {
				panic(&runtime.InternalError{Msg: "replay: " + err.Error()})
			}
		case logCancel:
			w.cur.cancelled = true
			w.main.thread.Cancel("interrupted")
		}
	}
}

// mainLoop is G1's function: wait for an item, run it, and again. It
// never returns; Close stops it.
func (w *world) mainLoop(gr *goroutine) error {
	for {
		// The statement's last steps are charged before it is done:
		// charging them can give up the baton (another P's clock is
		// behind, or sysmon preempts G1), and the driver must not stop
		// while G1 still runs.
		gr.account()
		w.cur.done = true
		it, ok := gr.g.ParkHost(WaitReasonInput).(*item)
		if !ok {
			continue // readied by a goroutine's ready(), not by the host: wait again
		}
		w.cur = it
		w.renewThread(gr)
		gr.arm()
		w.runItem(gr, it)
	}
}

// runItem runs it on G1, whose thread is fresh.
func (w *world) runItem(gr *goroutine, it *item) {
	defer func() {
		if gr.limit != nil {
			it.err = gr.limit
			gr.limit = nil
		}
	}()
	if it.kind == itemProcs {
		var prev int
		var err error
		gr.blocking(func(g *runtime.G) { prev, err = g.GOMAXPROCS(it.procs) })
		it.value, it.err = starlark.MakeInt(prev), err
		return
	}
	f, err := parseItem(it)
	if err != nil {
		it.err = err
		return
	}
	if expr := soleExpr(f); expr != nil && !it.chunk {
		v, err := starlark.EvalExprOptions(f.Options, gr.thread, expr, w.globals)
		it.value, it.err = v, err
		if err == nil && v != starlark.None {
			w.globals["_"] = v
		}
		return
	}
	it.err = starlark.ExecREPLChunk(f, gr.thread, w.globals)
}

// renewThread gives G1 a new Starlark thread for the next statement
// (run.newThread), since a cancelled thread stays cancelled.
func (w *world) renewThread(gr *goroutine) {
	r := gr.run
	gr.account()
	th := r.newThread("G" + strconv.FormatInt(gr.id, 10))
	r.mu.Lock()
	gr.thread = th // the timeout reads it
	r.mu.Unlock()
	gr.counted = 0
}

// load is G1's Load: modules are compiled when first loaded, relative to
// the loading file, or to the session's root for a statement.
func (w *world) load(thread *starlark.Thread, name string) (starlark.StringDict, error) {
	r := w.r
	from := thread.CallFrame(0).Pos.Filename()
	if from == "<stdin>" || from == "" {
		from = filepath.Join(r.root, "<stdin>")
	}
	p, err := r.resolveLoad(from, name)
	if err != nil {
		return nil, err
	}
	if r.modules[p] == nil {
		src, err := ReadScript(p)
		if err != nil {
			return nil, err
		}
		if _, err := r.compile(p, src, nil); err != nil {
			return nil, err
		}
	}
	return r.initModule(thread, r.modules[p])
}

// survive wraps a goroutine's function: an error it ends with (a panic, a
// step limit) is reported as Go reports a panic, and the goroutine exits
// normally, so that the world goes on.
func (w *world) survive(f runtime.Func) runtime.Func {
	return func(g *runtime.G) error {
		err := f(g)
		if err == nil {
			return nil
		}
		var pe *PanicError
		var le *runtime.LimitError
		switch {
		case errors.As(err, &pe):
			io.WriteString(w.stderr, pe.header())
		case errors.As(err, &le):
			fmt.Fprintf(w.stderr, "schedlab: %s\n\n", le.Msg)
		default:
			return err
		}
		WriteGoroutine(w.stderr, g)
		fmt.Fprintf(w.stderr, "\nschedlab: goroutine %d exited; a Go program would have ended here, the session goes on\n", g.ID())
		return nil
	}
}
