// One run of a script: goroutines as Starlark threads, and steps.
//
// Every goroutine of a run, G1 included, is a starlark.Thread whose code
// runs inside the engine's runtime.Func for its G. The G holds its
// *goroutine in G.Data (goroutineOfG), so a builtin finds the goroutine
// that calls it as the G its run's Machine runs now (goroutineOf), and a
// goroutine dump finds the Starlark stack of every G. Since the engine
// runs exactly one G's code at a time, the Starlark threads never run
// concurrently.
//
// Starlark code takes virtual time: a costs profile (Options.Costs,
// runtime.Costs) gives a step a cost, and the goroutine tells its G how
// many steps it ran (G.RanSteps, in account): at every builtin call, so
// that what the builtin does happens at the goroutine's exact time, and
// every quantum of steps (G.StepBudget), so that a goroutine on another P
// can catch up. That is how goroutines on several Ps run in parallel, and
// how plain values that two of them share race. With the zero profile
// (nil) code takes no time, and a goroutine's code between two builtin
// calls runs in one instant.
//
// Steps are also what preemption and the limits are counted in:
//
//   - The time slice and its preemption are the engine's
//     (runtime/steps.go, after sysmon's retake): with steps that take
//     time it is sysmon's 10ms of virtual time; with steps that take none
//     (the zero profile) it is SliceSteps steps of a P, at whose end the
//     G is preempted to the global queue (preemption on) or its
//     preemption is requested (off). With preemption off, a G that runs
//     WedgeSteps steps after its request without a call has wedged the
//     cooperative scheduler, and the run ends. The goroutine only tells
//     its G what it ran (RanSteps), asks how far it may run
//     (G.StepBudget), and at the end of that budget lets the engine
//     decide (G.StepsSpent).
//   - With preemption off (Go before 1.14, or GODEBUG=asyncpreemptoff=1)
//     only a call honours a pending request: a builtin call (in caller)
//     and a Starlark function call stand for the stack check in a Go
//     function's prologue (G.Morestack, newstack's stackPreempt). While a
//     request is pending the thread stops at every step (arm sets
//     checking, stackCheck): a step deeper in the call stack than the one
//     before begins a function's body. A loop without calls never sees
//     the request. Starlark's own builtins (len, range, str, ...) are not
//     checks, as most are not calls in Go.
//   - MaxSteps bounds the steps of all goroutines together.
//
// The counts are kept exact with thread.OnMaxSteps: a thread's step limit
// is always set (arm, setLimit) to the first step at which the engine's
// budget, MaxSteps or the call-depth check runs out, and the steps a G
// has run are added up and charged (account) at every builtin call. A
// builtin that may give up the processor runs its engine call inside
// blocking, which accounts before it and arms after it. The run is no
// Tracer, so with tracing off the engine builds no events at all.
//
// A run is built in one place, whoever drives it. RunFile and Program.Run
// (runMain) and every world of a REPL Session (newWorld) make the run's
// state with newRun and then call start, which makes the Machine from the
// run's Options (machineConfig) and G1; every goroutine's thread, G1's
// and the spawned ones', and G1's fresh thread for each REPL statement,
// comes from newThread. Both drivers catch a broken invariant of the
// engine with catchInternal. So a change to how a run is configured, to
// the threads' hooks or to what a Starlark step costs is made here once,
// for both; session.go keeps only what a session adds to a run: items,
// undo, stepping and replay.

package lang

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

// threadsMax is how many threads of goroutines that returned a run keeps
// for the next spawns (threadput), as the engine keeps coroFreeMax
// coroutines.
const threadsMax = 1024

