// The G, M and P structures and the queues that link them.
//
// These are sketches of the structs in runtime2.go, keeping the fields that
// take part in scheduling decisions and using the same names, so a reader can
// hold this file next to the real one.
//
// Invariants (checked by Machine.CheckInvariants, snapshot.go, which the
// tests call after every step):
//
//   - a G is in at most one place: the runnext of one P, the ring of one P,
//     the global queue, a gFree list, a channel's wait queue (through a
//     sudog), or the hands of one M (as its curg);
//   - a G is _Grunnable exactly when it is on a run queue;
//   - a P is _Pidle exactly when it is on the idle list, and an idle P's run
//     queue is empty (between steps: inside one, releasep leaves a P
//     _Pidle before its caller puts it on the list or hands it on);
//   - an M holds at most one P and a P is held by at most one M.

package runtime

// A G is a goroutine.
//
// Every G that waits in a queue is a G allocated in full, so the fields
// are ordered to leave no padding: the bools and the int32 fill the holes
// beside status and readyP, and the struct stays within the 320-byte size
// class (TestGSizeClass; docs/performance.md, "Lean goroutines").
type G struct {
	// The fields every scheduling round trip touches come first, in one
	// cache line: with thousands of Gs, each switch meets a cold G.
	m            *Machine
	co           *coro
	mp           *M     // the M running this G, nil if none
	schedlink    *G     // next G on a gQueue or gList
	dispatches   uint64 // times put on a CPU by execute
	gen          uint64
	goid         int64  // goroutine id, from the creating P's goidcache
	status       Status // see status.go
	preempt      bool   // preemption requested (gp.preempt)
	hostWait     bool
	parkedByUser bool // parked by Park, so Ready may wake it
	selectDone   bool // select: a case has won (gp.selectDone)

	waitreason string // why the G is waiting, when status is Gwaiting
	name       string // the function it runs, for traces and dumps
	fn         Func

	param        any              // the value passed by the G that readied it (gp.param)
	readyP       int32            // 1 + the P of the G that readied it, until it runs; 0 if none (SchedStats.ReadiedLocal)
	cpuFrozen    bool             // its M lost the CPU mid-work: workLeft is what is left (cpus.go)
	system       bool             // one of runtime.main's own goroutines (isSystemGoroutine): not counted, not dumped
	markMode     gcMarkWorkerMode // a mark worker's mode while it marks (gcMarkWorkerNotWorker otherwise)
	inMarkAssist bool             // in a mark assist: a preemption request waits for its chunk (gp.inMarkAssist)

	workLeft  int64    // ns of work still to do after a preemption
	stepCarry int64    // ps of steps run but not yet charged (under 1ns; step_ps), and of fast paths (fastPath)
	stepDraw  float64  // with Perturb.SampleCosts, its point of the step's distribution, in [0, 1), drawn once
	stepDrawn bool     // stepDraw is drawn
	stepKind  StepKind // the kind of its steps (SetStepKind), StepAny by default
	workUntil int64    // when the current work chunk ends

	waiting   *sudog // sudogs this G is blocked on (gp.waiting)
	waitingOn []any  // the objects (channels, mutexes, ...) it waits on, for the leak check
	err       error  // the error the G's function returned
	createdBy int64  // goid of the creator, 0 for main
	timer     *timer // the sleep timer, kept from one sleep to the next (gp.timer)
	created   int64  // virtual time of creation
	runtime   int64  // ns spent running (work)
	lockedm   *M     // the M this G is locked to (lockOSThread), nil if none
	steps     gSteps // its steps since it was last put on a CPU, and since a pending request (steps.go)

	gcAssistBytes int64 // assist balance: credit if positive, debt if negative (gp.gcAssistBytes)
	gcAssistCycle int64 // the cycle gcAssistBytes belongs to; in another, it counts as 0
	Data          any   // the language's own per-goroutine data (its thread)
}

// ID returns the goroutine id (goid).
func (g *G) ID() int64 { return g.goid }

