// The cooperative core.
//
// Sched is the smallest scheduler that still deserves the name: a list of
// tasks and a loop that runs them in turn, each until it gives the CPU back.
// It is the part of Go's schedule() that no later refinement removes. The real
// runtime hands a goroutine its thread with execute(gp) and gets the thread
// back only when the goroutine re-enters the scheduler (gopark, goexit,
// Gosched, a preemption check). Sched does the same with yield in the role of
// Gosched and the end of the task's function in the role of goexit; there is
// no preemption, so a task that never yields keeps the CPU until it returns,
// as every goroutine could before Go 1.14.
//
// Go code cannot save and restore registers, so a task is not a saved context
// but a real goroutine that is parked whenever it does not own the CPU. What
// makes the scheme work is a single baton. Exactly one party holds it at a
// time: either the scheduler loop in Run or one task. Only the holder may do
// anything another party could observe (touch shared state, print, register
// work); everyone else is parked in a coroutine switch. Passing the baton is
// one coro switch: resume hands it from the scheduler to a task and parks the
// scheduler until the task hands it back with yield or by returning. Moving
// from one task to the next is therefore two switches, task → scheduler →
// task, and the decision of who goes next is always taken by the scheduler,
// never by the task that is leaving.
//
// Because the baton is never in two hands, the order in which things happen
// is a function of the program alone: the host's GOMAXPROCS may be 1 or 32,
// the host scheduler may run our goroutines on any thread it likes, and the
// interleaving is still the same round-robin one. Concurrency without
// parallelism, on purpose.
//
// The lesson built the switch from two unbuffered channel rendezvous per
// switch (the task's resume channel and the scheduler's shared park channel).
// That works, but each handoff wakes a goroutine through the host run queue,
// and for an instant both sides are runnable; the side that has just handed
// the baton over merely promises to do nothing before it parks. coro uses
// iter.Pull instead, whose coroswitch parks the current goroutine and runs
// the other one on the same thread, so the handover is direct and the promise
// is kept by construction. docs/performance.md has the measurements.
//
// Invariants:
//
//   - at most one of {the goroutine running Run, the task goroutines} is
//     outside a coroutine switch at any time;
//   - tasks run in the order they were registered with Go; a task that yields
//     goes to the back of the line;
//   - a task whose function returned (or panicked) is never resumed again;
//     its goroutine has exited by the time the scheduler regains the baton;
//   - the yield handed to a task is valid only on that task's own goroutine
//     while it holds the baton;
//   - when Run returns or panics, no task goroutine is left: every task has
//     returned or has been stopped (its stack unwound, deferred calls run).

package runtime

// errYieldOutside is the panic value of a yield called while its task does
// not hold the baton.
const errYieldOutside = "schedlab: yield called outside its task (from another goroutine, or after the task returned)"

// A Sched is the lesson's cooperative scheduler: it runs tasks, registered
// with Go, one at a time in round-robin order until every one has returned.
// Each task runs on its own goroutine, but only one goroutine (the one
// calling Run, or a single task) does work at any moment, so the
// interleaving is deterministic whatever the host's GOMAXPROCS.
//
// The zero value is ready to use. A Sched runs once: register tasks, call
// Run, discard it.
type Sched struct {
	tasks   []*task // in registration order
	started bool    // Run has been called; Go is no longer allowed
	cur     *task   // the task holding the baton, nil while the scheduler holds it
}

// A task is one function registered with Sched.Go.
type task struct {
	fn func(yield func()) // the user's function
	co *coro              // created by Run; nil before
}

// NewSched returns an empty scheduler.
func NewSched() *Sched { return &Sched{} }

// Go registers f as a task. The task does not start until Run; it receives a
// yield function that gives the CPU back to the scheduler and returns when
// the task's turn comes round again.
//
// Go must be called before Run. It panics with "schedlab: Sched.Go called
// after Run started" when called from a task or after Run, and panics if f is
// nil.
func (s *Sched) Go(f func(yield func())) {
	if s.started {
		panic("schedlab: Sched.Go called after Run started")
	}
	if f == nil {
		panic("schedlab: Sched.Go called with a nil function")
	}
	s.tasks = append(s.tasks, &task{fn: f})
}

// Run runs every registered task to completion and returns when all of them
// have returned. Tasks run one at a time, in the order they were registered:
// each runs until it calls yield or returns, then the next one runs; a task
// that yielded is resumed after every other live task has had its turn.
//
// A yield must be called only by its own task, on the task's goroutine: a
// call from another goroutine (while the task is parked), from another task,
// or after the task has returned panics with "schedlab: yield called outside
// its task ...". A goroutine that the task itself started and that calls
// yield while the task is running cannot be told apart from the task (Go
// exposes no cheap goroutine identity) and breaks the one-baton invariant;
// don't.
//
// If a task panics, Run stops every other unfinished task (their stacks
// unwind and their deferred calls run, so no goroutine is left behind) and
// then panics in its caller with a *TaskPanic holding the original panic
// value and the task's stack. Run panics if called more than once.
func (s *Sched) Run() {
	if s.started {
		panic("schedlab: Sched.Run called more than once")
	}
	s.started = true
	for _, t := range s.tasks {
		t.co = newCoro(s.taskBody(t))
	}
	// Whatever way Run leaves (normally, by a task's panic, or by a task's
	// runtime.Goexit, which iter.Pull passes on to us), no task goroutine
	// may outlive it. stop is a no-op for tasks that already finished.
	defer func() {
		s.cur = nil
		for _, t := range s.tasks {
			t.co.stop()
		}
	}()

	// live holds the unfinished tasks in turn order. Each pass resumes every
	// live task once and compacts the slice in place, so a task that yielded
	// keeps its place relative to the others: round robin.
	live := append([]*task(nil), s.tasks...)
	for len(live) > 0 {
		n := 0
		for _, t := range live {
			s.cur = t
			alive := t.co.resume()
			s.cur = nil
			if p := t.co.panicked; p != nil {
				panic(p) // the deferred stop unwinds the others first
			}
			if alive {
				live[n] = t
				n++
			}
		}
		clear(live[n:])
		live = live[:n]
	}
}

// taskBody returns the coroutine function of t: it calls the user's function
// with a yield that checks that t holds the baton before switching.
func (s *Sched) taskBody(t *task) func(*coro) {
	return func(c *coro) {
		t.fn(func() {
			if s.cur != t {
				panic(errYieldOutside)
			}
			c.yield()
		})
	}
}