// run is the state of one script run, shared by its goroutines.
type run struct {
	opts     Options
	stdout   io.Writer
	m        *runtime.Machine
	names    starlark.StringDict // what a script's code is compiled and run with: lang's builtins, Options.Predeclared, and parkedUniverse's others (overrun.go)
	root     string              // the directory tree load() is confined to
	mainPath string              // the script's path, as its positions name it
	modules  map[string]*module  // by path

	// The hooks of every thread of the run (see newGoroutine).
	loadFn       func(thread *starlark.Thread, module string) (starlark.StringDict, error)
	printFn      func(thread *starlark.Thread, msg string)
	onMaxStepsFn func(thread *starlark.Thread)
	park         *starlark.Builtin // the run's park, which the leak check recognises
	paramsRead   map[string]bool   // the parameters param() was asked for
	// wrapGoroutine, if set, wraps the Func of every spawned goroutine
	// (the REPL's: a goroutine that fails reports it and exits, and the
	// world goes on).
	wrapGoroutine func(runtime.Func) runtime.Func

	perturbed    bool                          // Options.Perturb may preempt at safe points
	printSyscall bool                          // a printed line is a write(2) (Options.Print under Options.Costs)
	warnedNs     bool                          // the warning about a bare small int as a duration was given (smallDuration)
	smallNs      map[posKey]bool               // calls whose duration is an int literal below 1000 (findSmallDurations)
	sharedWhy    string                        // why goroutines may share a changing plain value, "" if they cannot (sharedPlainState)
	cleanCalls   map[lineCol][]cleanCall       // calls whose frame a state key can write out (findCleanCalls)
	stepKinds    map[string][]runtime.StepKind // by file, the kind of the statement on each line (findStepKinds)
	kindFile     string                        // the file stepKindAt looked up last
	kindLines    []runtime.StepKind            // and its kinds by line
	compiling    bool                          // Compile's run: it notes what any Run may need (the step kinds)
	atCall       *starlark.Builtin             // with a Tracker, the builtin whose safe point atCallG is at (AppendStateKey)
	atCallG      *goroutine
	cleanSeen    []cleanSeen      // cleanAt's last answer by frame
	steps        uint64           // steps of all goroutines, as of the last account
	calls        map[callName]any // with a Tracker, each builtin's Call as Touch takes it (callKey)
	recent       [8]recentCall    // the calls callKey answered last, looked at before calls
	recentNext   int              // the entry of recent to replace next

	stopped   atomic.Pointer[runtime.LimitError] // the host limit (wall clock, memory) that stopped the run
	call      atomic.Int32                       // where the run's goroutine is, for an overrun: callNone, callParked, callDumping (overrun.go)
	endMu     sync.Mutex                         // guards ended and overrunBy, and is held while an overrun reads the run (overrun.go)
	ended     bool                               // the run is over: no overrun report any more
	overrunBy time.Time                          // when an overrun gives up waiting for the run to park, from its first look
	mu        sync.Mutex                         // guards alive and the goroutines' threads, which stop cancels
	alive     []*goroutine                       // goroutines still alive, whose threads stop cancels; gr.slot indexes it
	threads   []*starlark.Thread                 // threads whose goroutine returned, for the next spawns (threadput)
	done      *starlark.Thread                   // the thread of a goroutine not started yet, or whose own is in threads: it never runs (doneThread)
}

func newRun(opts Options) *run {
	r := &run{
		opts:         opts,
		stdout:       opts.Stdout,
		modules:      make(map[string]*module),
		perturbed:    opts.Perturb.PreemptProb > 0 || opts.Perturb.PCTDepth > 0 || opts.Perturb.Stalls || opts.Chooser != nil,
		printSyscall: opts.Print.syscall(opts.Costs),
	}
	if r.stdout == nil {
		r.stdout = io.Discard
	}
	r.loadFn = r.load
	r.printFn = func(_ *starlark.Thread, msg string) { r.print(r.current(), msg) }
	r.onMaxStepsFn = func(*starlark.Thread) { r.current().onMaxSteps() }
	// One map, sized once: the universe's parked builtins (shared by
	// every run), then lang's builtins and Options.Predeclared over them.
	// A REPL session's globals are these names but the parked ones
	// (newWorld).
	r.names = make(starlark.StringDict, len(parkedUniverse)+len(builtins)+builtinsMore+len(opts.Predeclared))
	for k, v := range parkedUniverse {
		r.names[k] = v
	}
	r.bindBuiltins(r.names)
	for k, v := range opts.Predeclared {
		r.names[k] = v
	}
	return r
}

