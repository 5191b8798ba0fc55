// Start-up: what runtime.main does before main.main.
//
// A Go program's main goroutine does not begin with main.main. It begins
// with runtime.main (proc.go), which starts sysmon, locks itself to M0
// (lockOSThread: some C libraries need their calls on the main thread
// during init), runs the runtime's own init tasks, which start
// forcegchelper; then gcenable starts bgsweep and bgscavenge and waits on a
// channel until both have run; defaultGOMAXPROCSUpdateEnable starts
// updateMaxProcsGoroutine; then every package's init runs, and os's
// (SetFinalizer on the standard files) makes createfing start
// runFinalizers; then it unlocks the thread and calls main.main. Each of
// those go statements is a newproc with its wakep.
//
// That start decides races that begin with main.main's first statement.
// Measured on real Go at GOMAXPROCS=2 (docs/faithfulness.md, "Start-up"):
// when main.main begins an M is spinning in 98% of runs, the other P is
// busy, runFinalizers waits in main's runnext and updateMaxProcsGoroutine
// often on its ring, and main runs on P1 about as often as on P0. The
// last is the locked thread's doing: while runtime.main waits in gcenable,
// M0 cannot run anything else, so it hands its P to another M
// (stoplockedm, handoffp), and the M that finds runtime.main runnable
// again gives its own P to M0 and parks (startlockedm). So main continues
// on whichever P ran bgsweep's or bgscavenge's send.
//
// With Config.RuntimeMain, Start gives G1 this start before the program's
// main: the same goroutines, spawned in the same order on the same
// thread, each parking with the runtime's wait reason, and the time the
// init work between them takes (runtimeInitWork, packageInitWork), which
// is code and costs time only when steps do (a zero profile starts in one
// instant, as before); a profile may give that time for its machine
// (init_runtime, init_packages, init_after), which differs from host to
// host several times over. The runtime's goroutines are system goroutines
// (isSystemGoroutine: their function is in package runtime): they take
// goids, run queue slots and Ms like any other, so traces show them, but
// they are not counted as goroutines, not dumped and not leaks, as in Go.
// Without RuntimeMain (--startup=bare) G1 starts as main.main on M0 and
// P0 with nothing else alive: the textbook start.
//
// Left out: the GC's own start (gcBgMarkStartWorkers runs at the first
// GC, not here), the template thread and cgo, and the runtime's work
// inside each init, which is charged as a duration, not as steps. The
// locked M0 is only runtime.main's: a script cannot lock a thread, and G1
// makes no syscall while locked, so exitsyscallNoP's locked path
// (stoplockedm there) is not modelled.

package runtime

import (
	"fmt"
	"strings"
)

// The durations of runtime.main's init work, as G1's code, measured on
// the reference machine of the default profile (go1.26.8, 2 vCPUs) with
// GODEBUG=inittrace=1 and a probe reading runtime.runtimeInitTime at
// main.main (docs/faithfulness.md, "Start-up"), the durations a profile
// without init_runtime, init_packages and init_after charges: init runtime takes
// 14-71µs of clock, the inits before os's about 50µs (internal/godebug's
// alone 27-55µs), those after it about 20µs; runtime.main's start to
// main.main takes 157-252µs (p10-p90, median 196µs), gcenable's hand-offs
// included.
const (
	runtimeInitWork  = 15 * 1000 // doInit(runtime_inittasks), after forcegchelper's spawn
	packageInitWork  = 50 * 1000 // the package inits before os's createfing
	packageInitAfter = 20 * 1000 // os's and the inits after it, up to main.main
)

// The runtime's goroutines and their wait reasons (runtime2.go's
// waitReasonStrings).
const (
	sysForceGC    = "runtime.forcegchelper"
	sysBgsweep    = "runtime.bgsweep"
	sysBgscavenge = "runtime.bgscavenge"
	sysMaxProcs   = "runtime.updateMaxProcsGoroutine"
	sysFinalizers = "runtime.runFinalizers"
)

