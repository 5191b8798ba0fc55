package lang

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

// Options configure one run of a script.
type Options struct {
	Procs   int    // GOMAXPROCS at start (--procs); 0 means 1
	Seed    uint64 // the run's one PRNG (--seed)
	Preempt bool   // sysmon preemption on (--preempt=on, the default)

	Stdout io.Writer // the program's print output
	Stderr io.Writer // panics, deadlock reports, the end-of-run summary

	// Warnings, if not nil, receives what a run says about a script that
	// runs but likely means something else, once a run each: a bare int
	// below 1000 given to sleep, work, syscall or a timer, which is that
	// many nanoseconds (schedlab run gives its stderr; explore, nothing).
	Warnings io.Writer

	// Tracer, if not nil, receives every scheduling event. When
	// PrintsInTrace is set, print() output is sent to the tracer only (as
	// runtime.EvPrint events, which the text trace writes inline) and not
	// to Stdout, so that trace and output interleave in one stream.
	Tracer        runtime.Tracer
	PrintsInTrace bool

	// TraceStates sends the Tracer (and a Session's OnEvent) a
	// runtime.EvGoStatus for every change of a goroutine's status, as
	// casgstatus makes it (runtime.Config.TraceStates, --trace-states).
	TraceStates bool

	// Alive lists every goroutine still alive when main returns, on
	// Stderr; without it only the leaked ones are (--alive).
	Alive bool

	// Limits; zero means none.
	MaxSteps      uint64        // Starlark steps over all goroutines (--max-steps)
	MaxGoroutines int           // goroutines alive at once (--max-goroutines)
	MaxTime       int64         // virtual ns (--max-time)
	Timeout       time.Duration // wall-clock time (--timeout)

	// MaxMemory bounds the host memory the run may hold, in bytes: the Go
	// heap's objects and goroutine stacks, process-wide, checked every
	// 10ms by a watchdog (memory.go). Past it the run is stopped as the
	// timeout stops it. A single builtin call that keeps allocating cannot
	// be stopped between instructions; OnMemoryOverrun, if not nil, is
	// called once when the memory goes on growing to half as much again,
	// for a command that can end its process. Zero means no limit.
	MaxMemory       uint64
	OnMemoryOverrun func(le *runtime.LimitError)

	// Cancel, if not nil, stops the run when it is closed, as a limit of
	// the host does: the command closes it on SIGINT. The run ends with
	// outcome Limit and the diagnosis "interrupted (SIGINT)" (IsInterrupt).
	Cancel <-chan struct{}

	// OnOverrun, if not nil, is called when a run stopped by the timeout,
	// Cancel or MaxMemory is still inside one builtin call, which cannot
	// be stopped between instructions: StopGrace after the stop, or when
	// the memory goes on growing. report is what the run would print: the
	// diagnosis, the goroutine dump and a line naming the call. A run
	// still busy elsewhere (in the engine, or in one instruction) is given
	// StopGrace more, and then a report without the dump, which could not
	// be read while the run changes it. It is called on another goroutine
	// than the run's, and is meant to end the process (overrun.go).
	OnOverrun func(le *runtime.LimitError, report []byte)

	// Step budgets, the engine's (runtime.Config, runtime/steps.go); zero
	// means the default. SliceSteps is the number of Starlark steps that
	// stand for Go's 10ms time slice when steps take no time: with
	// Preempt, a P whose goroutines run that many steps without a new
	// dispatch preempts the one running (runtime.DefaultSliceSteps).
	// WedgeSteps is how many steps a goroutine may run when Preempt is
	// off, after its preemption was requested, without a call that would
	// honour the request, before the run ends as wedged
	// (runtime.DefaultWedgeSteps).
	SliceSteps uint64
	WedgeSteps uint64

	// Perturb varies timing and preemption from the seed (schedlab
	// explore); the zero value perturbs nothing. With preemption
	// perturbations, every builtin call is a safe point (G.SafePoint).
	Perturb runtime.Perturb
	// Chooser, if not nil, answers the engine's choice points
	// (runtime.Config.Chooser): schedlab check walks the schedules
	// with it. Every builtin call is then a safe point.
	Chooser runtime.Chooser
	// ChooseStalls makes the Chooser answer thread stalls too
	// (runtime.Config.ChooseStalls, runtime.ChoiceStall).
	ChooseStalls bool

	// Costs is the costs profile that charges virtual time for Starlark
	// steps and for the runtime's own work (runtime.Costs,
	// docs/runtime.md): with it, goroutines on several Ps run their code
	// in parallel on the virtual clock. nil is the zero profile, in which
	// code takes no time. The command passes runtime.DefaultCosts()
	// unless --costs says otherwise.
	Costs *runtime.Costs
	// Quantum is how many steps a goroutine runs before the other Ps
	// catch up with its clock (runtime.Config.Quantum); 0 means
	// runtime.DefaultQuantum.
	Quantum uint64

	// Sched is the scheduler variant (runtime.Config.Sched, --sched);
	// the zero value is Go's own scheduler.
	Sched runtime.Policy

	// NetLatency is the one-way latency of the network between sockets
	// (runtime.Config.NetLatency, --net-latency); 0 is the default.
	NetLatency int64

	// CPUQuota and CPUPeriod are the container's CPU limit in CPUs and
	// its CFS period (runtime.Config.CPUQuota, --cpu-quota,
	// --cpu-period); 0 means none and 100ms.
	CPUQuota  float64
	CPUPeriod int64
	// CPUs is the machine's CPU count (runtime.Config.CPUs, --cpus): at
	// most that many threads run at a time; 0 gives every thread a CPU.
	CPUs int

	// GOGC and MemoryLimit are the GC percent (-1 off) and the soft
	// memory limit in bytes at start (runtime.Config.GOGC and
	// MemoryLimit, --gogc, --memlimit); nil means Go's defaults, 100 and
	// none.
	GOGC        *int32
	MemoryLimit *int64
	// GCCycle is how much of a GC cycle is modelled
	// (runtime.Config.GCCycle, --gc-cycle): runtime.GCInstant, the zero
	// value, or runtime.GCStopTheWorld.
	GCCycle runtime.GCCycle
	// GCNoAssist turns mark assists off (runtime.Config.GCNoAssist,
	// --gc-assist=off); the zero value keeps Go's assists.
	GCNoAssist bool

	// Print says what a call of print, println or printf costs
	// (--print): the zero value, PrintAuto, makes it the system call it
	// is in Go when the costs profile charges a write (the default
	// profile does), and free under a profile that does not (nil, the
	// zero profile).
	Print PrintMode

	// Params are the script's parameters by name, as text: what
	// param(name, default) returns, converted to the default's type
	// (--param name=value).
	Params map[string]string
	// RuntimeMain starts the run as runtime.main does, with the runtime's
	// own goroutines and the locked thread of its init before the
	// script's main (runtime.Config.RuntimeMain, --startup=go, the
	// command's default); false starts main alone on M0 and P0
	// (--startup=bare), the zero Options' start.
	RuntimeMain bool

	// For embedders and tests: Predeclared names are added to the
	// builtins (and override them).
	Predeclared starlark.StringDict

	// OnStart, if not nil, is called with the run's Machine right after
	// it is made, before G1 exists and before the first event, for views
	// that read the scheduler's state (--schedtrace snapshots). It must
	// not run the Machine.
	OnStart func(m *runtime.Machine)
}