// machineConfig returns the configuration of the run's Machine: the
// engine's side of the run's Options, with tracer receiving its events.
// It is the one place where Options become a runtime.Config.
func (r *run) machineConfig(tracer runtime.Tracer) runtime.Config {
	opts := r.opts
	return runtime.Config{
		Procs:         opts.Procs,
		Seed:          opts.Seed,
		NoPreempt:     !opts.Preempt,
		Tracer:        tracer,
		MaxGoroutines: opts.MaxGoroutines,
		MaxTime:       opts.MaxTime,
		Perturb:       opts.Perturb,
		Costs:         opts.Costs,
		Quantum:       opts.Quantum,
		SliceSteps:    opts.SliceSteps,
		WedgeSteps:    opts.WedgeSteps,
		TraceStates:   opts.TraceStates,
		Sched:         opts.Sched,
		NetLatency:    opts.NetLatency,
		CPUQuota:      opts.CPUQuota,
		CPUPeriod:     opts.CPUPeriod,
		CPUs:          opts.CPUs,
		Chooser:       opts.Chooser,
		ChooseStalls:  opts.ChooseStalls,
		RuntimeMain:   opts.RuntimeMain,
		GOGC:          opts.GOGC,
		MemoryLimit:   opts.MemoryLimit,
		GCCycle:       opts.GCCycle,
		GCNoAssist:    opts.GCNoAssist,
	}
}

// start sets up the run on a new Machine: it makes the Machine with
// machineConfig and tracer, hands it to Options.OnStart, and starts G1,
// the goroutine it returns (bound to its G at once, so that views of the
// first events find it), whose function is body run on G1's thread.
// Nothing has run yet when it returns; the caller drives the Machine
// (runMain to its end with Machine.Run, a Session's world Step by Step)
// and closes it. It is the single construction of a run's Machine and
// main goroutine, shared by RunFile, Program.Run and the REPL's Session:
// what every run needs from its thread and machine goes here, or in
// machineConfig and newThread, never into one of the callers.
func (r *run) start(tracer runtime.Tracer, body func(main *goroutine) error) *goroutine {
	r.m = runtime.NewMachine(r.machineConfig(tracer))
	if r.opts.OnStart != nil {
		r.opts.OnStart(r.m)
	}
	main := r.newGoroutine("main", nil)
	main.bind(r.m.Start(main.main(func() error { return body(main) })))
	return main
}

// newThread returns a new Starlark thread for a goroutine of the run,
// with the run's hooks, and the run as its thread-local, which the
// universe's builtins that park the run read (threadRun, overrun.go).
// The hooks are the run's own, shared by all its threads: they find
// their goroutine as the G the run's Machine runs now, so that a thread
// costs no closures. Every thread of a run that runs code is made here:
// each goroutine's (newGoroutine) and the fresh one a REPL statement runs
// on (world.renewThread); the done thread, which never runs, has no
// thread-local (idleThread).
func (r *run) newThread(name string) *starlark.Thread {
	th := r.idleThread(name)
	th.SetLocal(runKey, r)
	return th
}

// idleThread is newThread without the thread-local.
func (r *run) idleThread(name string) *starlark.Thread {
	return &starlark.Thread{
		Name:       name,
		Load:       r.loadFn,
		Print:      r.printFn,
		OnMaxSteps: r.onMaxStepsFn,
	}
}

// catchInternal runs f, which drives the run's Machine, and returns the
// broken invariant of the engine that f panicked with (a throw on the
// scheduler's side, outside any goroutine), or nil. It lets a run end
// with an internal error in schedlab's words rather than crash the host
// with a Go stack trace; runMachine and the Session's driver both drive
// under it.
func catchInternal(f func()) (ie *runtime.InternalError) {
	defer func() {
		if v := recover(); v != nil {
			var ok bool
			if ie, ok = v.(*runtime.InternalError); !ok {
				ie = &runtime.InternalError{Msg: fmt.Sprint(v)}
			}
		}
	}()
	f()
	return nil
}

// print writes one print() line: to Stdout, and as an EvPrint event when
// there is a tracer (only as the event with PrintsInTrace). When
// Options.Print makes it a system call, gr makes the write(2), and the
// line goes out as it starts.
func (r *run) print(gr *goroutine, s string) {
	r.writeOut(gr, func() {
		if r.opts.Tracer != nil {
			text := s
			if strings.HasSuffix(text, "\n") {
				text += "\n" // the text trace adds a newline only when there is none
			}
			gr.g.Emit(runtime.EvPrint, text)
		}
		if r.opts.Tracer == nil || !r.opts.PrintsInTrace {
			io.WriteString(r.stdout, s+"\n")
		}
	})
}

