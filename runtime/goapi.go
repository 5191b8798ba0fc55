// The goroutine's side of the Machine.
//
// A goroutine's Func receives its own *G and calls these methods to do what
// a Go program does with the go statement, runtime.Gosched, channels, time
// and sync. Each method that can block arranges what happens next (its M
// schedules, a timer is set, a completion is queued) and then yields the
// baton; it returns when the scheduler runs the G again.
//
// Every method must be called by the goroutine itself while it runs; a call
// from anywhere else is a simulator misuse and throws.

package runtime

import "fmt"

// check throws unless g is the goroutine running now.
func (g *G) check() {
	if g.m.curg != g {
		throw(fmt.Sprintf("G%d called a scheduling method while not running", g.goid))
	}
}

// Go creates a goroutine running fn (the go statement). The new G goes into
// runnext of the current P, kicking the G that was there to the ring, and
// an idle P is woken to steal if there is one. name labels the goroutine in
// traces and dumps. Mirrors newproc.
func (g *G) Go(fn Func, name string) (*G, error) { return g.GoData(fn, name, nil) }

// GoData is Go with data as the new G's Data from its creation, before it
// is queued or any event names it: a language whose goroutines share one
// fn that finds its own state in Data spawns without a closure.
func (g *G) GoData(fn Func, name string, data any) (*G, error) {
	g.check()
	m := g.m
	if max := m.cfg.MaxGoroutines; max > 0 && m.ngalive >= max {
		return nil, &LimitError{What: "goroutines", Msg: fmt.Sprintf("goroutine limit reached: %d goroutines alive (--max-goroutines=%d)", m.ngalive, max)}
	}
	// newproc1's work (a G from the free list or a new one, its stack and
	// goid) comes before the G is queued and wakep runs.
	g.spendNewproc()
	pp := g.mp.p
	newg := m.newproc1(fn, g, pp, name)
	newg.Data = data
	m.stats.Spawns++
	m.newprocput(pp, g.mp, g, newg, name)
	return newg, nil
}

// Gosched yields the processor: g goes to the global run queue and the P
// runs something else (runtime.Gosched). With nothing else runnable, g is
// taken straight back from the global queue. Mirrors gosched_m.
func (g *G) Gosched() {
	g.check()
	g.m.goschedImpl(g, false)
	g.co.yield()
}

// Park blocks g with the given wait reason until another goroutine calls
// Ready on it, and returns the value passed to Ready. Mirrors gopark.
func (g *G) Park(reason string) any {
	g.check()
	g.m.touchPark(g.goid, AccessWrite)
	g.parkedByUser = true
	g.m.gopark(g, reason)
	g.co.yield()
	v := g.param
	g.param = nil
	return v
}

// ParkHost is Park for a goroutine that waits for the host (the REPL's G1
// between statements): while it waits and nothing else can run, the run is
// Idle rather than deadlocked. The host wakes it with Machine.ReadyHost.
func (g *G) ParkHost(reason string) any {
	g.hostWait = true
	v := g.Park(reason)
	g.hostWait = false
	return v
}

// Ready makes gp, parked by Park, runnable again, in runnext of g's P, and
// passes it v as Park's result. Mirrors goready.
func (g *G) Ready(gp *G, v any) error {
	g.check()
	if gp != nil {
		g.m.touchPark(gp.goid, AccessWrite)
	}
	if gp == nil || gp.status != Gwaiting || !gp.parkedByUser || gp.hostWait {
		return notParked(gp)
	}
	gp.parkedByUser = false
	gp.param = v
	g.goready(gp)
	return nil
}

func notParked(gp *G) error {
	if gp == nil {
		return fmt.Errorf("ready of a nil goroutine")
	}
	if gp.status == Gwaiting && gp.hostWait {
		return fmt.Errorf("ready of goroutine %d, which waits for the host (%s), not for ready()", gp.goid, gp.waitreason)
	}
	if gp.status == Gwaiting {
		return fmt.Errorf("ready of goroutine %d, which is blocked on %s, not parked by park()", gp.goid, gp.waitreason)
	}
	return fmt.Errorf("ready of goroutine %d, which is not parked (it is %v)", gp.goid, gp.status)
}

