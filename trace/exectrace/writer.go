// Package exectrace writes a schedlab run as a Go execution trace: the
// format of Go 1.26's runtime/trace, which `go tool trace`, gotraceui and
// golang.org/x/exp/trace read.
//
// # What the trace holds
//
// Go's tracer records, per thread (M), what the thread does to Ps and
// goroutines; the reader rebuilds every P's and G's state from those
// events and refuses a trace whose transitions the runtime could not have
// made. schedlab's event stream (runtime.Event) names the same things, so
// the Writer translates it event by event:
//
//	GoCreate              GoCreate (new G's entry stack, creator's stack)
//	GoStart               GoStart
//	GoSched               GoStop "runtime.Gosched"; with Arg 1 (goyield) GoStop "preempted", as goyield_m traces it
//	GoPreempt             GoStop "preempted"
//	GoBlock               GoBlock with Go's trace reason for the wait reason (BlockReason): "IO wait" is "network"
//	GoUnblock             GoUnblock; with no G (netpoll's injectglist, a timer, the host) on the M's thread, else sysmon's
//	GoSyscallBegin        GoSyscallBegin
//	GoSyscallEnd fast     GoSyscallEnd
//	GoSyscallEnd idle p   GoSyscallEndBlocked, GoStart (the ProcStart came first), as exitsyscall traces it
//	GoSyscallEnd old p    the same, after the ProcSteal of the old P from the M in a syscall on it
//	GoSyscallEnd no p     GoSyscallEndBlocked
//	GoDestroy             GoDestroy
//	ProcStart / ProcStop  ProcStart / ProcStop
//	ProcSteal             ProcSteal, on sysmon's thread (or, with an M, on that M's: exitsyscall taking its old P back), naming the M in the syscall
//	ProcResize            ProcsChange (and ProcStatus for new Ps)
//	Print                 a log event, category "print", on the printing G
//	GCBegin / GCEnd       GCBegin / GCEnd with Go's GC sequence number (trace.seqGC), on the G that runs gcStart / gcMarkTermination
//	STWBegin / STWEnd     STWBegin with Go's reason ("GC sweep termination", "GC mark termination") / STWEnd, on the G that stops the world
//	GCWorkerStart         GoLabel "GC (dedicated)", "GC (fractional)" or "GC (idle)" on the worker, and again at each of its GoStarts until its GCWorkerStop, as GoStart labels a G on a P in a worker mode
//	GCAssistBegin / End   GCMarkAssistBegin / GCMarkAssistEnd on the assisting G (the range stays open while it parks in "GC assist wait", as gcAssistAlloc's does)
//
// No generation begins while the world is stopped, since traceAdvance
// stops it itself. A generation that begins while a cycle is on says so
// with a GCActive (written on a thread that runs a G, as traceAdvance's
// goroutine does; when none does, it is left out, which the reader
// allows: the cycle began in an earlier generation). The
// GCMarkAssistActive that writeGoStatus adds after the status of a G in
// an assist is left out: the trace begins with the run, so the reader has
// seen every assist begin, and an Active event only confirms it; written
// by sysmon's thread, whose statuses are 1ns apart, it could come after
// the assist's end on the G's own thread.
//
// GoWork, GoSleep (a GoBlock "sleep" follows), TimerFire (a GoUnblock
// follows), RunqSteal, GlobalRunqPut/Get, MSpinning, MStart, MStop,
// NetReady (the kernel's side), Netpoll (a GoUnblock per G it found
// follows), MNetpoll (an M without a P, blocked in epoll_wait) and
// GCWorkerStop have no event in Go's format: Go's tracer does not record
// them either (a worker's label lasts until its next GoStart).
//
// Where schedlab's engine changes a P without an event of its own, the
// Writer writes what Go's runtime writes in the same place, and says so
// at the place: procresize taking the caller's P (GoStop, ProcStop, then
// ProcStart and GoStart, as procresize does "to keep the trace
// consistent"), a stop-the-world that takes a P from an M that had not
// yet started it (the M's ProcStart, then its ProcStop), and Ps in a
// syscall that GOMAXPROCS cuts off (ProcSteal by the resizing M, as
// stopTheWorld's releaseP does).
//
// Anything else the Writer cannot place — a GoStart on an M without a P,
// a G created twice, a syscall ending on a P that was never lost — is a
// broken event stream, not something to paper over: the Writer stops
// and Close reports the event. golang.org/x/exp/trace's reader is the
// second check; the tests run every example through it.
//
// # Time
//
// The trace clock ticks once per virtual nanosecond (Frequency 1e9), and
// a timestamp is the virtual time plus Origin, so that no event sits at 0,
// which Go's tools read as "no time". The format wants the timestamps of
// one thread strictly increasing, so several events of one thread at one
// virtual time are 1ns apart, as the runtime's own traceBuf does it
// (tracebuf.go: "if ts <= w.traceBuf.lastTime { ts = lastTime + 1 }").
// The clock snapshot of every generation says the trace began at the Unix
// epoch: wall time is the host's, and nothing of the host goes in.
//
// # Threads, stacks, generations
//
// M n of the run is thread n of the trace. sysmon, which has no M in the
// engine, is thread SysmonThread: the ProcSteal events of retake are its,
// and so are the status events of idle Ps and of goroutines not running,
// and the GoUnblock events of timers that fire with no M.
//
// Stacks come from a Stacks (lang's are the Starlark backtraces): every
// event with a stack argument gets the stack of the goroutine it is about
// as it is at that moment, and GoCreate gets the new goroutine's entry
// frame, which is how `go tool trace` names goroutines. Each distinct
// (function, file, line) gets a PC of its own, so pprof profiles made by
// `go tool trace -pprof=...` tell the lines apart.
//
// A generation ends every GenerationPeriod of virtual time (1s, Go's
// traceAdvancePeriod) and, with GenerationEvents, after that many events.
// A new generation starts with the status of every P and every live G,
// as traceAdvance writes them, and new string and stack tables.
package exectrace

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/runtime"
)