// write writes s as it is (printf, println): to Stdout, and as an EvPrint
// event when there is a tracer (only as the event with PrintsInTrace).
func (r *run) write(gr *goroutine, s string) {
	r.writeOut(gr, func() {
		if r.opts.Tracer != nil {
			gr.g.Emit(runtime.EvPrint, s)
		}
		if r.opts.Tracer == nil || !r.opts.PrintsInTrace {
			io.WriteString(r.stdout, s)
		}
	})
}

// writeOut puts gr's printed line out with out: at once, or, when
// Options.Print makes it a system call, as the write(2) it is in Go, which calls out as
// the system call starts (runtime.G.WriteStdout): after the work fmt does
// before it, and so after a line that another G wrote meanwhile.
func (r *run) writeOut(gr *goroutine, out func()) {
	if !r.printSyscall || gr == nil {
		out()
		return
	}
	gr.blocking(func(g *runtime.G) { g.WriteStdout(out) })
}

// timeout ends the run at the wall-clock limit.
func (r *run) timeout() { r.stop(r.timeoutError()) }

// stop ends the run at a limit of the host's (the wall clock, memory). It
// runs on another goroutine than the run's (a timer's, the memory
// watchdog's): it only sets flags that the run's goroutine reads, and
// cancels the threads, which the interpreter checks between instructions.
// The first limit reached wins.
func (r *run) stop(le *runtime.LimitError) {
	if !r.stopped.CompareAndSwap(nil, le) {
		return
	}
	r.m.Interrupt(le)
	r.mu.Lock()
	for _, gr := range r.alive {
		gr.thread.Cancel(le.Msg)
	}
	r.mu.Unlock()
	r.armOverrun(le) // in case one call outlasts the stop
}

func (r *run) timeoutError() *runtime.LimitError {
	t := r.opts.Timeout
	return &runtime.LimitError{What: "wall time", Msg: fmt.Sprintf("wall-clock timeout of %v reached (--timeout=%v)", t, t)}
}

// A goroutine is the language's side of one G: its Starlark thread, the
// function it runs, and the count of its steps.
type goroutine struct {
	run    *run
	g      *runtime.G
	id     int64
	name   string
	fn     starlark.Callable // the function it runs; nil for main
	args   starlark.Tuple    // and its arguments, for the leak check
	kwargs []starlark.Tuple
	thread *starlark.Thread // its own from its first run (threadstart), else the run's done thread (doneThread)
	task   Task             // its task value (&gr.task), allocated with the goroutine

	parent   int64              // the goroutine that spawned it, 0 for main
	site     starlark.CallFrame // the call of spawn, in the parent
	spawning *goroutine         // the child it is creating, during its spawn (for the GoCreate's entry stack)

	counted    uint64              // thread.Steps already added to run.steps
	limitAt    uint64              // the step limit arm set: the first step at which a budget runs out
	checking   bool                // preemption off and a request pending: every step looks for a call (onMaxSteps)
	checkDepth int                 // while checking, the call depth at the last step
	limit      *runtime.LimitError // a step limit this goroutine ran into
	overflowed bool                // it went more than maxCallDepth calls deep
	stack      starlark.CallStack  // the stack at the error that ended it
	ended      bool                // its function returned (or failed)
	slot       int                 // its index in run.alive, -1 once forgotten
}

// newGoroutine makes the goroutine that will run fn. Main (fn nil) gets
// its thread at once, since a REPL session cancels it between Steps; any
// other goroutine gets its own when it first runs (threadstart): until
// then it holds the run's done thread, which never runs, as the engine's
// G holds no coroutine (coroFor). A goroutine waiting in a queue is its
// function, its arguments and its state, so a million queued hold no
// thread, and the threads of those that returned serve those that start.
func (r *run) newGoroutine(name string, fn starlark.Callable) *goroutine {
	gr := &goroutine{run: r, name: name, fn: fn}
	gr.task.gr = gr
	r.mu.Lock()
	if fn == nil {
		gr.takeThread()
	} else {
		gr.thread = r.doneThread()
	}
	gr.slot = len(r.alive)
	r.alive = append(r.alive, gr)
	r.mu.Unlock()
	return gr
}

