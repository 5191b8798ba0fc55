// Host limits that one call outlasts, and interrupts.
//
// The host's limits (the wall-clock timeout, --max-memory) and an
// interrupt from the host (Options.Cancel: the command's SIGINT) stop a
// run from another goroutine (run.stop): they cancel every thread, which
// the interpreter notices between two instructions. One builtin call is
// not interrupted: str() of a list nested a million deep, or sorted() of a
// huge list, runs in Go until it returns. So that a limit still holds,
// stop also arms a timer: if the run has not ended StopGrace later, the
// call is taken to be stuck, and Options.OnOverrun is given the report the
// run would have printed (the diagnosis, the dump of every goroutine, and
// a line naming the call still running), for a command that can end its
// process. The memory watchdog calls it too, when the memory goes on
// growing past the limit.
//
// The dump is read on the overrun's goroutine while the run's goroutine
// goes on, so it may be read only while nothing it reads can change: the
// Machine's goroutines, their states and wait reasons, and every
// goroutine's Starlark stack. A run that has not ended StopGrace after a
// stop is not always inside one call: a stretch of the engine's own
// (netpollgoready readying many goroutines, on a loaded host or under
// -race), of lang's code or of the interpreter may outlast it too, and
// each changes what the dump reads. So the run says where its goroutine
// is (run.call, an atomic), and the dump is read only while the run is
// parked in a call:
//
//   - Every builtin of Starlark's universe that may take long (str,
//     sorted, list, ...; not those that take constant time, such as len
//     and range) is, for the run's code, one of the same name that parks
//     the run for the length of the call (callParked): parkedUniverse,
//     made once for every run and predeclared by each (run.names). The
//     call finds the run to park in its thread (threadRun: every thread
//     of a run that runs code holds the run as a thread-local); on a
//     thread that no run made it is the universe's call. It parks after
//     the interpreter has pushed the call's frame, so every change that
//     the dump reads happens before an overrun that finds the run parked
//     (the race detector's happens-before, and the memory model's).
//   - Such a call runs Starlark's own Go code and methods of lang's
//     values (String, Hash, Truth, Attr), which change nothing of the
//     run's (Attr only keeps the value's bound methods), with three
//     exceptions. A call of sorted, min or max with keywords is not
//     parked at all: key= calls back into Starlark. `list(ch)` receives
//     through the engine (chanIterator.Next, through blocking), and ch's
//     Len (Channel.Len) records a footprint for a Tracker: both unpark
//     the run first (unparkFor).
//   - The overrun reads the run only after it swapped callParked for
//     callDumping, and holds endMu until OnOverrun returns. A call that
//     returns, or that reaches lang, meanwhile (unpark finds callDumping)
//     waits for endMu: the run goes on only once the report is out.
//
// A run that is not parked (in the engine, in lang, in the interpreter,
// or inside a call that is no universe builtin's: a method such as
// ",".join, one instruction such as x * x on a number of millions of
// digits) is looked at again every overrunPoll, so that a slow stretch
// of the engine ends the run with its own report. If it is still busy
// StopGrace after the first look, OnOverrun is given a report without
// the dump (the diagnosis, and a line saying why there is no dump),
// which reads nothing of the run's: the limit holds within twice
// StopGrace.
//
// endMu also keeps the report from overlapping the end of the run: a run
// that ends takes it and marks itself ended, and an overrun that finds the
// run ended does nothing.

package lang

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

// StopGrace is how long a run stopped by a host limit or an interrupt may
// take to end before the call it is in counts as stuck (OnOverrun). A run
// stops between two instructions within microseconds; its report, even
// for 100,000 goroutines, takes well under this. A run that is busy
// elsewhere than in one call is given StopGrace more (overrun).
const StopGrace = 500 * time.Millisecond

// overrunPoll is how often an overrun looks again at a run that is not
// parked in a call.
const overrunPoll = 10 * time.Millisecond

// Where the run's goroutine is, as an overrun sees it (run.call).
const (
	callNone    int32 = iota // anywhere else: the interpreter, lang, the engine; what the dump reads may change
	callParked               // inside a call of a universe builtin (parkedUniverse) that has reached no code of lang's
	callDumping              // inside such a call, and an overrun reads the run (unpark waits for it)
)

// interruptError is the limit of a run stopped by Options.Cancel.
func interruptError() *runtime.LimitError {
	return &runtime.LimitError{What: "interrupt", Msg: "interrupted (SIGINT)"}
}

// IsInterrupt reports whether res is the result of a run stopped by
// Options.Cancel.
func IsInterrupt(res *Result) bool {
	if res == nil || res.Run == nil {
		return false
	}
	var le *runtime.LimitError
	return errors.As(res.Run.Err, &le) && le.What == "interrupt"
}

// watchCancel stops the run when cancel is closed, until done is closed.
func (r *run) watchCancel(cancel, done <-chan struct{}) {
	select {
	case <-cancel:
		r.stop(interruptError())
	case <-done:
	}
}

// constantTime are the builtins of Starlark's universe whose call takes
// constant time whatever its arguments: they cannot outlast a stop, and
// stay the universe's own, at no cost (len and range are the hottest).
var constantTime = map[string]bool{"bool": true, "chr": true, "getattr": true, "hasattr": true, "len": true, "ord": true, "range": true, "type": true}