// Origin is the trace time of virtual time 0, in nanoseconds.
const Origin = 1000

// SysmonThread is the thread id of sysmon in the trace.
const SysmonThread = 1_000_000

// DefaultGenerationPeriod is the virtual time a generation covers when
// Options.GenerationPeriod is 0: Go's traceAdvancePeriod, 1s.
const DefaultGenerationPeriod = 1_000_000_000

// A Frame is one call of a goroutine's stack.
type Frame struct {
	Func string // the function, as a backtrace names it
	File string // its file, as the script was named
	Line int    // the line of the call (or of the function, for an entry frame)
}

// Stacks tells a Writer the call stacks of the run's goroutines.
type Stacks interface {
	// Stack appends to dst the call stack of goroutine g as it is now,
	// innermost frame first, and returns it; nothing when g has none.
	Stack(dst []Frame, g int64) []Frame
	// Entry appends the frame of the function goroutine g was created to
	// run (its entry), for the GoCreate of g.
	Entry(dst []Frame, g int64) []Frame
}

// Options configure a Writer.
type Options struct {
	// Procs is GOMAXPROCS at the start of the run: Ps 0..Procs-1 are in
	// the trace from its start, idle until something starts them.
	Procs int
	// Stacks, if not nil, gives the stacks of events (see SetStacks).
	Stacks Stacks
	// GenerationPeriod is the virtual time after which a new generation
	// starts; 0 means DefaultGenerationPeriod.
	GenerationPeriod int64
	// GenerationEvents, if positive, also starts a new generation after
	// that many of the run's events (for tests of generation changes).
	GenerationEvents int
}

// Status of a P or a G in the Writer's model of what the reader knows.
type state uint8

const (
	stNone     state = iota // unknown to the trace (a P not yet seen, a G not created or dead)
	stIdle                  // P: idle
	stRunning               // P: held by an M; G: running on an M
	stSyscall               // P: its M's G is in a syscall; G: in a syscall
	stRunnable              // G: runnable
	stWaiting               // G: blocked
)

// A thread is one M of the trace: its open batch and its context.
type thread struct {
	id   uint64 // thread id
	data []byte // the batch being built, without its header
	base uint64 // the batch's base timestamp
	last uint64 // timestamp of the thread's last event (strictly increasing)
	p    int32  // the P it holds (also through a syscall), -1 for none
	g    int64  // the G it runs (also in a syscall), 0 for none
}

// A pstate is one P as the reader will know it.
type pstate struct {
	st  state
	m   int32  // the M holding it when running or in a syscall; SysmonThread never holds one
	seq uint64 // its sequence number in the generation
}

// A gstate is one live G as the reader will know it.
type gstate struct {
	st     state
	m      int32  // the M running it (running, syscall)
	seq    uint64 // its sequence number in the generation
	label  string // a mark worker's label while it marks ("GC (dedicated)"), written at each GoStart
	assist bool   // in a mark assist (gp.inMarkAssist)
}

// A Writer is a runtime.Tracer that writes the run as a Go execution
// trace. Close must be called when the run ends; without it the file is
// not a trace.
type Writer struct {
	out  *bufio.Writer
	opts Options
	err  error // the first error: a write error or a broken stream

	started  bool
	closed   bool
	g1       bool   // G1 has started: it is in the trace
	gen      uint64 // the current generation, from 1
	genStart int64  // virtual time the generation began
	genEvs   int    // run events in the generation

	ms     []*thread // by M id
	sysmon *thread
	ps     []pstate
	gs     map[int64]*gstate
	gcSeq  uint64 // the next GC sequence number (trace.seqGC)
	gcOn   bool   // a GC cycle is on: between its GCBegin and its GCEnd
	stw    bool   // the world is stopped: between an STWBegin and its STWEnd

	// The generation's tables. Strings and stacks are interned per
	// generation, as their ids are; PCs are kept for the whole run.
	strs    map[string]uint64
	strList []string
	stks    map[string]uint64
	stkList [][]uint64 // stack id-1 → PCs
	pcs     map[Frame]uint64
	pcList  []Frame // pc-pcBase → frame

	frames []Frame  // scratch for Stacks
	pcbuf  []uint64 // scratch for a stack's PCs
	key    []byte   // scratch for a stack's key
}

// pcBase is the first PC handed out to a frame.
const pcBase = 0x1000

