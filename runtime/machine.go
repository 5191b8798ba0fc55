// The Machine: a deterministic discrete-event simulation of Go's scheduler.
//
// A Machine holds the three kinds of objects of proc.go. A G is a goroutine:
// here a Go function running as a coroutine (see coro.go) plus the
// bookkeeping the runtime keeps in its g struct. An M is a thread: it has no
// code of its own, only the state that says which P it holds, which G it runs,
// whether it is spinning, parked or blocked in a syscall. A P is a processor:
// the right to run Go code, with its local run queue (a 256-slot ring and the
// runnext slot), its timers and its cache of dead Gs. GOMAXPROCS Ps exist.
//
// Time is virtual. Go code costs nothing: only work(d), syscall(d), sleep(d)
// and timers move the clock. The Machine keeps a queue of future actions, each
// stamped with a virtual time and a sequence number: an M that must run
// schedule(), a G whose work or syscall is done, a timer, a sysmon tick. The
// run loop (Step) takes the earliest action (ties in the order they were
// queued), advances the clock to it and performs it. Performing it may resume
// exactly one G's coroutine, which runs real code until its next scheduling
// point and then hands the baton back. So exactly one goroutine runs real code
// at any moment, and Ps that are "busy in parallel" are Ps whose actions
// interleave on the virtual clock. Everything that the real runtime decides
// by chance (steal victim order, select case order) is drawn from one PRNG
// seeded by Config.Seed. A run is therefore a pure function of the program,
// the configuration and the seed.
//
// What the simulation leaves out: the garbage collector's cycle and its
// workers (the heap and the pacer are in mgc.go and mgcpacer.go),
// locked threads (but runtime.main's, startup.go) and cgo, stack growth,
// and the memory allocator's per-P caches. What it keeps is everything
// that decides which G runs where and when: the run queues, stealing,
// spinning Ms, syscall hand-off, sysmon's retake and preemption, timers,
// the network poller, channels, select,
// semaphores, and the G state machine.
//
// The world outside the process (other hosts, the network between them)
// lives in the same action queue as world actions (actWorld, net.go), so it
// is as deterministic as the rest; it meets the process only where Go
// does, at the netpoller.

package runtime

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
)

// Constants of the real runtime.
const (
	runqSize         = 256              // len(p.runq), runtime2.go
	goidCacheBatch   = 16               // _GoidCacheBatch, proc.go
	forcePreemptNS   = 10 * 1000 * 1000 // forcePreemptNS, proc.go: the 10ms time slice
	sysmonMinDelay   = 20 * 1000        // sysmon starts with a 20µs sleep
	sysmonMaxDelay   = 10 * 1000 * 1000 // and backs off to at most 10ms
	sysmonIdleCycles = 50               // idle cycles before sysmon backs off
	syscallRetakeNS  = 10 * 1000 * 1000 // retake even with no other work after 10ms
	gFreeLocalMax    = 64               // gfput moves half of a P's free list to the global one at 64
	gFreeBatch       = 32               // gfget refills a P's free list with up to 32
	stealTries       = 4                // stealWork's rounds
	maxProcs         = 1024             // an upper bound on GOMAXPROCS, for sanity
	coroFreeMax      = 1024             // finished coroutines kept for reuse
)