// A PrintMode says what a printed line costs (Options.Print, --print).
type PrintMode uint8

const (
	// PrintAuto is PrintSyscall when the costs profile charges a
	// write(2) (runtime.CostWrite), PrintFree otherwise.
	PrintAuto PrintMode = iota
	// PrintFree: a line takes no time and is no scheduling point, as a
	// Go program that gathers its lines in a buffer and prints them once.
	PrintFree
	// PrintSyscall: a line is the write(2) it is in Go, fmt.Println's:
	// after its text goes out, the goroutine is in a system call that
	// lasts the profile's write cost (runtime.G.WriteStdout).
	PrintSyscall
)

// syscall reports whether mode p makes a printed line a system call
// under profile c.
func (p PrintMode) syscall(c *runtime.Costs) bool {
	switch p {
	case PrintSyscall:
		return true
	case PrintAuto:
		return c != nil && !c.Dists[runtime.CostWrite].IsZero()
	}
	return false
}

// Result is how a script run ended.
type Result struct {
	ExitCode int             // 0 when main returned, 2 for a panic, deadlock or limit, 1 for a load error, 3 for an internal error
	Run      *runtime.Result // the engine's outcome; nil if the script never started

	// UnreadParams are the parameters of Options.Params that the run
	// never read with param(), sorted: the names of the warning the run
	// writes on Stderr, for a caller that says it once for many runs
	// (the latency lab).
	UnreadParams []string

	// HostLimit is the host's limit that stopped the run (the wall-clock
	// timeout, the memory watchdog, Options.Cancel), nil if none did. Such
	// a run ended where the host's time or memory ran out, not where its
	// schedule led: a search that replays schedules (check) must not read
	// it as the schedule's outcome.
	HostLimit *runtime.LimitError
}