// New returns a Writer writing the trace to w, which it never closes.
func New(w io.Writer, opts Options) *Writer {
	if opts.GenerationPeriod <= 0 {
		opts.GenerationPeriod = DefaultGenerationPeriod
	}
	return &Writer{
		out:    bufio.NewWriterSize(w, 64<<10),
		opts:   opts,
		sysmon: &thread{id: SysmonThread, p: -1},
		gs:     make(map[int64]*gstate),
		pcs:    make(map[Frame]uint64),
	}
}

// SetStacks sets where the stacks of events come from; lang's Stacks
// need the run's Machine, which exists only once the run has begun. It
// must be called before the first event to have every stack.
func (w *Writer) SetStacks(s Stacks) { w.opts.Stacks = s }

// Err returns the first error met so far: a write error, or an event the
// Writer could not place.
func (w *Writer) Err() error { return w.err }

// fail records a broken event stream at ev and stops the Writer.
func (w *Writer) fail(ev *runtime.Event, format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("go trace: event %d (%s at %dns): %s", ev.Seq, ev.Kind, ev.Time, fmt.Sprintf(format, args...))
	}
}

// Event writes ev. It is the runtime.Tracer method.
func (w *Writer) Event(ev *runtime.Event) {
	if w.err != nil || w.closed {
		return
	}
	if !w.started {
		w.begin(ev.Time)
	} else if !w.stw && (ev.Time-w.genStart >= w.opts.GenerationPeriod || (w.opts.GenerationEvents > 0 && w.genEvs >= w.opts.GenerationEvents)) {
		// Not while the world is stopped: traceAdvance stops the world
		// itself, so a Go trace has no pause across generations (and no
		// event that says one is on).
		w.advance(ev.Time)
	}
	w.genEvs++
	w.translate(ev)
}

// translate writes the trace events for ev: one step per kind, grouped
// in the families of the Go trace (goroutines, syscalls, Ps, the
// collector and user logs).
func (w *Writer) translate(ev *runtime.Event) {
	switch ev.Kind {
	// goroutines
	case runtime.EvGoCreate:
		w.translateGoCreate(ev)
	case runtime.EvGoStart:
		w.translateGoStart(ev)
	case runtime.EvGoSched, runtime.EvGoPreempt:
		w.translateGoStop(ev)
	case runtime.EvGoBlock:
		w.stop(ev, evGoBlock, BlockReason(ev.Reason), stWaiting)
	case runtime.EvGoDestroy:
		w.translateGoDestroy(ev)
	case runtime.EvGoUnblock:
		w.translateGoUnblock(ev)

	// syscalls
	case runtime.EvGoSyscallBegin:
		w.translateSyscallBegin(ev)
	case runtime.EvGoSyscallEnd:
		w.syscallEnd(ev)

	// Ps
	case runtime.EvProcStart:
		w.procStart(ev)
	case runtime.EvProcStop:
		w.translateProcStop(ev)
	case runtime.EvProcSteal:
		w.translateProcSteal(ev)
	case runtime.EvProcResize:
		w.resize(ev)

	// the collector
	case runtime.EvGCBegin, runtime.EvGCEnd:
		w.translateGCCycle(ev)
	case runtime.EvSTWBegin, runtime.EvSTWEnd:
		w.translateSTW(ev)
	case runtime.EvGCWorkerStart, runtime.EvGCWorkerStop:
		w.translateGCWorker(ev)
	case runtime.EvGCAssistBegin, runtime.EvGCAssistEnd:
		w.translateGCAssist(ev)

	// user logs
	case runtime.EvPrint:
		w.translatePrint(ev)
	}
}

// runningThread returns the thread of ev's M when it holds ev's P and
// runs ev's G, failing (and returning nil) when it does not: the thread
// of an event that its running goroutine does.
func (w *Writer) runningThread(ev *runtime.Event) *thread {
	t := w.mThread(ev)
	if t == nil || !w.holds(ev, t) || !w.runs(ev, t, ev.G) {
		return nil
	}
	return t
}

// translateGoCreate writes a goroutine created by the running one.
func (w *Writer) translateGoCreate(ev *runtime.Event) {
	t := w.runningThread(ev)
	if t == nil {
		return
	}
	if w.gs[ev.G2] != nil {
		w.fail(ev, "G%d created while it exists", ev.G2)
		return
	}
	w.goCreate(t, ev.Time, ev.G2, ev.G)
}

// translateGoStart writes a runnable goroutine starting on ev's M, and
// G1's birth and the run's GOMAXPROCS at its first start.
func (w *Writer) translateGoStart(ev *runtime.Event) {
	t := w.mThread(ev)
	if t == nil || !w.holds(ev, t) {
		return
	}
	if t.g != 0 {
		w.fail(ev, "M%d starts G%d while it runs G%d", ev.M, ev.G, t.g)
		return
	}
	gs := w.gs[ev.G]
	first := gs == nil && ev.G == 1 && !w.g1
	if gs == nil {
		if !first {
			w.fail(ev, "G%d starts but was never created", ev.G)
			return
		}
		// G1 is made by the Machine without a GoCreate; in the trace
		// it is created by the thread that first starts it, as a
		// goroutine the trace sees born without a creator.
		w.goCreate(t, ev.Time, ev.G, 0)
		gs = w.gs[ev.G]
	}
	if gs.st != stRunnable {
		w.fail(ev, "G%d starts while %s", ev.G, gs.st)
		return
	}
	w.goStart(t, ev.Time, ev.G, gs)
	if first {
		w.g1 = true
		// The GOMAXPROCS of the run, as StartTrace writes it.
		w.event(t, evProcsChange, ev.Time, uint64(max(w.opts.Procs, 1)), 0)
	}
}