// ReadyHost readies gp, parked by ParkHost, from outside the run (the
// host). It goes on the global queue, and an idle P is woken for it.
func (m *Machine) ReadyHost(gp *G, v any) error {
	if gp == nil || gp.status != Gwaiting || !gp.parkedByUser {
		return notParked(gp)
	}
	gp.parkedByUser = false
	gp.param = v
	m.ready(gp, nil, nil, false)
	if m.result.Outcome == Idle {
		m.result.Outcome = Running
	}
	return nil
}

// Current returns the goroutine running now, or nil.
func (m *Machine) Current() *G { return m.curg }

// Dispatches returns how many times g has been put on a CPU by execute (its
// GoStart events, whether or not it inherited the time slice). An observer
// that saw another value knows g was off the CPU since, without watching
// the event stream.
func (g *G) Dispatches() uint64 { return g.dispatches }

// Schedtick returns P p's schedtick, or 0 if there is no such P. It
// advances whenever the P starts a new time slice, which is what sysmon's
// retake watches: a G that inherits the slice of a runnext hand-off does
// not advance it.
func (m *Machine) Schedtick(p int) uint32 {
	if p < 0 || p >= len(m.allp) {
		return 0
	}
	return m.allp[p].schedtick
}

// Now returns the virtual time in nanoseconds (time.Now).
func (g *G) Now() int64 { return g.m.now }

// Work burns d ns of CPU on g's P: virtual time passes while the P stays
// busy. A G working longer than the 10ms time slice is preempted by sysmon
// (unless preemption is off) and finishes its work when it runs again.
func (g *G) Work(d int64) {
	g.check()
	m := g.m
	if (g.preempt && !m.cfg.NoPreempt) || m.perturbPreempt(g) {
		g.preempt = false
		m.goschedImpl(g, true)
		g.co.yield()
	}
	if d <= 0 {
		return
	}
	g.work(m.jitter(d))
}

// work burns d ns on g's P, one chunk at a time: the rest of the work
// after each preemption or stop-the-world that interrupted it (workLeft),
// until none is left. Work and the GC's mark workers and assists (gcDrain, gcAssistAlloc1) share it.
func (g *G) work(d int64) {
	m := g.m
	g.workLeft = d
	for g.workLeft > 0 {
		left := g.workLeft
		g.workUntil = m.when(left)
		m.emit(EvGoWork, g.mp.p, g.mp, g, nil, -1, left, "")
		m.after(left, action{kind: actResume, gp: g, gen: g.gen})
		g.co.yield()
		// Resumed either when the work was done (workLeft is 0) or,
		// after a preemption, to do what is left.
	}
	g.runtime = addWhen(g.runtime, d)
}

// Preempt is a safe point for a goroutine that has run its time slice
// without a scheduling point (StepsSpent calls it at the end of a P's
// step-counted slice, steps.go). With preemption on, g goes to the global
// queue as sysmon's preemption would send it, and Preempt reports true
// once g runs again; with preemption off it does nothing and reports
// false.
func (g *G) Preempt() bool {
	g.check()
	if g.m.cfg.NoPreempt {
		return false
	}
	g.preempt = false
	g.m.goschedImpl(g, true)
	g.co.yield()
	return true
}

// Morestack is the stack check in the prologue of a function g calls:
// if a preemption was requested (sysmon's retake → preemptone set
// gp.preempt and stackguard0 = stackPreempt), the check fails, morestack
// calls newstack, which sees stackPreempt and preempts g through
// gopreempt_m: g goes to the global queue, and Morestack reports true
// once g runs again. Otherwise it does nothing and reports false. With
// preemption off this is the only way a G that does not block is
// preempted (Go before 1.14, GODEBUG=asyncpreemptoff=1); the language
// calls it at every Starlark function call and every builtin call.
// Mirrors newstack's "if preempt { ... gopreempt_m(gp) }".
func (g *G) Morestack() bool {
	g.check()
	if !g.preempt {
		return false
	}
	g.preempt = false
	g.m.goschedImpl(g, true)
	g.co.yield()
	return true
}

// PreemptRequested reports whether a preemption of g was requested and
// not yet honoured: whether g's next stack check (Morestack) preempts it.
func (g *G) PreemptRequested() bool { return g.preempt }

// RequestPreempt posts a preemption request for g, as sysmon's
// preemptone does with preemption off: the next stack check (Morestack)
// honours it. StepsSpent calls it when g's P has run its step-counted
// time slice and steps take no virtual time (the zero profile, steps.go),
// where sysmon, which watches the clock, cannot see the slice end. A
// dispatch drops the request (execute resets stackguard0).
func (g *G) RequestPreempt() {
	g.check()
	g.preempt = true
}