// isSystemGoroutine reports whether a goroutine named name is one of the
// runtime's own: its function is in package runtime, which no script's
// function can be (a Starlark name has no dot). Mirrors isSystemGoroutine.
func isSystemGoroutine(name string) bool { return strings.HasPrefix(name, "runtime.") }

// runtimeMain returns G1's function under Config.RuntimeMain: runtime.main's
// work up to main.main, then main. Mirrors runtime.main.
func runtimeMain(main Func) Func {
	return func(g *G) error {
		// newm(sysmon): sysmon is the engine's chain of actions, started
		// when the first G runs (ensureSysmon).
		g.lockOSThread()
		// doInit(runtime_inittasks): proc.go's init starts forcegchelper.
		g.goSystem(sysForceGC, parkSystem("force gc (idle)"))
		g.initWork(CostInitRuntime, runtimeInitWork)
		g.gcenable()
		// defaultGOMAXPROCSUpdateEnable.
		g.goSystem(sysMaxProcs, parkSystem("GOMAXPROCS updater (idle)"))
		// The package inits; os's SetFinalizer calls createfing.
		g.initWork(CostInitPackages, packageInitWork)
		g.goSystem(sysFinalizers, parkSystem("finalizer wait"))
		g.initWork(CostInitAfter, packageInitAfter)
		g.unlockOSThread()
		// fn := main_main; fn()
		g.m.mainStarted = true
		g.m.mainAt = g.m.now
		g.m.mainP = g.mp.p.id
		if f := g.m.onMain; f != nil {
			f(g.m.now, g.mp.p.id, g.mp.id)
		}
		return main(g)
	}
}

// OnMain sets a function called when runtime.main calls main.main (proc.go's
// main: "fn := main_main; fn()"), with the time and the ids of the P and
// M that G1 runs on: after the last event of the start-up and before the
// first of the program's main. It is called only under
// Config.RuntimeMain, once; a bare run has no start-up and no call. The
// text trace folds the start-up with it (trace.Text.FoldStartup). nil
// stops the call.
func (m *Machine) OnMain(f func(now int64, p, m int32)) { m.onMain = f }

// InStartup reports whether g is G1 still in runtime.main's start-up,
// before main.main (Config.RuntimeMain): a goroutine dump shows it there,
// with no frame of the program's yet.
func (g *G) InStartup() bool {
	return g.goid == 1 && g.m.cfg.RuntimeMain && !g.m.mainStarted
}

// gcenable starts the background sweeper and scavenger and waits until
// each has sent on c that it runs. Mirrors gcenable.
func (g *G) gcenable() {
	c := g.m.newChan(2)
	started := func(reason string) Func {
		return func(g *G) error {
			g.chansend(c, 1, true)
			return parkSystem(reason)(g)
		}
	}
	g.goSystem(sysBgsweep, started("GC sweep wait"))
	g.goSystem(sysBgscavenge, started("GC scavenge wait"))
	g.chanrecv(c, true)
	g.chanrecv(c, true)
}

// parkSystem returns the function of a runtime goroutine that parks for
// good with reason: nothing in a run wakes it (no GC, no finalizer, no
// GOMAXPROCS update).
func parkSystem(reason string) Func {
	return func(g *G) error {
		g.m.gopark(g, reason)
		g.co.yield()
		throw(g.name + " woken")
		return nil
	}
}

// goSystem starts one of the runtime's goroutines: the go statement of
// runtime.main. Mirrors newproc.
func (g *G) goSystem(name string, fn Func) {
	m := g.m
	g.spendCost(m.newprocCost(g.mp.p))
	pp := g.mp.p
	newg := m.newproc1(fn, g, pp, name)
	if st, ok := m.tracker.(SystemTracker); ok {
		st.System(newg.goid)
	}
	m.newprocput(pp, g.mp, g, newg, name)
}