// translateGoStop writes a running goroutine made runnable: a yield or a
// preemption.
func (w *Writer) translateGoStop(ev *runtime.Event) {
	reason := "runtime.Gosched" // traceGoStopReasonStrings[traceGoStopGoSched]
	if ev.Kind == runtime.EvGoPreempt || ev.Arg == 1 {
		reason = "preempted" // traceGoStopPreempted: gopreempt_m, and goyield_m
	}
	w.stop(ev, evGoStop, reason, stRunnable)
}

// translateGoDestroy writes the running goroutine's exit.
func (w *Writer) translateGoDestroy(ev *runtime.Event) {
	t := w.runningThread(ev)
	if t == nil {
		return
	}
	w.event(t, evGoDestroy, ev.Time)
	delete(w.gs, ev.G)
	t.g = 0
}

// translateGoUnblock writes a waiting goroutine readied, by ev's M or,
// with none, by sysmon's thread (a timer with no M, or the host).
func (w *Writer) translateGoUnblock(ev *runtime.Event) {
	gs := w.gs[ev.G2]
	if gs == nil && ev.Arg == 3 {
		gs = w.markWorkerBorn(ev)
	}
	if gs == nil || gs.st != stWaiting {
		w.fail(ev, "G%d readied while %s", ev.G2, stateOf(gs))
		return
	}
	t := w.sysmon // a timer with no M, or the host
	if ev.M >= 0 {
		t = w.thread(ev.M)
	}
	gs.seq++
	gs.st = stRunnable
	w.event(t, evGoUnblock, ev.Time, uint64(ev.G2), gs.seq, w.stack(ev.G))
}

// markWorkerBorn writes the birth of a GC mark worker taken from its
// pool, which ev readies, and returns its state. The Machine makes the
// workers parked, with no GoCreate (runtime/mgc.go). The trace sees it
// born blocked, as tracev2's GoCreateBlocked says, by no goroutine.
func (w *Writer) markWorkerBorn(ev *runtime.Event) *gstate {
	t := w.sysmon
	if ev.M >= 0 {
		t = w.thread(ev.M)
	}
	gs := &gstate{st: stWaiting, m: -1}
	w.gs[ev.G2] = gs
	w.event(t, evGoCreateBlocked, ev.Time, uint64(ev.G2), w.entryStack(ev.G2), 0)
	return gs
}

// translateSyscallBegin writes the running goroutine entering a syscall
// with its P.
func (w *Writer) translateSyscallBegin(ev *runtime.Event) {
	t := w.runningThread(ev)
	if t == nil {
		return
	}
	p := &w.ps[t.p]
	p.st = stSyscall
	p.seq++
	w.gs[ev.G].st = stSyscall
	w.event(t, evGoSyscallBegin, ev.Time, p.seq, w.stack(ev.G))
}

// translateProcStop writes ev's M stopping its P.
func (w *Writer) translateProcStop(ev *runtime.Event) {
	t := w.mThread(ev)
	if t == nil || ev.P < 0 {
		w.fail(ev, "ProcStop without an M or a P")
		return
	}
	p := w.proc(t, ev.Time, ev.P)
	switch {
	case t.p == ev.P:
	case t.p < 0 && p.st == stIdle:
		// stopTheWorld took the P from an M that startm had handed
		// it to but that had not run yet. In Go the woken M acquires
		// the P and then stops for the stop-the-world: its
		// ProcStart, then its ProcStop.
		w.procStartOn(t, ev.Time, ev.P)
	default:
		w.fail(ev, "M%d stops P%d but holds %s", ev.M, ev.P, pName(t.p))
		return
	}
	w.ps[ev.P].st = stIdle
	t.p = -1
	w.event(t, evProcStop, ev.Time)
}

// translateProcSteal writes a P retaken from a syscall: by sysmon, or by
// exitsyscall on ev's M.
func (w *Writer) translateProcSteal(ev *runtime.Event) {
	if ev.P < 0 || int(ev.P) >= len(w.ps) || w.ps[ev.P].st != stSyscall {
		w.fail(ev, "P%d retaken but no syscall holds it", ev.P)
		return
	}
	t := w.sysmon
	if ev.M >= 0 {
		// exitsyscall taking its old P back from another M's syscall.
		if t = w.mThread(ev); t == nil {
			return
		}
	}
	w.steal(t, ev.Time, ev.P)
}

// translateGCCycle writes a GC cycle's start or end
// (traceLocker.GCStart, GCDone).
func (w *Writer) translateGCCycle(ev *runtime.Event) {
	t := w.runningThread(ev)
	if t == nil {
		return
	}
	begin := ev.Kind == runtime.EvGCBegin
	if begin == w.gcOn {
		w.fail(ev, "a GC cycle is on: %v", w.gcOn)
		return
	}
	if begin {
		w.event(t, evGCBegin, ev.Time, w.gcSeq, w.stack(ev.G)) // traceLocker.GCStart
	} else {
		w.event(t, evGCEnd, ev.Time, w.gcSeq) // traceLocker.GCDone
	}
	w.gcSeq++
	w.gcOn = begin
}