// Config says how to build a Machine.
type Config struct {
	Procs     int    // GOMAXPROCS at start; 0 means 1
	Seed      uint64 // seeds the one PRNG of the run
	NoPreempt bool   // turn off sysmon's preemption of long-running Gs (as before Go 1.14)
	Tracer    Tracer // receives every scheduling event; nil for none
	// TraceStates also sends the Tracer an EvGoStatus for every change of
	// a G's status (casgstatus), so that the state machine of runtime2.go
	// can be followed edge by edge (--trace-states).
	TraceStates bool

	// Limits. Zero means no limit.
	MaxGoroutines int   // goroutines alive at once
	MaxTime       int64 // virtual nanoseconds

	// Costs is the profile that charges virtual time for the runtime's
	// own steps and for the goroutines' code (costs.go); nil is the zero
	// profile, in which only work, syscalls, sleeps and timers move the
	// clock.
	Costs *Costs

	// Quantum is how many steps of its code a goroutine runs, at most,
	// before the engine lets the other Ps catch up with its clock (see
	// G.StepBudget); 0 means DefaultQuantum.
	Quantum uint64

	// Step budgets (steps.go); zero means the default. SliceSteps is how
	// many steps of code a P runs in one time slice when steps take no
	// time, after which sysmon's preemption preempts the G running
	// (DefaultSliceSteps). WedgeSteps is how many steps a G may run,
	// with preemption off, after its preemption was requested, before
	// the run ends as wedged (DefaultWedgeSteps).
	SliceSteps uint64
	WedgeSteps uint64

	// Perturb varies timing and preemption from the seed (schedlab
	// explore); the zero value perturbs nothing.
	Perturb Perturb

	// Sched is the scheduler variant (variant.go, --sched); the zero
	// value is Go's own scheduler.
	Sched Policy

	// NetLatency is the one-way latency of the network between two
	// sockets (net.go); 0 means DefaultNetLatency.
	NetLatency int64

	// CPUQuota is the container's CPU limit in CPUs (CFS bandwidth
	// control, quota.go); 0 means none. CPUPeriod is its period; 0 means
	// DefaultCPUPeriod.
	CPUQuota  float64
	CPUPeriod int64
	// Chooser, if not nil, answers the choice points of choice.go: where
	// a safe point preempts and which ready case a select takes. Nil
	// leaves them to Go's rules, the perturbations and the PRNG.
	Chooser Chooser
	// ChooseStalls makes the Chooser answer ChoiceStall too: at a safe
	// point, whether the running G's thread loses its CPU until the next
	// action of the process is due (choice.go). False asks no such
	// question, and a run is as without it.
	ChooseStalls bool
	// CPUs is the machine's CPU count (cpus.go): at most that many
	// threads of the process run at a time, the others take turns; 0
	// means every thread has a CPU of its own.
	CPUs int
	// RuntimeMain starts G1 as runtime.main does, with the runtime's own
	// goroutines and the locked M0 of its init, before the program's main
	// (startup.go, --startup=go); false starts main alone on M0 and P0.
	RuntimeMain bool

	// GOGC is the GC percent at start (GOGC, debug.SetGCPercent; -1 is
	// off) and MemoryLimit the soft memory limit in bytes (GOMEMLIMIT,
	// debug.SetMemoryLimit); nil means Go's defaults, DefaultGOGC and
	// NoMemoryLimit (mgc.go, mgcpacer.go).
	GOGC        *int32
	MemoryLimit *int64
	// GCCycle is how much of a GC cycle is modelled (mgc.go, --gc-cycle):
	// GCInstant, the zero value, a cycle that takes no time and changes
	// no schedule; GCStopTheWorld, its two stop-the-world pauses;
	// GCMark, and the concurrent mark between them, by mark workers on Ps.
	GCCycle GCCycle
	// GCNoAssist turns mark assists off (--gc-assist=off): under GCMark
	// the workers do all the mark work and a goroutine that allocates
	// during the mark never pays for it, as with CockroachDB's
	// GODEBUG=gcnoassist. The zero value keeps Go's assists.
	GCNoAssist bool
}

// Outcome says how a run ended.
type Outcome int

// Outcomes of a run.
const (
	Running  Outcome = iota // not finished yet
	Exited                  // the main goroutine returned
	Panicked                // a goroutine failed (a Go panic or an error it returned)
	Deadlock                // no goroutine can ever run again
	Limit                   // a resource limit was reached
	Canceled                // Interrupt was called
	Idle                    // nothing can run until the host readies a goroutine (REPL)
	Internal                // a simulator bug (InternalError)
)

