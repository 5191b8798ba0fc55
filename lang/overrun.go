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
// The dump is read from the overrun's goroutine while the run's goroutine
// is inside its one call. That call is a builtin of Starlark's universe
// (lang's own builtins return at once or park): it touches no goroutine's
// stack and no state of the Machine, so what the dump reads stands still.
// endMu keeps the dump from overlapping the end of the run: a run that
// ends takes it and marks itself ended, and an overrun that finds the run
// ended does nothing.

package lang

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/schedlab/schedlab/runtime"
)

// StopGrace is how long a run stopped by a host limit or an interrupt may
// take to end before the call it is in counts as stuck (OnOverrun). A run
// stops between two instructions within microseconds; its report, even
// for 100,000 goroutines, takes well under this.
const StopGrace = 500 * time.Millisecond

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

// armOverrun gives the run StopGrace to end after a stop for le.
func (r *run) armOverrun(le *runtime.LimitError) {
	if r.opts.OnOverrun == nil {
		return
	}
	time.AfterFunc(StopGrace, func() { r.overrun(le) })
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

// overrun hands OnOverrun the report of a run stopped by le that is still
// inside one call. It holds endMu while OnOverrun runs, so the run cannot
// end (and print its own report) meanwhile; OnOverrun is expected to end
// the process.
func (r *run) overrun(le *runtime.LimitError) {
	f := r.opts.OnOverrun
	if f == nil {
		return
	}
	r.endMu.Lock()
	defer r.endMu.Unlock()
	if r.ended || r.m == nil {
		return
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "schedlab: %s\n\n", le.Msg)
	WriteGoroutineDump(&b, r.m)
	call, id := "a builtin", int64(0)
	if gr := r.current(); gr != nil {
		id = gr.id
		if st := gr.thread.CallStack(); len(st) > 0 {
			call = st[len(st)-1].Name
		}
	}
	fmt.Fprintf(&b, "\nschedlab: goroutine %d is still inside one call of %s, and a call cannot be stopped halfway: the process exits\n", id, call)
	f(le, b.Bytes())
}