// translateSTW writes a stop-the-world's start or end
// (traceLocker.STWStart, STWDone).
func (w *Writer) translateSTW(ev *runtime.Event) {
	t := w.runningThread(ev)
	if t == nil {
		return
	}
	if ev.Kind == runtime.EvSTWBegin {
		w.event(t, evSTWBegin, ev.Time, w.str(ev.Reason), w.stack(ev.G)) // traceLocker.STWStart
		w.stw = true
		return
	}
	w.event(t, evSTWEnd, ev.Time) // traceLocker.STWDone
	w.stw = false
}

// translateGCWorker labels a GC mark worker with its mode when it
// starts, and forgets the label when it stops.
func (w *Writer) translateGCWorker(ev *runtime.Event) {
	t := w.runningThread(ev)
	if t == nil {
		return
	}
	gs := w.gs[ev.G]
	if ev.Kind == runtime.EvGCWorkerStop {
		gs.label = ""
		return
	}
	gs.label = "GC (" + ev.Reason + ")" // gcMarkWorkerModeStrings
	w.event(t, evGoLabel, ev.Time, w.str(gs.label))
}

// translateGCAssist writes the start or end of the running goroutine's
// mark assist (traceLocker.GCMarkAssistStart, GCMarkAssistDone).
func (w *Writer) translateGCAssist(ev *runtime.Event) {
	t := w.runningThread(ev)
	if t == nil {
		return
	}
	gs := w.gs[ev.G]
	begin := ev.Kind == runtime.EvGCAssistBegin
	if begin == gs.assist {
		w.fail(ev, "G%d in a mark assist: %v", ev.G, gs.assist)
		return
	}
	if begin {
		w.event(t, evGCMarkAssistBegin, ev.Time, w.stack(ev.G)) // traceLocker.GCMarkAssistStart
	} else {
		w.event(t, evGCMarkAssistEnd, ev.Time) // traceLocker.GCMarkAssistDone
	}
	gs.assist = begin
}

// translatePrint writes a print of running code as a user log line; a
// print outside running code has no place for one.
func (w *Writer) translatePrint(ev *runtime.Event) {
	if ev.M < 0 || ev.G == 0 {
		return
	}
	t := w.thread(ev.M)
	if t.g != ev.G || t.p < 0 || w.gs[ev.G] == nil || w.gs[ev.G].st != stRunning {
		return
	}
	w.event(t, evUserLog, ev.Time, backgroundTaskID, w.str("print"), w.str(strings.TrimSuffix(ev.Reason, "\n")), w.stack(ev.G))
}

// mThread returns the thread of ev's M, failing when ev has none.
func (w *Writer) mThread(ev *runtime.Event) *thread {
	if ev.M < 0 {
		w.fail(ev, "no M")
		return nil
	}
	return w.thread(ev.M)
}

// holds checks that t holds ev's P.
func (w *Writer) holds(ev *runtime.Event, t *thread) bool {
	if ev.P < 0 || t.p != ev.P {
		w.fail(ev, "M%d holds %s, the event says %s", ev.M, pName(t.p), pName(ev.P))
		return false
	}
	return true
}

// runs checks that t runs goroutine g.
func (w *Writer) runs(ev *runtime.Event, t *thread, g int64) bool {
	gs := w.gs[g]
	if t.g != g || gs == nil || gs.st != stRunning {
		w.fail(ev, "G%d is not running on M%d (it runs G%d; G%d is %s)", g, ev.M, t.g, g, stateOf(gs))
		return false
	}
	return true
}

// stop ends the run of ev's G with a GoStop or GoBlock of reason.
func (w *Writer) stop(ev *runtime.Event, typ byte, reason string, st state) {
	t := w.mThread(ev)
	if t == nil || !w.holds(ev, t) || !w.runs(ev, t, ev.G) {
		return
	}
	w.event(t, typ, ev.Time, w.str(reason), w.stack(ev.G))
	w.gs[ev.G].st = st
	t.g = 0
}

// goCreate writes the creation of g by creator (0: none) on t.
func (w *Writer) goCreate(t *thread, now int64, g, creator int64) {
	w.gs[g] = &gstate{st: stRunnable, m: -1}
	w.event(t, evGoCreate, now, uint64(g), w.entryStack(g), w.stack(creator))
}

// goStart writes the start of g on t, and a mark worker's label, as
// traceLocker.GoStart writes it for a P in a worker mode.
func (w *Writer) goStart(t *thread, now int64, g int64, gs *gstate) {
	gs.seq++
	gs.st = stRunning
	gs.m = int32(t.id)
	t.g = g
	w.event(t, evGoStart, now, uint64(g), gs.seq)
	if gs.label != "" {
		w.event(t, evGoLabel, now, w.str(gs.label))
	}
}

// procStartOn writes t's acquiring of the idle P pid.
func (w *Writer) procStartOn(t *thread, now int64, pid int32) {
	p := &w.ps[pid]
	p.seq++
	p.st = stRunning
	p.m = int32(t.id)
	t.p = pid
	w.event(t, evProcStart, now, uint64(pid), p.seq)
}