var outcomeNames = [...]string{"running", "exited", "panic", "deadlock", "limit", "canceled", "idle", "internal error"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// ErrDeadlock is Go's fatal error text for a run in which nothing can run.
//
//lint:ignore ST1005 Go's own words, printed as Go prints them
var ErrDeadlock = errors.New("all goroutines are asleep - deadlock!")

// ErrNetIdle ends a run in which goroutines wait on the network (IO wait)
// and nothing else can happen: no traffic is left to arrive and no other
// goroutine can run. Real Go would wait for ever; schedlab stops and says
// so, with the goroutines in IO wait in the dump.
var ErrNetIdle = errors.New("no traffic left: every goroutine is asleep, and those in IO wait would wait for ever")

// A LimitError reports a resource limit reached by a run.
type LimitError struct {
	What string // "goroutines", "virtual time", "steps", "wall time"
	Msg  string // the full diagnosis
}

func (e *LimitError) Error() string { return e.Msg }

// A Result is how a run ended.
type Result struct {
	Outcome Outcome
	Err     error // the panic, deadlock, limit or internal error; nil for Exited
	G       *G    // the goroutine that failed, for Panicked (and for Limit when one G is to blame)
	Time    int64 // virtual time at the end
}

// Func is the code of a goroutine. It runs on the Machine's coroutine and may
// call the scheduling methods of g (and only of g). A non-nil error ends the
// run as an unrecovered panic in that goroutine would.
type Func func(g *G) error

// A Machine is one simulated Go program: its Ps, Ms, Gs, run queues, timers
// and clock. A Machine is not safe for concurrent use except Interrupt.
type Machine struct {
	cfg Config
	rng *rand.Rand

	now     int64
	actions actionHeap
	nwork   int    // queued actions other than sysmon's
	seq     uint64 // action sequence numbers
	evseq   uint64 // event sequence numbers
	ev      Event  // scratch event handed to the tracer

	allp       []*P  // the first gomaxprocs are live
	gomaxprocs int32 // len of the live prefix of allp
	pidle      []*P  // idle Ps, a stack (pidleput/pidleget)
	allm       []*M
	midle      []*M // idle Ms, a stack (mput/mget)
	nmspinning int32

	coroFree   []*coro  // finished pooled coroutines, for newproc1 to reuse
	sudogcache []*sudog // released sudogs, for acquireSudog
	runq       gQueue   // the global run queue

	// fastgstatus is the table of transitions casgstatus makes without a
	// call: legal, or none when every transition is traced.
	fastgstatus [len(legalTransition)][len(legalTransition)]bool
	gFree       gList // global cache of dead Gs
	allg        []*G  // every G ever made, in creation order
	goidgen     int64
	nchan       int64
	ngalive     int // Gs that are not dead
	ngsys       int // the runtime's own Gs that are not dead (sched.ngsys)
	curg        *G  // the G whose coroutine is running, if any
	handoff     *G  // the G the current action chose to run; Step switches to it
	mainG       *G  // G1
	stealOrd    randomOrder

	sysmonStarted bool   // the first G ran
	sysmonDeep    bool   // sleeping until the next timer: all Ps idle
	sysmonWaiting bool   // sleeping with no wake-up queued
	sysmonGen     uint64 // the live actSysmon carries this gen
	sysmonDelay   int64
	sysmonIdle    int

	pctPoints  map[int64]bool // PCT change points, by safe-point count
	safePoints int64
	tracker    Tracker // cfg.Chooser's footprint recorder, or nil (choice.go)

	onAdvance    func(next int64)            // called before the clock moves
	onMain       func(now int64, p, m int32) // called when runtime.main calls main.main (OnMain, startup.go)
	mainStarted  bool                        // runtime.main has called main.main (G.InStartup)
	mainAt       int64                       // when it did (0 for a bare start); a young run's stalls count from it
	malgs        int                         // the program's go statements that made a new G (spendNewproc)
	sysmonSleeps int                         // sysmon's usleeps so far with sysmon_late (sysmonUsleep)

	cost            [NumCosts]int64    // the median of each cost of cfg.Costs
	charged         [NumCosts]CostKind // the cost of cfg.Costs each is charged as (Costs.charged)
	sampleCosts     bool               // draw each cost from its distribution (Perturb.SampleCosts)
	stepCosts       bool               // a step of code takes time: the step cost is not all zero
	stepPs          bool               // the step is charged in picoseconds (the profile has step_ps)
	stepKinds       bool               // the profile charges a step by its kind (step_ps_plain, ...)
	fastPaths       [numFastPaths]bool // the profile charges chan_op, sync_op, notewakeup (G.fastPath)
	wakerDebt       int64              // ns of notewakeup that the scheduler's code owes in this action, for the G it runs next (startm, execute)
	printed         bool               // a line has been printed (WriteStdout): print_first is paid
	wrote           bool               // a printed line's write(2) has begun: write_first is paid
	semaFirst       bool               // the profile charges sema_first and no semaphore wait has parked yet (semtableFirst)
	printPFirst     bool               // the profile charges print_p_first
	sysmonLate      bool               // the profile charges sysmon_late or sysmon_late_rank: sysmon's sleeps are late
	sysmonRanks     []Dist             // the profile's SysmonLateRank
	stallEarlyUntil int64              // how long after main.main (mainAt) a young run's stalls end (stall_early_until), 0 without them
	mainP           int32              // the P main.main began on: its first line pays no print_p_first
	timerFirst      bool               // the profile charges timer_first and no timer was armed yet (netpollGenericInit)
	quantum         uint64             // cfg.Quantum, or DefaultQuantum
	sliceSteps      uint64             // cfg.SliceSteps, or DefaultSliceSteps
	wedgeSteps      uint64             // cfg.WedgeSteps, or DefaultWedgeSteps
	resumedAt       int64              // when Step last resumed a G (runAhead)

	result      Result
	interrupted atomic.Pointer[error]
	stats       Stats
	sstats      SchedStats         // the variants' counters (variant.go)
	runqCap     uint32             // the local ring's capacity: runqSize unless runq=N
	globBatch   int32              // how many Gs findRunnable takes from the global queue at most
	lockHolder  *M                 // the M that last took sched.lock for the global queue
	evcount     [evKindCount]int64 // events emitted, by kind

	np  netpollState  // the network poller (netpoll.go)
	cfs *cfsBandwidth // the CPU quota (quota.go), nil without one
	cpu *cpuState     // the machine's CPUs (cpus.go), nil when every thread has one
	net *network      // the sockets and the network around the process (net.go), nil until used
	gc  gcState       // the heap and the collector (mgc.go)

	gcCycle gcCycleState // the record of each GC cycle (mgcstats.go)
}

// NewMachine returns a Machine with cfg.Procs idle Ps, ready for Start.
func NewMachine(cfg Config) *Machine {
	if cfg.Procs <= 0 {
		cfg.Procs = 1
	}
	if cfg.Procs > maxProcs {
		cfg.Procs = maxProcs
	}
	m := &Machine{
		cfg: cfg,
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x5c4ed1ab)),
	}
	if !cfg.TraceStates {
		m.fastgstatus = legal
	}
	m.tracker, _ = cfg.Chooser.(Tracker)
	m.initPolicy()
	m.procresize(int32(cfg.Procs))
	m.initCosts()
	m.initSteps()
	m.initPerturb()
	m.initQuota()
	m.initCPUs()
	m.initGC()
	return m
}