// parkedUniverse are the builtins of Starlark's universe that may take
// long (not constantTime) and that lang does not define itself (print),
// each as a builtin of the same name whose call parks the run of the
// thread that calls it (parkedCall). They are made once, for every run:
// a run predeclares them (newRun) under its own names.
var parkedUniverse = parkUniverse()

// parkUniverse returns parkedUniverse.
func parkUniverse() starlark.StringDict {
	d := make(starlark.StringDict)
	for name, v := range starlark.Universe {
		if b, ok := v.(*starlark.Builtin); ok && !constantTime[name] && builtins[name] == nil {
			d[name] = parkedCall(b)
		}
	}
	return d
}

// isParked reports whether v, predeclared as name, is the parkedUniverse
// builtin of that name rather than a name of the run's own.
func isParked(name string, v starlark.Value) bool {
	p, ok := parkedUniverse[name]
	return ok && p == v
}

// runKey is the thread-local under which every thread of a run that runs
// code holds the run (newThread): a parked builtin finds there the run it
// parks.
const runKey = "schedlab.run"

// threadRun returns the run whose thread thread is, or nil for a thread
// that no run made.
func threadRun(thread *starlark.Thread) *run {
	r, _ := thread.Local(runKey).(*run)
	return r
}

// parkedCall returns b, a builtin of Starlark's universe, as a builtin of
// the same name whose call parks the run of the calling thread (threadRun:
// callParked) until it returns. A call of sorted, min or max with keyword
// arguments is not parked: its key= calls back into Starlark. On a thread
// that no run made it is b's call.
func parkedCall(b *starlark.Builtin) *starlark.Builtin {
	name := b.Name()
	keyed := name == "sorted" || name == "min" || name == "max"
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		r := threadRun(thread)
		if r == nil || keyed && len(kwargs) > 0 {
			return b.CallInternal(thread, args, kwargs)
		}
		r.call.Store(callParked)
		defer r.unpark()
		return b.CallInternal(thread, args, kwargs)
	})
}

// unpark ends the run's parked call: at its return, or before code of
// lang's that the call reaches changes the run. If an overrun is reading
// the run, it waits until the report is out. Executed only by the run's
// goroutine.
func (r *run) unpark() {
	if r.call.CompareAndSwap(callParked, callNone) || r.call.Load() == callNone {
		return
	}
	r.endMu.Lock() // callDumping: the overrun holds endMu until its report is out
	r.call.Store(callNone)
	r.endMu.Unlock()
}

// unparkFor is unpark before code of lang's that a universe builtin's
// call may reach changes the run (blocking, for chanIterator.Next;
// Channel.Len): cheap when the run is not parked, as it mostly is there.
func (r *run) unparkFor() {
	if r.call.Load() != callNone {
		r.unpark()
	}
}

// armOverrun gives the run StopGrace to end after a stop for le, then
// looks at it every overrunPoll until overrun is done.
func (r *run) armOverrun(le *runtime.LimitError) {
	if r.opts.OnOverrun == nil {
		return
	}
	var look func()
	look = func() {
		if !r.overrun(le) {
			time.AfterFunc(overrunPoll, look)
		}
	}
	time.AfterFunc(StopGrace, look)
}

// endRun marks the run ended: an overrun after it does nothing.
func (r *run) endRun() {
	r.endMu.Lock()
	r.ended = true
	r.endMu.Unlock()
}

// isEnded reports whether endRun was called.
func (r *run) isEnded() bool {
	r.endMu.Lock()
	defer r.endMu.Unlock()
	return r.ended
}

// overrun hands OnOverrun the report of a run stopped by le that has not
// ended: with the dump when the run is parked in a call, without it when
// the run has been busy elsewhere for StopGrace since the first look. It
// reports whether it is done: the report was given, or there is none to
// give (no OnOverrun, the run ended); false means look again. It holds
// endMu while OnOverrun runs, so the run cannot end (and print its own
// report) meanwhile, nor go on from its call; OnOverrun is expected to
// end the process.
func (r *run) overrun(le *runtime.LimitError) bool {
	f := r.opts.OnOverrun
	if f == nil {
		return true
	}
	r.endMu.Lock()
	defer r.endMu.Unlock()
	if r.ended || r.m == nil {
		return true
	}
	now := time.Now()
	if r.overrunBy.IsZero() {
		r.overrunBy = now.Add(StopGrace)
	}
	parked := r.call.CompareAndSwap(callParked, callDumping)
	if !parked && now.Before(r.overrunBy) {
		return false // busy elsewhere: look again
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "schedlab: %s\n\n", le.Msg)
	if parked {
		// The run stands still: unpark waits for endMu.
		WriteGoroutineDump(&b, r.m)
		call, id := "a builtin", int64(0)
		if gr := r.current(); gr != nil {
			id = gr.id
			if st := gr.thread.CallStack(); len(st) > 0 {
				call = st[len(st)-1].Name
			}
		}
		fmt.Fprintf(&b, "\nschedlab: goroutine %d is still inside one call of %s, and a call cannot be stopped halfway: the process exits\n", id, call)
	} else {
		b.WriteString("schedlab: the run has not stopped, and what it is in the middle of (one instruction, a call, or a step of the scheduler) can neither be stopped halfway nor read for a goroutine dump while it runs: the process exits\n")
	}
	f(le, b.Bytes())
	if parked {
		r.call.Store(callParked) // the call goes on, or returns once endMu is free (unpark)
	}
	return true
}