// A SystemTracker is a Tracker told, besides, which goroutines are the
// runtime's own: they park at once and touch nothing of the program's, so
// schedlab check's reduction leaves them out of its races
// (internal/check, dpor.go).
type SystemTracker interface {
	Tracker
	// System says that goroutine g, just created, is one of the
	// runtime's own (isSystemGoroutine).
	System(g int64)
}

// initWork is the init code of cost k run by G1, when code takes time:
// the profile's k when it has it, else d ns, the reference machine's.
func (g *G) initWork(k CostKind, d int64) {
	m := g.m
	if !m.stepCosts {
		return
	}
	if !m.cfg.Costs.Dists[k].IsZero() {
		d = m.costOf(k)
	}
	g.spend(d, true)
}

// lockOSThread wires g to its M: the M runs no other G, and while g
// cannot run the M sleeps (stoplockedm). Mirrors lockOSThread/dolockOSThread.
func (g *G) lockOSThread() {
	mp := g.mp
	mp.lockedg = g
	g.lockedm = mp
}

// unlockOSThread undoes lockOSThread. Mirrors unlockOSThread.
func (g *G) unlockOSThread() {
	g.mp.lockedg = nil
	g.lockedm = nil
}

// scheduleLocked is schedule for a locked M whose G stopped: the M
// sleeps (stoplockedm) until startlockedm hands it a P, then runs its G at
// once. Mirrors schedule's "if mp.lockedg != 0 { stoplockedm();
// execute(mp.lockedg.ptr(), false) }".
func (m *Machine) scheduleLocked(mp *M, gp *G) {
	if !mp.lockedIdle && !m.stoplockedm(mp) {
		return // asleep until startlockedm
	}
	mp.lockedIdle, mp.lockedWake = false, false
	pp := mp.nextp
	mp.nextp = nil
	pp.m = nil
	m.acquirep(mp, pp)
	m.execute(mp, gp, false)
}

// stoplockedm stops a locked M while its G cannot run: its P, if it holds
// one, goes to another M (handoffp), and the M sleeps, holding nothing and
// off the idle list, until startlockedm wakes it. It reports whether the M
// was woken already, its G scheduled again before it slept (mPark
// returns at once after an early notewakeup). Mirrors stoplockedm.
func (m *Machine) stoplockedm(mp *M) bool {
	if mp.lockedg == nil || mp.lockedg.lockedm != mp {
		throw(fmt.Sprintf("stoplockedm: M%d: inconsistent locking", mp.id))
	}
	if mp.p != nil {
		pp := m.releasep(mp)
		m.emit(EvProcStop, pp, mp, nil, nil, -1, 0, "")
		m.handoffp(pp)
	}
	if mp.lockedWake {
		return true
	}
	mp.gen++ // it runs again only when startlockedm queues its schedule
	mp.lockedIdle = true
	m.cpuDrop(mp)
	m.emit(EvMStop, nil, mp, nil, nil, -1, 0, "")
	return false
}

// startlockedm is what an M that found gp, locked to another M, does: it
// hands its own P to gp's M, wakes that M, which runs gp after the wake-up
// cost, and parks. gp stays _Grunnable, on no queue, until then. An M
// whose G stopped but which has not reached stoplockedm yet needs no
// wake-up: its schedule is queued, and it finds the P there.
// Mirrors startlockedm.
func (m *Machine) startlockedm(mp *M, gp *G) {
	lm := gp.lockedm
	if lm.lockedWake || lm.nextp != nil {
		throw(fmt.Sprintf("startlockedm: M%d was handed a P already", lm.id))
	}
	pp := m.releasep(mp)
	m.emit(EvProcStop, pp, mp, nil, nil, -1, 0, "")
	lm.lockedWake = true
	lm.nextp = pp
	pp.status = Prunning
	pp.m = lm
	m.emit(EvMStart, pp, lm, nil, nil, -1, 0, "")
	if lm.lockedIdle {
		m.scheduleAfter(lm, m.wakeupLatency())
	}
	m.stopm(mp)
}