// Name returns the name the goroutine was created with (its function).
func (g *G) Name() string { return g.name }

// Status returns the goroutine's state.
func (g *G) Status() Status { return g.status }

// WaitReason returns why the goroutine waits, or "" if it is not waiting.
func (g *G) WaitReason() string {
	if g.status != Gwaiting && g.status != Gleaked {
		return ""
	}
	return g.waitreason
}

// CreatedBy returns the id of the goroutine that created this one (0 for G1).
func (g *G) CreatedBy() int64 { return g.createdBy }

// Machine returns the Machine the goroutine belongs to.
func (g *G) Machine() *Machine { return g.m }

// P returns the id of the P the goroutine is running on, or -1.
func (g *G) P() int {
	if pp := g.curP(); pp != nil {
		return int(pp.id)
	}
	return -1
}

// LockedM returns the id of the M the goroutine is locked to
// (lockOSThread), or -1.
func (g *G) LockedM() int {
	if g.lockedm != nil {
		return int(g.lockedm.id)
	}
	return -1
}

// Err returns the error the goroutine's function returned, if any.
func (g *G) Err() error { return g.err }

// WaitingOn returns the objects (*Chan, *Mutex, *WaitGroup, ...) the goroutine
// is blocked on, for the leak check.
func (g *G) WaitingOn() []any { return g.waitingOn }

func (g *G) curP() *P {
	if g.mp != nil {
		return g.mp.p
	}
	return nil
}

// An M is an OS thread.
type M struct {
	id    int32
	p     *P // the P it holds, nil if none
	nextp *P // the P handed to it by startm
	oldp  *P // the P it held before entering a syscall
	// syscalltick is oldp's syscalltick as entersyscall left it: when they
	// differ at exitsyscall, the P was retaken and another M is in a
	// syscall on it (reentersyscall's gp.m.syscalltick).
	syscalltick uint32
	timerp      *P // woken for this P's timers (timerWake)
	curg        *G // the G it runs
	spinning    bool
	idle        bool   // on the midle list (stopm)
	syscall     bool   // blocked in a system call
	gen         uint64 // bumped by stopm, to invalidate queued schedule actions

	stealRound int8  // the stealWork round to do next, while spending steal passes
	stealPaid  bool  // the time of round stealRound is spent
	napP       *P    // the P whose runnext mp sleeps before taking (runqgrab's usleep)
	napG       *G    // the G in napP's runnext when mp began to sleep
	stallAt    int64 // when its next stall is due (Perturb.Stalls), 0 before its first
	stallWoken bool  // its next stall is its first since it woke: a stall_wake
	parked     bool  // it has parked (stopm, netpoll) since its last switch: the next is a switch_wake
	parkWork   int64 // ns it works after its G parks, before schedule (gopark's unlockf; timer_first)
	woken      bool  // started by startm and has not run a G since (SchedStats.SpuriousWakes)
	polled     gList // Gs found by its netpoll on its way back from blocking in it, for schedule to run (netpoll.go)

	// The machine's CPUs (cpus.go), with Config.CPUs: on one, or waiting
	// for one since cpuSince with cpuCont to run when it gets it.
	cpuOn      bool
	cpuWaiting bool
	cpuSince   int64  // when it got its CPU, or began to wait
	cpuCont    func() // what it set aside, while waiting
	cpuGen     uint64 // bumped when it stops, to invalidate a queued actCPURun

	// A locked M runs only its lockedg (lockOSThread). While lockedg
	// cannot run, the M sleeps in stoplockedm, lockedIdle set, holding
	// nothing; startlockedm hands it a P and sets lockedWake, and its
	// next schedule runs lockedg at once.
	lockedg    *G
	lockedIdle bool
	lockedWake bool
}