// threadstart gives gr, which is about to run its function for the first
// time, a thread of its own in place of the done thread (newGoroutine).
// Executed only by gr's goroutine.
func (gr *goroutine) threadstart() {
	r := gr.run
	if gr.thread != r.done {
		return // main's, given at once
	}
	r.mu.Lock()
	gr.takeThread()
	r.mu.Unlock()
}

// takeThread gives gr a thread (threadget: a returned goroutine's, or a
// new one), cancelled if the run has stopped. r.mu must be held.
func (gr *goroutine) takeThread() {
	r := gr.run
	th := r.threadget()
	gr.thread = th
	if le := r.stopped.Load(); le != nil {
		th.Cancel(le.Msg)
	}
}

// doneThread returns the run's done thread, made at its first use: the
// thread of every goroutine that has not started or whose own thread
// went back to threads (threadput). It never runs, and so never has a
// frame: every view of such a goroutine (its backtrace, the leak check's
// walk of what it holds) finds no stack. r.mu must be held.
func (r *run) doneThread() *starlark.Thread {
	if r.done == nil {
		r.done = r.idleThread("")
	}
	return r.done
}

// threadget returns a thread for a new goroutine: one that a goroutine
// that returned left (threadput), or a new one (newThread). r.mu must be
// held.
func (r *run) threadget() *starlark.Thread {
	n := len(r.threads)
	if n == 0 {
		return r.newThread("")
	}
	th := r.threads[n-1]
	r.threads[n-1] = nil
	r.threads = r.threads[:n-1]
	// As newThread makes it: no steps, no limit, not cancelled (a stop
	// between its last goroutine's return and threadput may have
	// cancelled it; takeThread cancels it again if the run stopped).
	th.Steps = 0
	th.SetMaxExecutionSteps(math.MaxUint64) // a new thread's once it has run
	th.Uncancel()
	return th
}

// threadput keeps the thread of gr, a spawned goroutine whose function
// returned without an error, for a goroutine spawned later (threadget):
// its stack of the interpreter's frames has grown already, so the next
// goroutine's calls allocate no frame, as the engine's finished
// coroutines keep their host stacks (coroFor). gr keeps instead the
// run's done thread, which never runs: like a thread whose function
// returned, it has no frames, so every view of a dead goroutine (its
// backtrace in a trace or a dump) is what it was. At most threadsMax are
// kept (100,000 goroutines released at once need not leave 100,000
// threads); the others are left to the collector. r.mu must be held.
func (r *run) threadput(gr *goroutine) {
	if len(r.threads) >= threadsMax {
		return
	}
	r.threads = append(r.threads, gr.thread)
	gr.thread = r.doneThread()
	gr.counted = 0 // the done thread's Steps
}

// bind ties gr to its G, once the engine has made it.
func (gr *goroutine) bind(g *runtime.G) {
	if gr.g == g {
		return
	}
	gr.g = g
	gr.id = g.ID()
	g.Data = gr
}

// forget drops the thread of a goroutine that ended or was never made.
func (gr *goroutine) forget() {
	r := gr.run
	r.mu.Lock()
	if i := gr.slot; i >= 0 {
		last := r.alive[len(r.alive)-1]
		r.alive[i], last.slot = last, i
		r.alive[len(r.alive)-1] = nil
		r.alive = r.alive[:len(r.alive)-1]
		gr.slot = -1
	}
	r.mu.Unlock()
}

// main returns the runtime.Func of the goroutine, a closure of gr and
// body that runs them (runOn): main's, a timer's goroutine's, a wrapped
// one's. A plain spawn needs none (spawned).
func (gr *goroutine) main(body func() error) runtime.Func {
	return func(g *runtime.G) error { return gr.runOn(g, body) }
}

// spawned is the runtime.Func of a goroutine that calls its function with
// its arguments, unwrapped: it finds its goroutine in G.Data, which
// G.GoData set when the engine made the G, so such a spawn makes no
// closure (spawn).
func spawned(g *runtime.G) error { return goroutineOfG(g).runOn(g, nil) }