// Config returns the configuration the Machine was built with.
func (m *Machine) Config() Config { return m.cfg }

// Now returns the virtual time in nanoseconds.
func (m *Machine) Now() int64 { return m.now }

// GOMAXPROCS returns the current number of Ps.
func (m *Machine) GOMAXPROCS() int { return int(m.gomaxprocs) }

// cheaprandn returns a seeded pseudo-random number in [0, n).
func (m *Machine) cheaprandn(n uint32) uint32 { return m.rng.Uint32N(n) }

// Rand returns a seeded pseudo-random number in [0, n): the run's one PRNG,
// for callers (the language) that need randomness that replays with the seed.
func (m *Machine) Rand(n uint32) uint32 { return m.cheaprandn(n) }

// RandInt64N returns a seeded pseudo-random number in [0, n), n > 0, from
// the run's one PRNG (a script's rand.intn).
func (m *Machine) RandInt64N(n int64) int64 { return m.rng.Int64N(n) }

// RandFloat64 returns a seeded pseudo-random number in [0, 1) from the
// run's one PRNG.
func (m *Machine) RandFloat64() float64 { return m.rng.Float64() }

// RandExp returns a seeded exponentially distributed number of mean 1 from
// the run's one PRNG.
func (m *Machine) RandExp() float64 { return m.rng.ExpFloat64() }