// RunFile runs the script filename (read from the file unless src is not
// nil) with its top level as the main goroutine G1 on P0, until main
// returns, a goroutine panics, the run deadlocks or a limit is reached. The
// program's prints go to opts.Stdout; everything else (errors, the
// goroutine dump, the goroutines still alive when main returns) to
// opts.Stderr. The same script, options and seed always give the same
// bytes.
func RunFile(filename string, src []byte, opts Options) *Result {
	r := newRun(opts)
	mod, err := r.compileMain(filename, src)
	if err != nil {
		stderr := opts.Stderr
		if stderr == nil {
			stderr = io.Discard
		}
		io.WriteString(stderr, FormatCompileError(err))
		return &Result{ExitCode: ExitLoad}
	}
	return r.runMain(mod)
}

// A Program is a script compiled with every module it loads, ready to run
// any number of times, also from several goroutines at once: schedlab
// explore compiles a script once for all its seeds. Its files are read
// once, by Compile.
type Program struct {
	root  string                        // the directory tree load() is confined to
	main  string                        // the path of the script
	progs map[string]*starlark.Program  // by path: the script and every module it loads
	small map[posKey]bool               // calls with an int literal below 1000 as their duration (findSmallDurations)
	why   string                        // why goroutines may share a changing plain value (sharedPlainState)
	clean map[lineCol][]cleanCall       // calls whose frame a state key can write out (findCleanCalls)
	kinds map[string][]runtime.StepKind // by file, the kind of the statement on each line (findStepKinds)
}

// SharedPlainState says why the goroutines of the program may share a
// plain Starlark value (a list, a dict, a global or a captured variable)
// that one of them changes, or a value whose engine state plain code
// reads, with the position of the first such thing in the source; "" when
// they cannot. The engine does not see plain values, so schedlab check's
// reduction treats every stretch of such a program's code as touching
// one shared object. The answer is from the syntax and conservative: a
// program it names may share nothing in fact.
func (p *Program) SharedPlainState() string { return p.why }

// Compile compiles the script filename (read from the file unless src is
// not nil) and the modules it loads, as RunFile does first. The
// predeclared names are the builtins and those of opts.Predeclared; a run
// of the Program must give Predeclared the same names. A compile error is
// what RunFile reports, through FormatCompileError.
func Compile(filename string, src []byte, opts Options) (*Program, error) {
	r := newRun(opts)
	r.compiling = true // a Program runs with options Compile does not know
	mod, err := r.compileMain(filename, src)
	if err != nil {
		return nil, err
	}
	p := &Program{root: r.root, main: mod.path, progs: make(map[string]*starlark.Program, len(r.modules)), small: r.smallNs, why: r.sharedWhy, clean: r.cleanCalls, kinds: r.stepKinds}
	for path, m := range r.modules {
		p.progs[path] = m.prog
	}
	return p, nil
}

// Files returns the paths of the files the program was compiled from: the
// script first, then every module it loads, in lexical order. Commands
// use them to refuse an output file that would overwrite an input.
func (p *Program) Files() []string {
	files := []string{p.main}
	for path := range p.progs {
		if path != p.main {
			files = append(files, path)
		}
	}
	slices.Sort(files[1:])
	return files
}