// runOn runs gr on G g: body on the goroutine's thread, or when body is
// nil the call of its function with its arguments, and turns an error
// into the outcome the engine reports. Executed only by gr's goroutine.
func (gr *goroutine) runOn(g *runtime.G, body func() error) error {
	gr.bind(g)
	gr.threadstart()
	gr.arm()
	var err error
	if body != nil {
		err = body()
	} else {
		_, err = starlark.Call(gr.thread, gr.fn, gr.args, gr.kwargs)
	}
	return gr.exit(err)
}

// exit ends the goroutine's function with err, the Starlark error it
// returned, if any. A step or time limit is returned as the engine's
// LimitError, anything else as a PanicError.
func (gr *goroutine) exit(err error) error {
	if err != nil {
		// The stack first: the time of the last steps may let other
		// goroutines run, or the run end, before account returns.
		gr.stack = errorStack(err)
		if gr.stack == nil {
			gr.stack = gr.thread.CallStack()
		}
	}
	gr.account()
	gr.ended = true
	gr.forget()
	if err == nil {
		if gr.fn != nil { // not main, whose thread a REPL session renews
			r := gr.run
			r.mu.Lock()
			r.threadput(gr)
			r.mu.Unlock()
		}
		return nil
	}
	if gr.limit != nil {
		return gr.limit
	}
	if le := gr.run.stopped.Load(); le != nil {
		return le
	}
	var le *runtime.LimitError
	if errors.As(err, &le) {
		return le
	}
	var ee *starlark.EvalError
	msg := err.Error()
	if errors.As(err, &ee) {
		msg = ee.Msg
	}
	if gr.overflowed || msg == starlarkStackOverflow {
		return &PanicError{Goroutine: gr.id, Msg: stackOverflowMsg, Fatal: true}
	}
	return &PanicError{Goroutine: gr.id, Msg: msg, Fatal: isFatal(err), Hint: runtimeHint(msg)}
}

// errorStack returns the stack of the innermost Starlark error in err's
// chain (an error in a loaded module is wrapped by the load statement's).
func errorStack(err error) starlark.CallStack {
	var stack starlark.CallStack
	for err != nil {
		if ee, ok := err.(*starlark.EvalError); ok {
			stack = ee.CallStack
		}
		err = errors.Unwrap(err)
	}
	return stack
}

// account adds the steps the goroutine ran since the last account to the
// run's total and tells its G (G.RanSteps), which charges their time and
// counts them in its own and its P's time slice. It is called while the G
// still holds its P: before any builtin that may give up the processor
// (blocking), in OnMaxSteps, and when the goroutine ends. It reports
// whether other goroutines ran meanwhile.
func (gr *goroutine) account() bool {
	d := gr.thread.Steps - gr.counted
	if d == 0 {
		return false
	}
	gr.counted = gr.thread.Steps
	gr.run.steps += d
	if gr.run.m.StepsByKind() {
		gr.noteStepKind()
	}
	return gr.g.RanSteps(d)
}

// arm sets the thread's step limit for the budget the engine gives the G
// (G.StepBudget: the quantum, the rest of the P's step-counted time slice,
// or the rest of its steps before the wedge), with setLimit. It is called
// whenever the goroutine (re)gains the processor.
func (gr *goroutine) arm() { gr.setLimit(gr.g.StepBudget()) }

// blocking runs f, an engine call of the goroutine's G that may give up the
// processor (block, yield, sleep, work, a syscall, a spawn): the steps the
// goroutine ran before it are accounted first, while it still holds its P,
// and its step limit is armed again after it, once it runs again. Every
// builtin that may give up the processor makes its call of the engine
// through blocking.
func (gr *goroutine) blocking(f func(g *runtime.G)) {
	gr.run.unparkFor() // list(ch) receives inside a universe builtin's call
	gr.account()
	f(gr.g)
	gr.arm()
}

