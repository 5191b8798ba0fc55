// Goroutine and processor states.
//
// The G states are those of runtime2.go, with the same names and numbers, and
// every change of a G's state goes through casgstatus, which knows the legal
// transitions. An illegal transition is a bug in the simulator, never in the
// user's program, so it is reported with throw, not as a user error.
//
// The legal transitions, as the real runtime makes them:
//
//	_Gidle      → _Gdead      newproc1, allgadd: a fresh G is dead until it is set up
//	_Gdead      → _Grunnable  newproc1: a G, fresh or reused from gFree, made ready to run
//	_Grunnable  → _Grunning   execute
//	_Grunning   → _Grunnable  goschedImpl: gosched, and preemption (gopreempt_m, also for
//	                          sysmon's 10ms slice and for a stop-the-world)
//	_Grunning   → _Gwaiting   gopark
//	_Grunning   → _Gsyscall   entersyscall
//	_Grunning   → _Gpreempted preemptPark, for suspendG (the GC's stack scan)
//	_Grunning   → _Gdead      goexit0
//	_Gwaiting   → _Grunnable  ready (goready)
//	_Gwaiting   → _Gleaked    the leak check found the G unreachable
//	_Gsyscall   → _Grunning   exitsyscall, before it looks for a P; with none to
//	                          be had, exitsyscallNoP then makes it _Grunnable
//	_Gpreempted → _Gwaiting   casGFromPreempted, when suspendG is done with the G
//
// TestStatusTableIsTheRuntimes reads these from the toolchain's runtime
// source. The runtime's transitions between these states that schedlab
// never makes: _Gdead → _Gwaiting (newproc1 of a coroutine's G, created
// parked), _Gwaiting → _Grunning (a G that waited for the GC or a
// stop-the-world runs on: schedlab's leave its status alone) and
// _Gleaked → _Gwaiting (each GC cycle forgets the last leak check's
// verdict; schedlab's leak check marks once, at the end of the run).
//
// The simulator has no garbage collector, so nothing calls suspendG and no G
// is ever _Gpreempted: a preempted G is _Grunnable, as in the real runtime
// for every preemption but the GC's. The two _Gpreempted edges are in the
// table because they are the runtime's; no script can reach them, nor
// _Gcopystack (no stacks to grow) or the _Gscan bits (no stack scans).
//
// A P is _Pidle (on the idle list), _Prunning (owned by an M running Go
// code or looking for work), _Psyscall (its M is in a system call and may
// lose it to sysmon) or _Pdead (cut off by procresize). Go 1.26 dropped
// _Psyscall from the real runtime (the P stays _Prunning while its G is in
// _Gsyscall, see tracestatus.go and issue #64318); schedlab keeps the name
// because it is the clearest way to show a P held by a blocked thread.

package runtime

import "fmt"

// Status is a goroutine's state, numbered as in runtime2.go.
type Status uint32

// Goroutine states, from runtime2.go.
const (
	// _Gidle means this goroutine was just allocated and has not yet been
	// initialized.
	Gidle Status = iota // 0
	// _Grunnable means this goroutine is on a run queue (a P's runnext or
	// ring, or the global queue). It is not executing user code.
	Grunnable // 1
	// _Grunning means this goroutine may execute user code. It is owned by
	// an M and a P and is on no run queue.
	Grunning // 2
	// _Gsyscall means this goroutine is executing a system call. It owns
	// an M; it may or may not still own its P.
	Gsyscall // 3
	// _Gwaiting means this goroutine is blocked: on a channel, a timer, a
	// mutex, or park. It is on no run queue; something (a channel's wait
	// queue, a timer, the user holding the task) will ready it.
	Gwaiting // 4
	_        // 5, _Gmoribund_unused
	// _Gdead means this goroutine is unused: it has exited and sits on a
	// gFree list, ready to be reused by newproc.
	Gdead // 6
	_     // 7, _Genqueue_unused
	_     // 8, _Gcopystack
	// _Gpreempted means this goroutine stopped itself for a suspendG
	// preemption (the GC's). It is unreachable here: see the table above.
	Gpreempted // 9
	// _Gleaked means this goroutine is blocked on an object that no
	// goroutine that can still run can reach: it will never run again.
	Gleaked // 10
)

var statusNames = [...]string{
	Gidle:      "idle",
	Grunnable:  "runnable",
	Grunning:   "running",
	Gsyscall:   "syscall",
	Gwaiting:   "waiting",
	5:          "moribund",
	Gdead:      "dead",
	7:          "enqueue",
	8:          "copystack",
	Gpreempted: "preempted",
	Gleaked:    "leaked",
}

// String returns the state's name as Go's goroutine dump prints it
// ("runnable", "running", ...).
func (s Status) String() string {
	if int(s) < len(statusNames) && statusNames[s] != "" {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint32(s))
}