// procStart handles ProcStart: M acquires P.
func (w *Writer) procStart(ev *runtime.Event) {
	t := w.mThread(ev)
	if t == nil || ev.P < 0 {
		w.fail(ev, "ProcStart without an M or a P")
		return
	}
	p := w.proc(t, ev.Time, ev.P)
	if p.st == stSyscall && ev.P == 0 && t.p > 0 && t.g != 0 {
		// procresize cut off the caller's P and gives it P0 while a
		// syscall holds P0: the stop-the-world takes P0 from the
		// syscall first (releaseP). Nothing else starts a P a syscall
		// holds without sysmon's ProcSteal first.
		w.steal(t, ev.Time, ev.P)
	}
	if p.st != stIdle {
		w.fail(ev, "M%d starts P%d, which is %s", ev.M, ev.P, p.st)
		return
	}
	var resume int64
	if t.p >= 0 {
		if ev.P != 0 || t.g == 0 {
			w.fail(ev, "M%d starts P%d while it holds P%d", ev.M, ev.P, t.p)
			return
		}
		// procresize cut off the caller's P and gives it P0. Go's
		// procresize traces it as "descheduled and then scheduled
		// again to keep the trace consistent": GoSched and ProcStop of
		// the old P, then ProcStart and GoStart.
		old := t.p
		if t.g != 0 {
			gs := w.gs[t.g]
			if gs == nil || gs.st != stRunning {
				w.fail(ev, "M%d holds P%d with G%d %s", ev.M, old, t.g, stateOf(gs))
				return
			}
			resume = t.g
			w.event(t, evGoStop, ev.Time, w.str("runtime.Gosched"), w.stack(t.g))
			gs.st = stRunnable
			t.g = 0
		}
		w.ps[old].st = stIdle
		t.p = -1
		w.event(t, evProcStop, ev.Time)
	}
	w.procStartOn(t, ev.Time, ev.P)
	if resume != 0 {
		w.goStart(t, ev.Time, resume, w.gs[resume])
	}
}

// syscallEnd handles GoSyscallEnd by its path through exitsyscall.
func (w *Writer) syscallEnd(ev *runtime.Event) {
	t := w.mThread(ev)
	if t == nil {
		return
	}
	gs := w.gs[ev.G]
	if t.g != ev.G || gs == nil || gs.st != stSyscall {
		w.fail(ev, "G%d leaves a syscall it is not in on M%d (%s)", ev.G, ev.M, stateOf(gs))
		return
	}
	switch ev.Reason {
	case "fast":
		if !w.holds(ev, t) || w.ps[t.p].st != stSyscall {
			w.fail(ev, "fast exit from a syscall without its P")
			return
		}
		w.ps[t.p].st = stRunning
		gs.st = stRunning
		w.event(t, evGoSyscallEnd, ev.Time)
	case "idle p", "old p":
		// exitsyscall with another P, or with its old P taken back from
		// the syscall of the M that sysmon had handed it to: ProcStart (already written, for
		// the engine's acquirep), GoSyscallEndBlocked, GoStart.
		if !w.holds(ev, t) || w.ps[t.p].st != stRunning {
			w.fail(ev, "exit from a syscall onto %s, not started", pName(ev.P))
			return
		}
		gs.st = stRunnable
		t.g = 0
		w.event(t, evGoSyscallEndBlocked, ev.Time)
		w.goStart(t, ev.Time, ev.G, gs)
	case "no p":
		// exitsyscallNoP: the G is runnable, the M has no P.
		if t.p >= 0 {
			w.fail(ev, "exit from a syscall with no P, but M%d holds P%d", ev.M, t.p)
			return
		}
		gs.st = stRunnable
		t.g = 0
		w.event(t, evGoSyscallEndBlocked, ev.Time)
	default:
		w.fail(ev, "unknown syscall exit %q", ev.Reason)
	}
}

// steal writes on t the taking of P pid from the M whose G is in a
// syscall on it (retake's releaseP).
func (w *Writer) steal(t *thread, now int64, pid int32) {
	p := &w.ps[pid]
	victim := w.thread(p.m)
	p.seq++
	w.event(t, evProcSteal, now, uint64(pid), p.seq, victim.id)
	p.st = stIdle
	victim.p = -1
}

// resize handles ProcResize: GOMAXPROCS changed from Arg to P2.
func (w *Writer) resize(ev *runtime.Event) {
	t := w.mThread(ev)
	if t == nil {
		return
	}
	n := ev.P2
	// Ps cut off while their G is in a syscall: the stop-the-world takes
	// them (releaseP), on the resizing thread.
	for pid := n; int(pid) < len(w.ps); pid++ {
		if w.ps[pid].st == stSyscall {
			w.steal(t, ev.Time, pid)
		}
	}
	for pid := int32(0); pid < n; pid++ {
		w.proc(t, ev.Time, pid)
	}
	if t.p < 0 || ev.G == 0 || t.g != ev.G {
		return // ProcsChange needs a running goroutine
	}
	w.event(t, evProcsChange, ev.Time, uint64(n), w.stack(ev.G))
}

// thread returns the thread of M id, making it on first use.
func (w *Writer) thread(id int32) *thread {
	if id == SysmonThread {
		return w.sysmon
	}
	for int(id) >= len(w.ms) {
		w.ms = append(w.ms, &thread{id: uint64(len(w.ms)), p: -1})
	}
	return w.ms[id]
}