// setLimit sets the thread's step limit at the first step where a budget
// runs out: left, the engine's (StepBudget, StepsSpent), MaxSteps, and the
// call-depth check. With preemption off and a request pending, the thread
// stops at every step to look for a call (checking).
func (gr *goroutine) setLimit(left uint64) {
	r := gr.run
	if max := r.opts.MaxSteps; max > 0 {
		left = min(left, max-min(max, r.steps))
	}
	left = min(left, depthCheckSteps) // look at the call depth now and then
	limit := uint64(math.MaxUint64)
	if left < limit-gr.thread.Steps {
		limit = gr.thread.Steps + left
	}
	limit = max(limit, 1)
	gr.limitAt = limit
	gr.checking = !r.opts.Preempt && gr.g.PreemptRequested()
	if gr.checking {
		// A request is pending: the next call's prologue honours it.
		// Look at every step for one (onMaxSteps).
		gr.checkDepth = gr.thread.CallStackDepth()
		limit = min(limit, gr.thread.Steps+1)
	}
	gr.thread.SetMaxExecutionSteps(limit)
}

// stackCheck is a step of a goroutine whose preemption was requested with
// preemption off (arm set checking): a step that begins a Starlark
// function's body, deeper in the call stack than the step before, is that
// function's prologue, whose stack check preempts the goroutine
// (G.Morestack, as newstack does when it sees stackPreempt). Any other
// step only moves the check on to the next step. It reports whether it
// dealt with the step; at the limit arm set it leaves the step to
// onMaxSteps.
func (gr *goroutine) stackCheck() bool {
	th := gr.thread
	if th.Steps >= gr.limitAt {
		return false
	}
	if d := th.CallStackDepth(); d <= gr.checkDepth {
		gr.checkDepth = d
		th.SetMaxExecutionSteps(th.Steps + 1)
		return true
	}
	gr.blocking(func(g *runtime.G) { g.Morestack() })
	return true
}

// onMaxSteps runs when a budget set by arm runs out. The limits of the
// host's and of Starlark's (the call depth, MaxSteps) are the language's;
// the time slice and the wedge are the engine's (G.StepsSpent, which
// mirrors sysmon's retake in steps).
func (gr *goroutine) onMaxSteps() {
	r := gr.run
	if gr.checking && gr.stackCheck() {
		return
	}
	hostYield() // js/wasm: a Starlark loop gives the timeout's timer a turn (host_js.go)
	gr.account()
	if gr.thread.CallStackDepth() > maxCallDepth {
		gr.overflow()
		return
	}
	if n := r.opts.MaxSteps; n > 0 && r.steps >= n {
		gr.fail(&runtime.LimitError{What: "steps", Msg: fmt.Sprintf("step limit of %d reached (--max-steps=%d)", n, n)})
		return
	}
	left, le := gr.g.StepsSpent()
	if le != nil {
		gr.fail(le) // wedged: a loop without calls, with preemption off
		return
	}
	gr.setLimit(left)
}

// fail ends the goroutine's Starlark code with a limit: the thread is
// cancelled, and exit reports le rather than the cancellation.
func (gr *goroutine) fail(le *runtime.LimitError) {
	if gr.limit == nil {
		gr.limit = le
	}
	gr.thread.SetMaxExecutionSteps(math.MaxUint64)
	gr.thread.Cancel(le.Msg)
}

// alive reports whether the goroutine's G is still this goroutine (the
// engine reuses dead Gs) and not dead.
func (gr *goroutine) alive() bool {
	return gr.g != nil && gr.g.ID() == gr.id && gr.g.Status() != runtime.Gdead && !gr.ended
}

// state is the task's state attribute.
func (gr *goroutine) state() string {
	if !gr.alive() {
		return runtime.Gdead.String()
	}
	return gr.g.Status().String()
}

// waitReason is the task's wait_reason attribute.
func (gr *goroutine) waitReason() string {
	if !gr.alive() {
		return ""
	}
	return gr.g.WaitReason()
}

// goroutineOf returns the goroutine whose thread calls builtin b of run r.
// Every builtin calls it, so it is also where a builtin call is a safe
// point for the engine's perturbations.
func (r *run) goroutineOf(thread *starlark.Thread, b *starlark.Builtin) (*goroutine, error) {
	return caller(r.m, thread, b)
}