// A P is a processor: the right to run Go code, with its run queue.
type P struct {
	id          int32
	status      PStatus
	m           *M // the M holding it, nil if idle or in a syscall
	schedtick   uint32
	syscalltick uint32
	sysmonTick  sysmontick
	stepSlice   stepSlice // the steps of its current time slice, when steps take no time (steps.go)

	// The local run queue: a ring of runqSize Gs and runnext, a G that
	// was readied by the running G and should run next, inheriting the
	// time slice.
	runqhead uint32
	runqtail uint32
	runq     [runqSize]*G
	runnext  *G

	gFree      gList // dead Gs cached for reuse
	goidcache  int64
	goidcacheN int64 // the end of the batch

	timers  timerHeap
	zombies int // zombie timers on timers (timers.zombies)

	gcFractionalMarkTime int64 // ns of fractional marking on this P this cycle (pp.gcFractionalMarkTime)
	gcAssistTime         int64 // ns of assists on this P not yet told to the limiter (pp.gcAssistTime)

	limiterEvent limiterEvent // the GC CPU limiter's event open on this P (mgclimit.go)

	printed bool // a line has been printed on it (WriteStdout): print_p_first is paid
}

// sysmontick is what sysmon remembers about a P between its ticks.
type sysmontick struct {
	schedtick   uint32
	schedwhen   int64
	syscalltick uint32
	syscallwhen int64
}

// A gQueue is a queue of Gs linked through schedlink (the global run queue).
type gQueue struct {
	head, tail *G
	size       int32
}

func (q *gQueue) empty() bool { return q.head == nil }

func (q *gQueue) pushBack(gp *G) {
	gp.schedlink = nil
	if q.tail != nil {
		q.tail.schedlink = gp
	} else {
		q.head = gp
	}
	q.tail = gp
	q.size++
}

func (q *gQueue) push(gp *G) {
	gp.schedlink = q.head
	q.head = gp
	if q.tail == nil {
		q.tail = gp
	}
	q.size++
}

func (q *gQueue) pop() *G {
	gp := q.head
	if gp != nil {
		q.head = gp.schedlink
		if q.head == nil {
			q.tail = nil
		}
		gp.schedlink = nil
		q.size--
	}
	return gp
}

// slice returns the queue's Gs in order.
func (q *gQueue) slice() []*G {
	var gs []*G
	for gp := q.head; gp != nil; gp = gp.schedlink {
		gs = append(gs, gp)
	}
	return gs
}

// A gList is a stack of Gs linked through schedlink (gFree lists, closechan's
// list of Gs to wake).
type gList struct {
	head *G
	size int32
}

func (l *gList) empty() bool { return l.head == nil }

func (l *gList) push(gp *G) {
	gp.schedlink = l.head
	l.head = gp
	l.size++
}

func (l *gList) pop() *G {
	gp := l.head
	if gp != nil {
		l.head = gp.schedlink
		gp.schedlink = nil
		l.size--
	}
	return gp
}

// randomOrder enumerates the Ps in a random order that visits each once:
// start at a random position and step by a random number coprime with the
// count. Mirrors randomOrder in proc.go (stealOrder).
type randomOrder struct {
	count    uint32
	coprimes []uint32
}

func (ord *randomOrder) reset(count uint32) {
	ord.count = count
	ord.coprimes = ord.coprimes[:0]
	for i := uint32(1); i <= count; i++ {
		if gcd(i, count) == 1 {
			ord.coprimes = append(ord.coprimes, i)
		}
	}
}

func gcd(a, b uint32) uint32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// randomEnum walks one random order.
type randomEnum struct {
	i     uint32
	count uint32
	pos   uint32
	inc   uint32
}

func (ord *randomOrder) start(i uint32) randomEnum {
	return randomEnum{
		count: ord.count,
		pos:   i % ord.count,
		inc:   ord.coprimes[i/ord.count%uint32(len(ord.coprimes))],
	}
}

func (e *randomEnum) done() bool { return e.i == e.count }

func (e *randomEnum) next() {
	e.i++
	e.pos = (e.pos + e.inc) % e.count
}

func (e *randomEnum) position() uint32 { return e.pos }