// RandNorm returns a seeded normally distributed number of mean 0 and
// standard deviation 1 from the run's one PRNG.
func (m *Machine) RandNorm() float64 { return m.rng.NormFloat64() }

// emit counts one event and sends it to the tracer, if any. It is small
// enough to be inlined: with tracing off, an event is one increment.
func (m *Machine) emit(kind EventKind, pp *P, mp *M, gp *G, g2 *G, p2 int32, arg int64, reason string) {
	m.evcount[kind]++
	if m.cfg.Tracer != nil {
		m.trace(kind, pp, mp, gp, g2, p2, arg, reason)
	}
}

// trace builds the event and calls the tracer.
func (m *Machine) trace(kind EventKind, pp *P, mp *M, gp *G, g2 *G, p2 int32, arg int64, reason string) {
	m.evseq++
	ev := &m.ev
	*ev = Event{Seq: m.evseq, Time: m.now, P: -1, M: -1, P2: p2, Kind: kind, Arg: arg, Reason: reason}
	if pp != nil {
		ev.P = pp.id
	}
	if mp != nil {
		ev.M = mp.id
	}
	if gp != nil {
		ev.G = gp.goid
	}
	if g2 != nil {
		ev.G2 = g2.goid
	}
	m.cfg.Tracer.Event(ev)
}

// Emit reports an event on behalf of the running goroutine, for events the
// language makes (EvPrint). It is a no-op without a tracer.
func (g *G) Emit(kind EventKind, reason string) {
	m := g.m
	m.emit(kind, g.curP(), g.mp, g, nil, -1, 0, reason)
}

// Start creates the main goroutine G1 running main on P0, with M0, and makes
// it ready to run. It must be called once, before Step or Run.
func (m *Machine) Start(main Func) *G {
	if m.mainG != nil {
		throw("Start called twice")
	}
	pp := m.allp[0]
	mp := m.newm()
	m.pidleRemove(pp)
	m.acquirep(mp, pp)
	if m.cfg.RuntimeMain {
		main = runtimeMain(main)
	}
	gp := m.newproc1(main, nil, pp, "main")
	m.mainG = gp
	// G1 goes on the ring, not in runnext, so that P0's schedtick is 1
	// when it starts, as runtime.main's is (newproc puts G1 on the ring
	// in schedinit; schedule's first trip counts one tick). Without
	// runtime.main's start-up, starting at schedtick 0 would make main's
	// first block the 61st-tick trip that looks at the global queue.
	m.runqput(pp, gp, false)
	m.scheduleAfter(mp, 0)
	m.result.Outcome = Running
	return gp
}

// Main returns G1, or nil before Start.
func (m *Machine) Main() *G { return m.mainG }

// Run steps the Machine until the run ends (or goes idle, waiting for the
// host) and returns how it ended.
func (m *Machine) Run() *Result {
	for m.Step() {
	}
	return &m.result
}

// Result returns how the run ended so far; Outcome is Running while it goes on.
func (m *Machine) Result() *Result { return &m.result }

// Done reports whether the run has ended (any outcome but Running and Idle).
func (m *Machine) Done() bool {
	o := m.result.Outcome
	return o != Running && o != Idle
}