// Syscall makes a blocking system call lasting d ns. The G keeps its P in
// _Psyscall; if the call lasts past a sysmon tick and there is other work,
// sysmon hands the P to another M (a new thread if none is idle). On return
// the G gets its P back, or an idle one, or waits on the global queue.
func (g *G) Syscall(d int64) {
	g.check()
	g.syscall(d, false)
}

// SyscallTimer makes a blocking system call that sleeps on a kernel timer
// for d ns (nanosleep, or a wait with a timeout), which returns late, as
// a timer does: by the kernel's timer slack (50µs for a normal thread)
// and the thread's wake-up. The call lasts d plus that lateness, the
// profile's syscall_timer_late (measured on nanosleep itself) if it has
// one, else its timer_late (measured for an M asleep in netpoll until a
// timer's deadline); otherwise it is Syscall.
func (g *G) SyscallTimer(d int64) {
	g.check()
	g.syscall(d, true)
}

// syscall is Syscall of a call lasting d ns, and with timer as late as a
// timer fires.
func (g *G) syscall(d int64, timer bool) {
	m := g.m
	g.spendCost(CostSyscallEnter)
	d = m.jitter(max(d, 0))
	if timer {
		d = addWhen(d, addWhen(m.costOf(CostSyscallTimerLate), m.wakeupJitter()))
	}
	m.entersyscall(g, d)
	g.co.yield()
	g.spendCost(CostSyscallExit)
}

// WriteStdout makes the write(2) of one printed line to standard output, as
// fmt.Println does (os.(*File).Write → poll.(*FD).Write → syscall.Write,
// between entersyscall and exitsyscall): a Syscall lasting the profile's
// write cost. The language calls it for each printed line only when asked
// to (--print=syscall); the line itself is the language's to write, in out,
// which WriteStdout calls as the system call starts: the kernel has the
// line then, and a write by another thread after it comes after it (the
// pipe's lock orders them). out may be nil.
//
// The run's first line pays the profile's print_first before its call, as
// the G's own CPU time, and so before out: a young process's first
// fmt.Println allocates its printer and touches fmt's code and data for
// the first time, 30-50µs where a later line takes 2µs, and a line that
// another G prints meanwhile goes out first. The first line printed on a
// P other than the one main.main began on pays print_p_first too, then:
// that P's mcache and stack cache are empty, and its first allocations
// take spans from the heap (a P that runs no Go code before it, unlike
// main's, which ran the package inits). The first write(2) lasts
// write_first in place of write.
func (g *G) WriteStdout(out func()) {
	g.check()
	m := g.m
	if !m.printed {
		m.printed = true
		g.spendCost(CostPrintFirst)
	}
	if pp := g.mp.p; !pp.printed {
		pp.printed = true
		if m.printPFirst && pp.id != m.mainP {
			g.spendCost(CostPrintPFirst)
		}
	}
	if out != nil {
		out()
	}
	k := CostWrite
	if !m.wrote {
		m.wrote = true
		k = CostWriteFirst
	}
	g.Syscall(m.costOf(k))
}

// GOMAXPROCS sets the number of Ps to n and returns the previous number;
// n < 1 only reports it (runtime.GOMAXPROCS). Changing it stops the world:
// Gs working on other Ps are preempted to the global queue.
func (g *G) GOMAXPROCS(n int) (int, error) {
	g.check()
	m := g.m
	prev := int(m.gomaxprocs)
	if n < 1 || n == prev {
		return prev, nil
	}
	if n > maxProcs {
		return prev, fmt.Errorf("gomaxprocs: %d is more than the limit of %d", n, maxProcs)
	}
	m.stopTheWorld(g)
	m.procresize(int32(n))
	m.startTheWorld()
	return prev, nil
}

// MarkLeaked marks gp, blocked for good on an object that no goroutine that
// can still run can reach, as _Gleaked (Go 1.26's goroutine leak
// detection). The caller (the language, which can see the program's values)
// decides reachability; gp must be waiting.
func (m *Machine) MarkLeaked(gp *G) error {
	if gp.status != Gwaiting {
		return fmt.Errorf("MarkLeaked: G%d is %v, not waiting", gp.goid, gp.status)
	}
	casgstatus(gp, Gwaiting, Gleaked)
	return nil
}