// legalTransition[from] is the set of states a G may move to from from.
var legalTransition = [...]uint16{
	Gidle:      1 << Gdead,
	Grunnable:  1 << Grunning,
	Grunning:   1<<Grunnable | 1<<Gwaiting | 1<<Gsyscall | 1<<Gpreempted | 1<<Gdead,
	Gsyscall:   1 << Grunning,
	Gwaiting:   1<<Grunnable | 1<<Gleaked,
	Gdead:      1 << Grunnable,
	Gpreempted: 1 << Gwaiting,
	Gleaked:    0,
}

// legal[from][to] is legalTransition as a table, for casgstatus.
var legal = func() (t [len(legalTransition)][len(legalTransition)]bool) {
	for from, set := range legalTransition {
		for to := range t[from] {
			t[from][to] = set&(1<<to) != 0
		}
	}
	return t
}()

// casgstatus moves gp from oldval to newval. Any other current state, or a
// transition the runtime never makes, is a simulator bug. Mirrors
// casgstatus in proc.go.
func casgstatus(gp *G, oldval, newval Status) {
	if gp.status != oldval || !gp.m.fastgstatus[oldval][newval] {
		casgstatusSlow(gp, oldval, newval)
	}
	gp.status = newval
}

// casgstatusSlow is casgstatus's check when the transition is illegal or
// traced; casgstatus sets the new status after it.
// Machine.fastgstatus is a copy of legal, or all false with
// Config.TraceStates, so casgstatus needs one test and one call and stays
// small enough to inline.
func casgstatusSlow(gp *G, oldval, newval Status) {
	if gp.status != oldval || !legal[oldval][newval] {
		badgstatus(gp, oldval, newval)
	}
	if gp.m.cfg.TraceStates {
		gp.status = newval // reported once made (a REPL paused at the event shows it)
		gp.m.traceStatus(gp, oldval, newval)
	}
}

// traceStatus emits the EvGoStatus of gp's move from oldval to newval. The
// event's P and M are gp's own while it has an M (execute, gopark,
// entersyscall, goexit0), else those of the G whose code made the move
// (goready from a channel operation), else none: the scheduler's own
// actions (a timer firing, sysmon) happen on no goroutine.
func (m *Machine) traceStatus(gp *G, oldval, newval Status) {
	mp := gp.mp
	if mp == nil && m.curg != nil && m.curg != gp {
		mp = m.curg.mp
	}
	var pp *P
	if mp != nil {
		pp = mp.p
	}
	reason := ""
	if newval == Gwaiting {
		reason = gp.waitreason
	}
	m.emit(EvGoStatus, pp, mp, gp, nil, -1, int64(oldval)<<8|int64(newval), reason)
}

// GoName is the state's name in runtime2.go: "_Grunnable", "_Gwaiting", ...
func (s Status) GoName() string { return "_G" + s.String() }

// badgstatus throws for a casgstatus that is not allowed. It is apart from
// casgstatus so that casgstatus is small enough to be inlined.
func badgstatus(gp *G, oldval, newval Status) {
	if gp.status != oldval {
		throw(fmt.Sprintf("casgstatus: G%d is %v, want %v (moving to %v)", gp.goid, gp.status, oldval, newval))
	}
	throw(fmt.Sprintf("casgstatus: illegal transition %v → %v for G%d", oldval, newval, gp.goid))
}

// PStatus is a P's state.
type PStatus uint8

// P states, from runtime2.go (see the file comment on _Psyscall).
const (
	Pidle    PStatus = iota // on the idle list, no M
	Prunning                // owned by an M
	Psyscall                // its M is in a syscall; sysmon may retake it
	Pgcstop                 // stopped for a stop-the-world (GOMAXPROCS, and the GC under --gc-cycle=stw)
	Pdead                   // no longer used (GOMAXPROCS shrank)
)

func (s PStatus) String() string {
	switch s {
	case Pidle:
		return "idle"
	case Prunning:
		return "running"
	case Psyscall:
		return "syscall"
	case Pgcstop:
		return "gcstop"
	case Pdead:
		return "dead"
	}
	return fmt.Sprintf("PStatus(%d)", uint8(s))
}

// Wait reasons, with the strings of runtime2.go's waitReasonStrings. A G
// parked by the user's park(reason) carries the user's own string.
const (
	WaitReasonChanReceive        = "chan receive"
	WaitReasonChanSend           = "chan send"
	WaitReasonChanReceiveNilChan = "chan receive (nil chan)"
	WaitReasonChanSendNilChan    = "chan send (nil chan)"
	WaitReasonSelect             = "select"
	WaitReasonSelectNoCases      = "select (no cases)"
	WaitReasonSleep              = "sleep"
	WaitReasonSyncMutexLock      = "sync.Mutex.Lock"
	WaitReasonSyncWaitGroupWait  = "sync.WaitGroup.Wait"
	WaitReasonPreempted          = "preempted"
	WaitReasonIOWait             = "IO wait"
)

// An InternalError is a broken invariant of the simulator itself: a bug in
// schedlab, never in the user's program. Mirrors the runtime's throw.
type InternalError struct{ Msg string }

func (e *InternalError) Error() string { return "schedlab internal error: " + e.Msg }

// throw reports a broken invariant. Never returns.
func throw(s string) {
	panic(&InternalError{Msg: s})
}