// Interrupted reports whether Interrupt was called and the run has not
// acted on it yet: for an observer that does a long piece of work inside
// one step (the schedtrace lines of a long jump of the clock) to stop it.
// It may be called from any goroutine.
func (m *Machine) Interrupted() bool { return m.interrupted.Load() != nil }

// Interrupt asks the run to end with outcome Canceled and the given error at
// the next action. It is the one method that may be called from any
// goroutine (a signal handler, a timer).
func (m *Machine) Interrupt(err error) {
	if err == nil {
		err = errors.New("interrupted")
	}
	m.interrupted.Store(&err)
}

// Step performs the next action: one M's trip through schedule, a work or
// syscall completing, a timer firing, or a sysmon tick. It reports whether
// the run can go on (false once it ended or went idle).
func (m *Machine) Step() bool {
	if m.Done() {
		return false
	}
	if m.interrupted.Load() != nil {
		if p := m.interrupted.Swap(nil); p != nil {
			m.finish(Canceled, *p, nil)
			return false
		}
	}
	if m.nwork == 0 {
		// Only sysmon's wake-up (if anything) is queued, and sysmon
		// alone never makes a G runnable.
		m.checkdead()
		return false
	}
	a := m.actions.pop()
	if a.kind != actSysmon {
		m.nwork--
	}
	if m.cfg.MaxTime > 0 && a.when > m.cfg.MaxTime {
		m.now = m.cfg.MaxTime
		m.after(a.when-m.now, a)
		m.finish(Limit, &LimitError{What: "virtual time", Msg: fmt.Sprintf("virtual time limit of %s reached", FormatDuration(m.cfg.MaxTime))}, nil)
		return false
	}
	if a.when == maxWhen {
		// Nothing is left before the end of the clock (clockend.go).
		m.actions.push(a)
		if a.kind != actSysmon {
			m.nwork++
		}
		m.finish(Limit, clockEndError(), nil)
		return false
	}
	if a.when > m.now {
		if m.cfs != nil {
			if t, ok := m.quotaRunsOut(a.when); ok {
				// The budget runs out first: throttle then (quota.go),
				// which moves a, and go on from there.
				m.actions.push(a)
				if a.kind != actSysmon {
					m.nwork++
				}
				if m.onAdvance != nil {
					m.onAdvance(t)
				}
				m.account(t)
				m.now = t
				m.throttle()
				return !m.Done()
			}
			m.account(a.when)
		}
		if m.onAdvance != nil {
			m.onAdvance(a.when)
		}
		m.now = a.when
	}
	m.result.Outcome = Running
	if m.tracker != nil {
		m.tracker.Running(0)
	}
	m.wakerDebt = 0
	m.perform(a)
	m.wakerDebt = 0 // an M that woke another and ran no G owes nothing more
	if gp := m.handoff; gp != nil {
		m.handoff = nil
		m.curg = gp
		if m.tracker != nil {
			m.tracker.Running(gp.goid)
		}
		m.resumedAt = m.now
		if gp.co == nil {
			gp.co = m.coroFor(gp)
		}
		alive := gp.co.resume()
		m.curg = nil
		if !alive {
			m.exited(gp)
		}
	}
	return !m.Done()
}

// OnAdvance sets a function called each time the virtual clock is about
// to move forward, with the new time, while the state is still that of the
// old time: nothing of the next action has happened yet. Clock-driven
// observers (the schedtrace lines) use it to see the state at a boundary.
func (m *Machine) OnAdvance(f func(next int64)) { m.onAdvance = f }

// Pending reports whether the Machine has any future action queued (used by
// the REPL to tell "idle, waiting for input" from "still going").
func (m *Machine) Pending() bool { return m.nwork > 0 }

// finish ends the run with the given outcome, unless it has ended already.
func (m *Machine) finish(o Outcome, err error, gp *G) {
	if m.Done() {
		return
	}
	m.result = Result{Outcome: o, Err: err, G: gp, Time: m.now}
}