// caller returns the goroutine whose thread calls builtin b: the G that
// Machine m runs now, which must be running that thread's code (a builtin
// of one run called from another run's thread, or from none, is refused).
func caller(m *runtime.Machine, thread *starlark.Thread, b *starlark.Builtin) (*goroutine, error) {
	if m != nil {
		if gr := goroutineOfG(m.Current()); gr != nil && gr.thread == thread {
			// The steps before the call take their time first, so that
			// what the builtin does happens at the goroutine's own time.
			again := gr.account()
			if !gr.run.opts.Preempt && gr.g.Morestack() {
				// A builtin is a Go function: its prologue's stack
				// check honours a pending preemption request.
				again = true
			}
			if gr.run.perturbed {
				if m.Tracking() {
					gr.run.atCall, gr.run.atCallG = b, gr
				}
				gr.g.SafePoint()
				gr.run.atCall = nil
				again = true
			}
			if again {
				gr.arm()
			}
			if m.Tracking() {
				m.Touch(gr.run.callKey(b), runtime.AccessRead)
			}
			return gr, nil
		}
	}
	return nil, fmt.Errorf("%s: called outside a schedlab goroutine", b.Name())
}

// current returns the goroutine running now, for the threads' hooks.
func (r *run) current() *goroutine { return goroutineOfG(r.m.Current()) }

// goroutineOfG returns the goroutine of G g, or nil.
func goroutineOfG(g *runtime.G) *goroutine {
	if g == nil {
		return nil
	}
	gr, _ := g.Data.(*goroutine)
	return gr
}

// A PanicError is a goroutine's unrecovered Starlark error: Go's panic.
// It is the Err of a runtime.Result whose Outcome is Panicked.
type PanicError struct {
	Goroutine int64  // the goroutine that failed
	Msg       string // the error, as Go's panic prints it
	Fatal     bool   // a fatal error rather than a panic (sync: unlock of unlocked mutex)
	Hint      string // the Starlark way of a Go habit that failed (see runtimeHint), or ""
}

func (e *PanicError) Error() string { return e.Msg }

// header returns the lines that open the report of e, as Go's panic
// prints them ("panic: msg" or "fatal error: msg"), then the hint, if
// any, and the blank line before the goroutine.
func (e *PanicError) header() string {
	word := "panic"
	if e.Fatal {
		word = "fatal error"
	}
	if e.Hint != "" {
		return word + ": " + e.Msg + "\n" + e.Hint + "\n\n"
	}
	return word + ": " + e.Msg + "\n\n"
}

// A Call is a builtin call as a footprint key (runtime.Tracker): the
// builtin's name, after its receiver's type and a dot for a method
// ("chan.send", "mutex.lock", "print"). The engine records what the
// objects it implements see of the call; a Tracker decides what the call
// itself touches, and takes a call it does not know as touching
// everything.
type Call string

// callOf returns b's Call.
func callOf(b *starlark.Builtin) Call {
	if recv := b.Receiver(); recv != nil {
		return Call(recv.Type() + "." + b.Name())
	}
	return Call(b.Name())
}

// A callName is what callOf makes a Call of: the receiver's type, if b is
// a method, and b's name.
type callName struct {
	recv, name string
	method     bool
}

// A recentCall is a call callKey answered.
type recentCall struct {
	k callName
	c any
}

// callKey returns callOf(b) as the any that Machine.Touch takes, made once
// a run: with a Tracker every builtin call touches its Call, and making
// it anew allocates twice (the name, the interface). A loop calls a few
// builtins over and over, whose names are the same strings each time, so
// the last eight are compared first: two equal strings at one address
// compare without reading them, where the map hashes them both.
func (r *run) callKey(b *starlark.Builtin) any {
	k := callName{name: b.Name()}
	if recv := b.Receiver(); recv != nil {
		k.recv, k.method = recv.Type(), true
	}
	for i := range r.recent {
		if e := &r.recent[i]; e.c != nil && e.k == k {
			return e.c
		}
	}
	c, ok := r.calls[k]
	if !ok {
		c = callOf(b)
		if r.calls == nil {
			r.calls = map[callName]any{}
		}
		r.calls[k] = c
	}
	r.recent[r.recentNext] = recentCall{k, c}
	r.recentNext = (r.recentNext + 1) % len(r.recent)
	return c
}
