// Task switching.
//
// Every task of the cooperative core and every goroutine of the M:P:G engine
// is a real Go goroutine that is parked except while it holds the baton.
// The baton is passed by a coroutine switch: the scheduler resumes a task and
// blocks until the task yields (or returns); the task yields and blocks until
// it is resumed. At any instant at most one of the two sides does observable
// work, so a whole run is deterministic whatever the host's GOMAXPROCS.
//
// Two mechanisms were measured (BenchmarkSwitch* in coro_test.go, figures in
// docs/performance.md):
//
//   - the lesson's handoff over unbuffered channels: resume is a send on the
//     task's channel followed by a receive on the scheduler's; yield is the
//     mirror image. Each switch wakes a goroutine through the host scheduler.
//   - iter.Pull, whose coroutine switch (runtime.coroswitch) hands the
//     thread directly from one goroutine to the other without a trip through
//     a run queue.
//
// iter.Pull was several times faster, so coro is built on it.
//
// Invariants:
//
//   - resume is called only by the scheduler side, never from inside the
//     coroutine, and never after the coroutine finished;
//   - yield is called only from inside the coroutine's own function while it
//     runs;
//   - after stop returns, the coroutine's goroutine has exited: a coroutine
//     stopped while parked in yield unwinds its stack with a private panic
//     that its own frame recovers, so no host goroutine is left behind.

package runtime

import (
	"fmt"
	"iter"
	goruntime "runtime"
)

// coroStopped is the panic value with which yield unwinds a coroutine that
// is being stopped. It is recovered by the coroutine's outermost frame.
type coroStopped struct{}

// A TaskPanic is a panic raised by a task's own code, carried out of the
// coroutine to the scheduler side with the stack at the point of the panic.
type TaskPanic struct {
	Value any    // the value passed to panic
	Stack []byte // the goroutine's stack when it panicked
}

func (p *TaskPanic) Error() string { return fmt.Sprintf("task panicked: %v", p.Value) }

// coro is the task-switch primitive shared by Sched and Machine.
type coro struct {
	next     func() (struct{}, bool)
	stopFn   func()
	yieldFn  func(struct{}) bool
	fn       func(c *coro) // the function it runs now
	done     bool          // the goroutine has ended: returned, panicked or stopped
	running  bool          // between resume and the matching yield
	fnDone   bool          // a pooled coroutine finished its function and waits for the next
	pooled   bool          // runs one function after another (see newPooledCoro)
	stopped  bool          // unwound by stop
	panicked *TaskPanic    // set when the function panicked
}

// newCoro returns a coroutine that will run f when first resumed. f receives
// the coroutine so that it can yield. When f returns, the coroutine's
// goroutine ends.
func newCoro(f func(c *coro)) *coro {
	c := &coro{fn: f}
	c.next, c.stopFn = iter.Pull(c.body)
	return c
}

// newPooledCoro is newCoro for a coroutine that can be reused: when f
// returns, the goroutine parks, waiting for another function, given by
// reuse. The engine keeps finished ones on a free list, as the runtime keeps
// dead Gs with their stacks (gFree), so a million short-lived goroutines
// need not start a million host goroutines. A pooled coroutine must be
// stopped in the end.
func newPooledCoro(f func(c *coro)) *coro {
	c := &coro{fn: f, pooled: true}
	c.next, c.stopFn = iter.Pull(c.body)
	return c
}

// body is the coroutine's goroutine: run the function, and for a pooled
// coroutine wait for the next one.
func (c *coro) body(yield func(struct{}) bool) {
	c.yieldFn = yield
	for {
		c.call()
		if !c.pooled || c.panicked != nil || c.stopped {
			return
		}
		c.fnDone = true
		c.fn = nil
		if !yield(struct{}{}) {
			return
		}
	}
}

// call runs c.fn, catching its panic.
func (c *coro) call() {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(coroStopped); ok {
				c.stopped = true
				return
			}
			buf := make([]byte, 16<<10)
			buf = buf[:goruntime.Stack(buf, false)]
			c.panicked = &TaskPanic{Value: r, Stack: buf}
		}
	}()
	c.fn(c)
}

// reuse gives a pooled coroutine whose function finished a new function
// to run at the next resume.
func (c *coro) reuse(f func(c *coro)) {
	if !c.pooled || !c.fnDone || c.done {
		throw("reuse of a coroutine that is not a finished pooled one")
	}
	c.fn = f
}

// resume runs the coroutine until it yields or finishes. It reports whether
// the coroutine is still alive (it yielded rather than finished).
func (c *coro) resume() bool {
	if c.done || c.fn == nil {
		throw("resume of a finished coroutine")
	}
	c.fnDone = false
	c.running = true
	_, ok := c.next()
	c.running = false
	c.done = !ok
	return ok && !c.fnDone
}

// yield hands control back to the side that called resume and blocks until
// the next resume. If the coroutine is stopped instead, yield unwinds the
// coroutine's stack and never returns.
func (c *coro) yield() {
	if !c.running {
		yieldOutside()
	}
	c.running = false
	if !c.yieldFn(struct{}{}) {
		unwind()
	}
	c.running = true
}

// yieldOutside panics for a yield from outside the coroutine's function.
func yieldOutside() {
	panic("schedlab: yield called outside its task (from another goroutine, or after the task returned)")
}

// unwind is a stopped coroutine's way out of yield: the panic its own
// outermost frame recovers.
func unwind() { panic(coroStopped{}) }

// stop ends a coroutine that is parked in yield (or was never started):
// its stack unwinds and its goroutine exits. stop of a finished coroutine
// does nothing.
func (c *coro) stop() {
	if c.done {
		return
	}
	c.done = true
	c.stopFn()
}