// Close stops the coroutine of every goroutine still alive, so that no host
// goroutine outlives the run. The Machine can't be used after Close.
func (m *Machine) Close() {
	if !m.Done() {
		m.finish(Canceled, errors.New("machine closed"), nil)
	}
	for _, gp := range m.allg {
		if gp.co != nil {
			gp.co.stop()
			gp.co = nil
		}
	}
	for _, c := range m.coroFree {
		c.stop()
	}
	m.coroFree = nil
	m.actions = nil
}

// checkdead is called when no action is queued: nothing is running, no G is
// in a syscall or working, no timer is pending. If some G waits for the
// host, the run is idle; otherwise every live G is blocked for good: Go's
// deadlock. Mirrors checkdead in proc.go.
func (m *Machine) checkdead() {
	for _, gp := range m.allg {
		if gp.status == Gwaiting && gp.hostWait {
			m.result = Result{Outcome: Idle, Time: m.now}
			return
		}
	}
	if m.np.waiters > 0 {
		// Go would wait on the network for ever; no traffic is left to
		// come (net.go queues every arrival as an action).
		m.finish(Deadlock, ErrNetIdle, nil)
		return
	}
	m.finish(Deadlock, ErrDeadlock, nil)
}

// action kinds.
const (
	actSchedule    = iota // mp runs schedule()
	actResume             // gp's work is done: resume it on its M
	actSyscallDone        // gp's syscall returns: exitsyscall
	actTimer              // pp's timer may have expired: wake someone to run it
	actSysmon             // a sysmon tick
	actNetpoll            // the M blocked in netpoll returns: something became ready (netpollWake)
	actWorld              // something happens outside the process: a delivery, an arrival (net.go)
	actCPUTick            // the OS's scheduler at the end of a time slice (cpus.go)
	actCPURun             // mp got a CPU back: it goes on with what it set aside (fn; cpus.go)
)

// An action is something the Machine will do at a virtual time.
type action struct {
	when int64
	seq  uint64
	kind uint8
	mp   *M
	gp   *G
	pp   *P
	gen  uint64 // must equal gp.gen (actResume) or mp.gen (actSchedule), or the action is stale
	fn   func() // actWorld's event
}

// actionHeap is a binary min-heap of actions by (when, seq), written out
// for the action type so that pushing and popping allocate nothing.
type actionHeap []action

func (h actionHeap) Len() int { return len(h) }

func (h actionHeap) less(i, j int) bool {
	if h[i].when != h[j].when {
		return h[i].when < h[j].when
	}
	return h[i].seq < h[j].seq
}