// proc returns P pid, writing its status (idle) on t when the trace has
// not seen it yet.
func (w *Writer) proc(t *thread, now int64, pid int32) *pstate {
	for int(pid) >= len(w.ps) {
		w.ps = append(w.ps, pstate{m: -1})
	}
	p := &w.ps[pid]
	if p.st == stNone {
		p.st = stIdle
		p.seq = 0
		w.event(t, evProcStatus, now, uint64(pid), procIdle)
	}
	return p
}

// begin starts the first generation at virtual time now.
func (w *Writer) begin(now int64) {
	w.started = true
	w.out.WriteString(header)
	w.newGeneration(now)
	for pid := range int32(max(w.opts.Procs, 1)) {
		w.proc(w.sysmon, now, pid)
	}
}

// newGeneration resets the per-generation state.
func (w *Writer) newGeneration(now int64) {
	w.gen++
	w.genStart = now
	w.genEvs = 0
	w.strs = make(map[string]uint64)
	w.strList = w.strList[:0]
	w.stks = make(map[string]uint64)
	w.stkList = w.stkList[:0]
}

// advance ends the generation and starts the next at virtual time now,
// with the status of every P and every live G, as traceAdvance does.
func (w *Writer) advance(now int64) {
	w.endGeneration()
	w.newGeneration(now)
	for pid := range w.ps {
		p := &w.ps[pid]
		p.seq = 0
		switch p.st {
		case stIdle:
			w.event(w.sysmon, evProcStatus, now, uint64(pid), procIdle)
		case stRunning:
			w.event(w.thread(p.m), evProcStatus, now, uint64(pid), procRunning)
		case stSyscall:
			w.event(w.thread(p.m), evProcStatus, now, uint64(pid), procSyscall)
		}
	}
	ids := make([]int64, 0, len(w.gs))
	for id := range w.gs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		gs := w.gs[id]
		gs.seq = 0
		switch gs.st {
		case stRunning:
			t := w.thread(gs.m)
			w.event(t, evGoStatus, now, uint64(id), t.id, goRunning)
		case stSyscall:
			t := w.thread(gs.m)
			w.event(t, evGoStatus, now, uint64(id), t.id, goSyscall)
		case stRunnable:
			w.event(w.sysmon, evGoStatus, now, uint64(id), noThread, goRunnable)
		case stWaiting:
			w.event(w.sysmon, evGoStatus, now, uint64(id), noThread, goWaiting)
		}
	}
	// A cycle that goes on: GCActive, from a thread running a G on a P
	// (traceAdvance's own goroutine in Go).
	if w.gcOn {
		for _, t := range w.ms {
			if gs := w.gs[t.g]; t.p >= 0 && gs != nil && gs.st == stRunning {
				w.event(t, evGCActive, now, w.gcSeq) // traceLocker.GCActive
				w.gcSeq++
				break
			}
		}
	}
}

// Close ends the last generation, flushes the trace and returns the first
// error: of writing, or of an event the Writer could not place. It does
// not close the io.Writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if !w.started {
		w.begin(0)
	}
	w.endGeneration()
	if err := w.out.Flush(); err != nil && w.err == nil {
		w.err = err
	}
	return w.err
}

// event appends one event of type typ at virtual time now to t's batch;
// args are its arguments after the timestamp.
func (w *Writer) event(t *thread, typ byte, now int64, args ...uint64) {
	ts := uint64(now + Origin)
	if ts <= t.last {
		ts = t.last + 1
	}
	if len(t.data)+maxEventSize > maxBatchSize {
		w.flushThread(t)
	}
	if len(t.data) == 0 {
		t.base = ts
		t.last = ts
	}
	t.data = append(t.data, typ)
	t.data = appendUvarint(t.data, ts-t.last)
	for _, a := range args {
		t.data = appendUvarint(t.data, a)
	}
	t.last = ts
}

// flushThread writes t's batch, if it has one.
func (w *Writer) flushThread(t *thread) {
	if len(t.data) == 0 {
		return
	}
	writeBatch(w.out, w.gen, t.id, t.base, t.data)
	t.data = t.data[:0]
}

// endGeneration writes what is left of the generation: the threads'
// batches, the string and stack tables, the sync batch, and the
// EndOfGeneration byte.
func (w *Writer) endGeneration() {
	for _, t := range w.ms {
		w.flushThread(t)
	}
	w.flushThread(w.sysmon)

	// The stack table first: it adds the strings of its frames.
	var entry []byte
	start := uint64(w.genStart + Origin)
	stacks := sectionWriter{w: w.out, gen: w.gen, time: start, kind: evStacks}
	var stackEntries [][]byte
	for i, pcs := range w.stkList {
		entry = append(entry[:0], evStack)
		entry = appendUvarint(entry, uint64(i+1))
		entry = appendUvarint(entry, uint64(len(pcs)))
		for _, pc := range pcs {
			f := w.pcList[pc-pcBase]
			entry = appendUvarint(entry, pc)
			entry = appendUvarint(entry, w.str(f.Func))
			entry = appendUvarint(entry, w.str(f.File))
			entry = appendUvarint(entry, uint64(max(f.Line, 0)))
		}
		stackEntries = append(stackEntries, slices.Clone(entry))
	}
	strs := sectionWriter{w: w.out, gen: w.gen, time: start, kind: evStrings}
	for i, s := range w.strList {
		entry = append(entry[:0], evString)
		entry = appendUvarint(entry, uint64(i+1))
		entry = appendUvarint(entry, uint64(len(s)))
		entry = append(entry, s...)
		strs.add(entry)
	}
	strs.flush()
	for _, e := range stackEntries {
		stacks.add(e)
	}
	stacks.flush()

	// The sync batch: the clock, and a snapshot saying the trace began
	// at the Unix epoch, in virtual time.
	mono := uint64(w.genStart)
	sync := []byte{evSync, evFrequency}
	sync = appendUvarint(sync, ticksPerSecond)
	sync = append(sync, evClockSnapshot)
	sync = appendUvarint(sync, 0)
	sync = appendUvarint(sync, mono)
	sync = appendUvarint(sync, mono/1e9)
	sync = appendUvarint(sync, mono%1e9)
	writeBatch(w.out, w.gen, noThread, start, sync)

	w.out.WriteByte(evEndOfGeneration)
}