// Run runs the program as RunFile runs a script, with fresh globals for
// every module: the same program, options and seed always give the same
// bytes, and the same as RunFile of its source.
func (p *Program) Run(opts Options) *Result {
	r := newRun(opts)
	r.root = p.root
	r.smallNs = p.small
	r.cleanCalls = p.clean
	r.stepKinds = p.kinds
	for path, prog := range p.progs {
		r.modules[path] = &module{path: path, prog: prog}
	}
	return r.runMain(r.modules[p.main])
}

// runMain runs mod, the compiled script, as G1 of a new Machine: the rest
// of RunFile.
func (r *run) runMain(mod *module) *Result {
	opts := r.opts
	stderr := opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}

	r.mainPath = mod.path
	mod.state = moduleLoading
	r.start(opts.Tracer, func(main *goroutine) error {
		g, err := mod.prog.Init(main.thread, r.names)
		mod.globals, mod.err, mod.state = g, err, moduleLoaded
		return err
	})
	m := r.m
	defer m.Close()
	if opts.Timeout > 0 {
		t := time.AfterFunc(opts.Timeout, r.timeout)
		defer t.Stop()
	}
	if opts.MaxMemory > 0 {
		done := make(chan struct{})
		defer close(done)
		go r.watchMemory(opts.MaxMemory, memoryPoll, done)
	}
	if opts.Cancel != nil {
		done := make(chan struct{})
		defer close(done)
		go r.watchCancel(opts.Cancel, done)
	}
	res, err := runMachine(m)
	r.endRun()
	unread := r.unreadParams()
	for _, name := range unread {
		fmt.Fprintf(stderr, "schedlab: warning: --param %s was never read: the script has no param(%q, ...)\n", name, name)
	}
	if err != nil {
		return &Result{ExitCode: writeInternal(stderr, err), Run: &runtime.Result{Outcome: runtime.Internal, Err: err}, UnreadParams: unread}
	}
	late := false // a host limit stopped the run after main returned
	if res.Outcome == runtime.Exited || res.Outcome == runtime.Deadlock {
		r.markLeaks() // Go 1.26's leak detection, at the end
		if le := r.stopped.Load(); le != nil {
			// The limit holds until the run is over: the leak check
			// walks what the globals hold, as much again (memory.go).
			res, late = &runtime.Result{Outcome: runtime.Limit, Err: le, Time: res.Time}, true
		}
	}
	write := WriteOutcome
	if opts.Alive {
		write = WriteOutcomeAlive
	}
	code := write(stderr, m, res)
	if late {
		io.WriteString(stderr, "schedlab: main had returned; the limit was reached while looking for leaked goroutines\n")
	}
	out := *res
	var le *runtime.LimitError
	if out.Outcome == runtime.Canceled && errors.As(out.Err, &le) {
		out.Outcome = runtime.Limit // the timeout, caught between two steps
	}
	var host *runtime.LimitError // the host's limit, if it is what ended the run
	if hl := r.stopped.Load(); hl != nil && out.Outcome == runtime.Limit && errors.As(out.Err, &le) && le == hl {
		host = hl
	}
	return &Result{ExitCode: code, Run: &out, UnreadParams: unread, HostLimit: host}
}

// runMachine runs m to its end. A broken invariant of the engine found on
// the scheduler's side (a throw outside any goroutine) is returned as an
// internal error rather than crashing the host (catchInternal).
func runMachine(m *runtime.Machine) (*runtime.Result, error) {
	var res *runtime.Result
	if ie := catchInternal(func() { res = runAll(m) }); ie != nil {
		return nil, ie
	}
	return res, nil
}

// runAll steps m to its end (Machine.Run). On js/wasm it gives the host's
// scheduler a turn every hostYieldEvery steps, so that the timeout's timer
// fires (host_js.go).
func runAll(m *runtime.Machine) *runtime.Result {
	if !hostYields {
		return m.Run()
	}
	for n := 1; m.Step(); n++ {
		if n%hostYieldEvery == 0 {
			hostYield()
		}
	}
	return m.Result()
}