func (h *actionHeap) push(a action) {
	*h = append(*h, a)
	q := *h
	i := len(q) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *actionHeap) pop() action {
	q := *h
	a := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q[n] = action{}
	q = q[:n]
	*h = q
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && q.less(l, m) {
			m = l
		}
		if r < n && q.less(r, m) {
			m = r
		}
		if m == i {
			return a
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
}

// after queues a at d ns from now.
func (m *Machine) after(d int64, a action) {
	m.seq++
	a.when = m.when(d) // saturated at the end of the clock (clockend.go)
	if m.cfs != nil && a.kind != actWorld {
		a.when = m.throttledWhen(a.when) // the process waits out a throttling
	}
	if m.gc.stwUntil != 0 && stwHolds(a.kind) {
		a.when = m.stwWhen(a.when) // the process waits for the world to start (mgc.go)
	}
	a.seq = m.seq
	if a.kind != actSysmon {
		m.nwork++
	}
	m.actions.push(a)
}

// perform carries out one action.
func (m *Machine) perform(a action) {
	switch a.kind {
	case actSchedule:
		if a.gen != a.mp.gen {
			return // the M was parked since; startm queued a new action
		}
		m.schedule(a.mp)
	case actResume:
		if a.gen != a.gp.gen {
			return // the work was preempted; this completion is stale
		}
		gp := a.gp
		gp.workLeft = 0
		m.resume(gp)
	case actSyscallDone:
		m.exitsyscall(a.gp)
	case actTimer:
		m.timerWake(a.pp)
	case actSysmon:
		if a.gen == m.sysmonGen {
			m.sysmon()
		}
	case actNetpoll:
		m.netpollWake()
	case actWorld:
		a.fn()
	case actCPUTick:
		m.cpuTick(a.gen)
	case actCPURun:
		if a.gen == a.mp.cpuGen {
			a.fn()
		}
	}
}

// Stats are the Machine's counters, as stats() shows them.
type Stats struct {
	Goroutines    int   // created in all
	Steals        int64 // successful runqsteal calls
	Stolen        int64 // Gs moved by stealing
	GlobalPuts    int64 // Gs put on the global queue
	Spawns        int64 // newproc calls
	GFreeReused   int64 // spawns that reused a dead G
	MaxThreads    int   // most Ms ever alive (all Ms are kept)
	MaxGoroutines int   // most Gs alive at once
}

// events returns the number of events emitted (counted with or without a
// tracer).
func (m *Machine) events() int64 {
	var n int64
	for _, c := range m.evcount {
		n += c
	}
	return n
}

// Counter is one named scheduler counter.
type Counter struct {
	Name  string
	Value int64
}

// Counters returns the scheduler's counters and current gauges in a fixed
// order, for stats() and :stats.
func (m *Machine) Counters() []Counter {
	s := &m.stats
	idle := int64(len(m.pidle))
	spinning := int64(m.nmspinning)
	cs := []Counter{
		{"time", m.now},
		{"gomaxprocs", int64(m.gomaxprocs)},
		{"goroutines", int64(m.ngalive)},
		{"goroutines_created", int64(s.Goroutines)},
		{"max_goroutines", int64(s.MaxGoroutines)},
		{"threads", int64(len(m.allm))},
		{"idle_threads", int64(len(m.midle))},
		{"spinning", spinning},
		{"idle_procs", idle},
		{"global_runq", int64(m.runq.size)},
		{"switches", m.evcount[EvGoStart]},
		{"spawns", s.Spawns},
		{"gfree_reused", s.GFreeReused},
		{"steals", s.Steals},
		{"stolen", s.Stolen},
		{"preemptions", m.evcount[EvGoPreempt]},
		{"syscalls", m.evcount[EvGoSyscallBegin]},
		{"handoffs", m.evcount[EvProcSteal]},
		{"global_puts", s.GlobalPuts},
		{"timers_fired", m.evcount[EvTimerFire]},
		{"blocks", m.evcount[EvGoBlock]},
		{"throttled", m.evcount[EvThrottle]},
		{"events", m.events()},
	}
	if c := m.cpu; c != nil {
		// Only on a machine of Config.CPUs, so that other runs' stats()
		// stay as they were.
		cs = append(cs[:len(cs)-1],
			Counter{"cpus", int64(c.n)},
			Counter{"cpu_slices_lost", c.preempts},
			Counter{"cpu_wait", c.waited},
			cs[len(cs)-1])
	}
	return cs
}

// Goroutines returns every goroutine of the program that is not dead, in
// id order: not the runtime's own (startup.go), which Go's tracebacks and
// NumGoroutine leave out too.
func (m *Machine) Goroutines() []*G { return m.goroutines(false) }

// AllGoroutines is Goroutines with the runtime's own goroutines, for views
// of the scheduler (scheddetail, :gs), where they take queue slots and Ms.
func (m *Machine) AllGoroutines() []*G { return m.goroutines(true) }

// System reports whether g is one of the runtime's own goroutines
// (runtime.main's, startup.go). Mirrors isSystemGoroutine.
func (g *G) System() bool { return g.system }

func (m *Machine) goroutines(system bool) []*G {
	var gs []*G
	for _, gp := range m.allg {
		if gp.system && !system {
			continue
		}
		if gp.status != Gdead && gp.status != Gidle {
			gs = append(gs, gp)
		}
	}
	slices.SortFunc(gs, func(a, b *G) int {
		switch {
		case a.goid < b.goid:
			return -1
		case a.goid > b.goid:
			return 1
		}
		return 0
	})
	return gs
}