// str returns the generation's id of string s, adding it.
func (w *Writer) str(s string) uint64 {
	if s == "" {
		return 0
	}
	s = clip(s, maxStringSize)
	if id, ok := w.strs[s]; ok {
		return id
	}
	w.strList = append(w.strList, s)
	id := uint64(len(w.strList))
	w.strs[s] = id
	return id
}

// stack returns the generation's id of g's current stack, 0 for none.
func (w *Writer) stack(g int64) uint64 {
	if w.opts.Stacks == nil || g == 0 {
		return 0
	}
	w.frames = w.opts.Stacks.Stack(w.frames[:0], g)
	return w.internStack(w.frames)
}

// entryStack returns the generation's id of g's entry stack.
func (w *Writer) entryStack(g int64) uint64 {
	if w.opts.Stacks == nil {
		return 0
	}
	w.frames = w.opts.Stacks.Entry(w.frames[:0], g)
	return w.internStack(w.frames)
}

// internStack returns the generation's id of the stack of frames.
func (w *Writer) internStack(frames []Frame) uint64 {
	if len(frames) == 0 {
		return 0
	}
	if len(frames) > maxFrames {
		frames = frames[:maxFrames]
	}
	w.pcbuf = w.pcbuf[:0]
	w.key = w.key[:0]
	for _, f := range frames {
		pc, ok := w.pcs[f]
		if !ok {
			pc = pcBase + uint64(len(w.pcList))
			w.pcList = append(w.pcList, f)
			w.pcs[f] = pc
		}
		w.pcbuf = append(w.pcbuf, pc)
		w.key = appendUvarint(w.key, pc)
	}
	if id, ok := w.stks[string(w.key)]; ok {
		return id
	}
	w.stkList = append(w.stkList, slices.Clone(w.pcbuf))
	id := uint64(len(w.stkList))
	w.stks[string(w.key)] = id
	return id
}

// BlockReason returns the reason Go's tracer gives a goroutine parked
// for wait reason r (traceBlockReasonStrings in traceruntime.go: gopark's
// callers pass a traceBlockReason with each waitReason). A reason of the
// user's own (park("...")) is kept as it is.
func BlockReason(r string) string {
	switch r {
	case runtime.WaitReasonChanReceive, runtime.WaitReasonChanSend, runtime.WaitReasonSelect, runtime.WaitReasonSleep:
		return r // traceBlockChanRecv, traceBlockChanSend, traceBlockSelect, traceBlockSleep: the same strings
	case runtime.WaitReasonChanReceiveNilChan, runtime.WaitReasonChanSendNilChan, runtime.WaitReasonSelectNoCases:
		return "forever" // traceBlockForever
	case "sync.Cond.Wait":
		return "sync.(*Cond).Wait" // traceBlockCondWait
	case runtime.WaitReasonPreempted:
		return "preempted" // traceBlockPreempted
	case runtime.WaitReasonIOWait:
		return "network" // traceBlockNet: netpollblock's gopark; what go tool trace -pprof=net counts
	case "GC assist wait":
		return "GC mark assist wait for work" // traceBlockGCMarkAssist: gcParkAssist
	case "wait for GC cycle":
		return "wait until GC ends" // traceBlockUntilGCEnds: gcWaitOnMark
	case "GC worker (idle)":
		return "system goroutine wait" // traceBlockSystemGoroutine: gcBgMarkWorker parked in its pool
	}
	if strings.HasPrefix(r, "sync.") || strings.HasPrefix(r, "semacquire") {
		return "sync" // traceBlockSync: Mutex, RWMutex, WaitGroup, semaphores
	}
	if r == "" {
		return "unspecified" // traceBlockGeneric
	}
	return r
}

func (s state) String() string {
	switch s {
	case stNone:
		return "unknown"
	case stIdle:
		return "idle"
	case stRunning:
		return "running"
	case stSyscall:
		return "in a syscall"
	case stRunnable:
		return "runnable"
	case stWaiting:
		return "waiting"
	}
	return "bad state"
}

// stateOf returns the state of gs, stNone for nil.
func stateOf(gs *gstate) state {
	if gs == nil {
		return stNone
	}
	return gs.st
}

// pName names a P id ("P3", "no P").
func pName(p int32) string {
	if p < 0 {
		return "no P"
	}
	return fmt.Sprintf("P%d", p)
}

var _ runtime.Tracer = (*Writer)(nil)
