// Costs: what each step of the runtime takes on Go's own clock.
//
// Real Ps run code at the same time, and everything the runtime does takes
// time: a thread woken by wakep runs tens of microseconds later, a spawn
// and a switch take hundreds of nanoseconds, a line of code takes
// nanoseconds. A Costs profile says how long, each cost as a distribution
// measured from the real runtime (schedlab calibrate writes one; an
// embedded default ships with the engine, DefaultCosts). A run charges
// each cost's median, so a run stays a pure function of its program,
// configuration and seed; with Perturb.SampleCosts every charge is drawn
// from the distribution with the run's PRNG instead.
//
// Where each cost is charged, and the function of proc.go it stands for:
//
//	step             a step of the goroutine's code (G.RanSteps): the P's
//	                 clock moves while it runs code
//	newproc          G.Go, before the new G is queued (newproc/newproc1)
//	switch           gopark, goexit0 and a mutex hand-off until the M runs
//	                 schedule again (park_m/goexit0 → schedule → execute)
//	gosched          goschedImpl until the M runs schedule (gosched_m,
//	                 gopreempt_m)
//	wakeup           startm until the woken M runs schedule (wakep,
//	                 startm, notewakeup → the thread runs mstart/schedule)
//	newm             added to wakeup when startm has no idle M and makes
//	                 one (newm/newosproc: creating the thread)
//	syscall_enter    G.Syscall before the call (entersyscall)
//	syscall_exit     G.Syscall after the call, on its P again (exitsyscall)
//	timer_late       how late a timer of 1ms or more runs when its P is
//	                 idle (the M asleep in netpoll until the deadline)
//	timer_late_short the same for a timer under 1ms (netpoll's millisecond
//	                 timeout: epoll waits at least 1ms)
//	steal_pass       one of stealWork's four passes over the other Ps
//	runnext_sleep    the thief's usleep(3) in runqgrab before it takes the
//	                 runnext of a running P (the kernel's timer slack makes
//	                 it tens of µs)
//	stall            how long a thread that runs Go code loses its CPU
//	                 (the OS runs something else: an interrupt, another
//	                 thread): charged only with Perturb.Stalls
//	stall_every      how much a thread runs between two stalls
//	gc_sweep_term    the GC's sweep termination pause, the world stopped
//	                 (gcStart: stopTheWorldWithSema(stwGCSweepTerm) to
//	                 startTheWorldWithSema); charged only with
//	                 Config.GCCycle = GCStopTheWorld
//	gc_mark_term     the GC's mark termination pause (gcMarkDone:
//	                 stopTheWorldWithSema(stwGCMarkTerm), gcMarkTermination)
//	gc_mark_mib      how long a mark worker takes to scan 1 MiB of the
//	                 live heap, stacks and globals (gcBgMarkWorker →
//	                 gcDrain); charged only with Config.GCCycle = GCMark.
//	                 Optional in a profile: one without it (all written
//	                 before it) marks in no time
//	gc_mark_roots_mib the same for the root jobs, the globals and the
//	                 goroutines' stacks (markroot), which the mark takes
//	                 first. Optional in a profile: one without it marks
//	                 the roots at gc_mark_mib
//	write            the kernel's part of the write(2) of one printed line
//	                 to standard output (fmt.Println → os.(*File).Write →
//	                 syscall.Write), charged only by G.WriteStdout, a system call
//	                 of that length (--print=syscall). Optional in
//	                 a profile: one without it writes in no time, but still
//	                 enters and leaves the system call
//	malg             G.Go in place of newproc when no dead G is free to
//	                 reuse (gfget finds none, so newproc1 calls malg: a new
//	                 g and a new stack, memory a young process touches for
//	                 the first time). Optional in a profile: one without it
//	                 charges newproc for every G
//	syscall_timer_late how late a system call that sleeps on a kernel timer
//	                 returns (nanosleep: the timer slack and the thread's
//	                 wake-up), added to G.SyscallTimer's call in place of
//	                 timer_late. Optional in a profile: one without it
//	                 adds timer_late
//	print_first      the first printed line's own work in a process, before
//	                 its write(2): fmt's first printer and os.Stdout's first
//	                 write, memory touched for the first time; charged as
//	                 the printing G's CPU time by G.WriteStdout, only on
//	                 the run's first line (--print=syscall). Optional in a
//	                 profile: one without it charges nothing more
//	print_p_first    the first printed line on a P other than the one
//	                 main.main began on, before its write(2): that P's
//	                 first allocations (its mcache and stack cache are
//	                 empty), charged as the printing G's CPU time by
//	                 G.WriteStdout after print_first (--print=syscall).
//	                 Optional in a profile: one without it charges
//	                 nothing more
//	write_first      the write(2) of the run's first printed line (a
//	                 fresh pipe's first page, the reader's first wake-up),
//	                 in place of write. Optional in a profile: one
//	                 without it charges write
//	sysmon_late      how late sysmon's usleep(delay) returns (the thread's
//	                 timer slack and its wake-up), added to each of its
//	                 sleeps between passes. Optional in a profile: one
//	                 without it sleeps exactly 20µs (doubling when idle,
//	                 to 10ms) and draws nothing
//	stall_early      stall and stall_every while the run is young: until
//	stall_early_every stall_early_until's median has passed since main.main
//	stall_early_until began (the run's start when bare), a thread's
//	                 stalls and the running between them are
//	                 drawn from these (a fresh process's threads lose
//	                 several times more of their CPU in its first
//	                 milliseconds than later; docs/faithfulness.md, "A
//	                 thread's stalls, every one"). A woken thread's first
//	                 stall is still stall_wake's where the profile has
//	                 that. Optional in a profile: one without them draws
//	                 every stall from stall and stall_every
//	sema_first       the run's first semaphore wait that parks (a
//	                 WaitGroup's Wait, a contended Lock, an RWMutex's
//	                 wait), as its G's own work before it queues:
//	                 semacquire1's first touch of the runtime's table of
//	                 semaphore queues (semtable), a page a young process
//	                 has not touched yet. Optional in a profile: one
//	                 without it charges nothing and draws nothing
//	step_ps          a step of the goroutine's code in picoseconds: what
//	                 step says rounded up to a whole ns, kept whole.
//	                 Optional in a profile; one that has it charges it
//	                 in place of step, each G carrying the fraction of a
//	                 ns that its steps have not spent yet (G.RanSteps)
//	chan_op          a channel operation that takes the channel's lock and
//	                 does not park: a send or receive through the buffer
//	                 or with a waiting partner, a receive from a closed
//	                 channel, a close, and once a case a select of two or
//	                 more cases that finds one ready or takes its default
//	                 (chansend, chanrecv, closechan, selectgo's first pass
//	                 under sellock); charged to the G with its next steps
//	                 (G.fastPath). Optional in a profile: one without it
//	                 charges nothing
//	sync_op          an atomic fast path: an uncontended Lock, an Unlock,
//	                 RLock or RUnlock, a WaitGroup's Add or Done, a Cond's
//	                 Signal or Broadcast, a semaphore's acquire that does
//	                 not wait or its release, an atomic_int's method, and
//	                 a channel poll that finds nothing to do (chansend and
//	                 chanrecv's lock-free check of a non-blocking
//	                 operation); charged as chan_op. Optional in a
//	                 profile: one without it charges nothing
//	notewakeup       the waker's side of startm: waking a parked thread
//	                 (notewakeup, a futex wake: on a virtual machine the
//	                 interrupt that wakes the sleeping vCPU) or making one
//	                 (newm's clone), charged to the G whose wakep or
//	                 handoff started the M, with its next steps, or, in
//	                 the scheduler's own code (a timer that readies a G,
//	                 resetspinning), to the G the waking M runs next
//	                 (Machine.wakerDebt). Optional in a profile: one
//	                 without it charges nothing
//	timer_first      arming the run's first timer: addHeap finds the
//	                 network poller not yet started and starts it
//	                 (netpollGenericInit: epoll_create1, eventfd,
//	                 epoll_ctl), with the first allocations of the timer
//	                 path. For a sleep or a goroutine blocking on a timer
//	                 channel it is the M's time between the park and
//	                 schedule (resetForSleep runs in gopark's unlockf;
//	                 M.parkWork); for AfterFunc and Reset the G's own, with
//	                 its next steps. Only the first timer pays, and none
//	                 after a descriptor was opened (the poller started
//	                 then). Optional in a profile: one without it charges
//	                 nothing
//	init_runtime     runtime.main's start-up (Config.RuntimeMain), as G1's
//	init_packages    code: the runtime's init tasks after forcegchelper's
//	init_after       spawn, the package inits before os's (whose
//	                 SetFinalizer starts runFinalizers), and os's and the
//	                 rest up to main.main (GODEBUG=inittrace=1 times
//	                 each). Optional in a profile: one without them
//	                 charges startup.go's constants, the reference
//	                 machine's, and draws nothing
//
// The zero profile (ZeroCosts, --costs=zero) is the textbook model: only
// work, syscall, sleep and timers move the clock, and a goroutine's code
// between two scheduling points runs in one instant.
//
// The file format (the contract between the engine and schedlab
// calibrate):
//
//	{
//	  "format": "schedlab-costs/1",
//	  "name": "default", "machine": "...", "go": "go1.26 linux/amd64",
//	  "command": "schedlab calibrate -o runtime/costs_default.json",
//	  "recorded": "2026-12-03", "load": "0.21 0.10 0.03",
//	  "costs": {"step": {"n": 1000, "quantiles": [p0, p5, ..., p100]}, ...}
//	}
//
// with every cost named above present (but the optional ones), 21
// quantiles in nanoseconds (step_ps's in picoseconds), not negative and
// not decreasing. A cost may also give its tail, the quantiles p96, p97,
// p98, p99, p99.5 and p99.9 ("tail": [...], after "quantiles"), for a
// draw that follows the top twentieth's shape instead of a straight line
// from p95 to p100 (calibrate writes the tail of stall and stall_every).

package runtime

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
)

// CostsFormat is the format string of a costs profile file.
const CostsFormat = "schedlab-costs/1"

// NumQuantiles is the number of quantiles of a Dist: p0, p5, ..., p100.
const NumQuantiles = 21

// NumTail is the number of a Dist's tail quantiles, at TailLevels.
const NumTail = 6

// TailLevels are the points of [0, 1] of a Dist's tail quantiles: p96,
// p97, p98, p99, p99.5 and p99.9, in thousandths. Between p95 and p100
// the 21 quantiles say nothing of the shape, and a cost whose top
// twentieth spans a thousandfold (a thread's stalls: tens of µs to
// milliseconds) draws far too many long values when interpolated
// straight across it.
var TailLevels = [NumTail]int{960, 970, 980, 990, 995, 999}

// A CostKind names one cost of a profile.
type CostKind uint8

// The costs of a profile, in the order of the file format.
const (
	CostStep             CostKind = iota // one step of a goroutine's code
	CostNewproc                          // newproc, charged to the spawning G
	CostSwitch                           // schedule+execute after a G blocks or exits
	CostGosched                          // Gosched (or a preemption) until the next G starts
	CostWakeup                           // wakep/startm until the woken M runs schedule
	CostNewm                             // extra when startm creates a new M
	CostSyscallEnter                     // entersyscall
	CostSyscallExit                      // exitsyscall
	CostTimerLate                        // how late a timer of 1ms or more fires
	CostTimerLateShort                   // how late a timer under 1ms fires
	CostStealPass                        // a spinning M's pass over the other Ps
	CostRunnextSleep                     // runqgrab's usleep(3) before taking a running P's runnext
	CostStall                            // a thread losing its CPU while it runs Go code
	CostStallEvery                       // a thread's running time between two stalls
	CostGCSweepTerm                      // the GC's sweep termination stop-the-world pause
	CostGCMarkTerm                       // the GC's mark termination stop-the-world pause
	CostGCMarkMiB                        // a mark worker's time to scan 1 MiB
	CostWrite                            // the kernel's part of a write(2) of a printed line
	CostStepPs                           // one step of a goroutine's code, in picoseconds
	CostGCMarkRootsMiB                   // a mark worker's time to scan 1 MiB of globals and stacks
	CostMalg                             // newproc when it makes a new G (malg), none being free
	CostSyscallTimerLate                 // how late a system call sleeping on a kernel timer returns
	CostPrintFirst                       // the first printed line's work before its write(2)
	CostStepPsPlain                      // a step of arithmetic on a variable (x = x + 1), in ps
	CostStepPsIndex                      // a step of arithmetic on a list element (a[i % 8] = a[i % 8] + 1), in ps
	CostStepPsMap                        // a step of a map update (d["k"] = d["k"] + 1), in ps
	CostStepPsAppend                     // a step of an append (s.append(i)), in ps
	CostStepPsCall                       // a step of a call of the program's own function (x = inc(x)), in ps
	CostStepPsFormat                     // a step of a string formatted (t = "n%d" % i), in ps
	CostChanOp                           // a channel operation through the channel's lock that does not park
	CostSyncOp                           // an atomic fast path: an uncontended lock, an unlock, a WaitGroup's add
	CostNotewakeup                       // the waker's side of waking a parked thread (startm's notewakeup)
	CostStepPsCell                       // a step of arithmetic on a cell (c[0] = c[0] + 1, Go's x = x + 1), in ps
	CostTimerFirst                       // arming the run's first timer (netpollGenericInit)
	CostInitRuntime                      // runtime.main's doInit(runtime_inittasks), after forcegchelper's spawn
	CostInitPackages                     // the package inits before os's createfing
	CostInitAfter                        // os's init and the inits after it, up to main.main
	CostStallWake                        // the first stall of a thread after it woke (default: stall)
	CostStallWakeAt                      // a woken thread's running time until its first stall (default: stall_every)
	CostSwitchWake                       // an M's first switch after it woke from stopm or netpoll (default: switch)
	CostPrintPFirst                      // a P's first printed line's work before its write(2), but main's P's
	CostWriteFirst                       // the write(2) of the run's first printed line (default: write)
	CostSysmonLate                       // how late sysmon's usleep(delay) returns
	CostStallEarly                       // a stall while the run is young, before stall_early_until (default: stall)
	CostStallEarlyEvery                  // a thread's running time between two stalls while the run is young (default: stall_every)
	CostStallEarlyUntil                  // how long a run is young: its median is the clock's time the early stalls end
	CostSemaFirst                        // the run's first semaphore wait's touch of the semaphore table, before it parks
	NumCosts                             // the number of costs
)

var costNames = [NumCosts]string{
	"step", "newproc", "switch", "gosched", "wakeup", "newm",
	"syscall_enter", "syscall_exit", "timer_late", "timer_late_short", "steal_pass",
	"runnext_sleep", "stall", "stall_every", "gc_sweep_term", "gc_mark_term",
	"gc_mark_mib", "write", "step_ps", "gc_mark_roots_mib", "malg",
	"syscall_timer_late", "print_first", "step_ps_plain", "step_ps_index",
	"step_ps_map", "step_ps_append", "step_ps_call", "step_ps_format",
	"chan_op", "sync_op", "notewakeup", "step_ps_cell", "timer_first",
	"init_runtime", "init_packages", "init_after", "stall_wake", "stall_wake_at",
	"switch_wake", "print_p_first", "write_first", "sysmon_late",
	"stall_early", "stall_early_every", "stall_early_until", "sema_first",
}

// optionalCost reports whether a profile may leave cost k out: the costs
// added after profiles were first written, which such a profile has as 0.
func optionalCost(k CostKind) bool {
	switch k {
	case CostGCMarkMiB, CostWrite, CostStepPs, CostGCMarkRootsMiB, CostMalg, CostSyscallTimerLate, CostPrintFirst:
		return true
	case CostStepPsPlain, CostStepPsIndex, CostStepPsMap, CostStepPsAppend, CostStepPsCall, CostStepPsFormat, CostStepPsCell:
		return true
	case CostChanOp, CostSyncOp, CostNotewakeup, CostTimerFirst:
		return true
	case CostInitRuntime, CostInitPackages, CostInitAfter, CostStallWake, CostStallWakeAt, CostSwitchWake:
		return true
	case CostPrintPFirst, CostWriteFirst, CostSysmonLate:
		return true
	case CostStallEarly, CostStallEarlyEvery, CostStallEarlyUntil, CostSemaFirst:
		return true
	}
	return false
}

// charged returns the cost a run charges for k under c: k itself, or, for
// a cost that refines an older one and that c leaves out (all zero), the
// older one: a new G's malg is newproc, a sleeping system call's
// syscall_timer_late is timer_late, a step of a kind (step_ps_plain, ...)
// is step_ps, a cell's (step_ps_cell) an index's, a woken thread's
// first stall (stall_wake, stall_wake_at) and a young run's stalls
// (stall_early, stall_early_every) any stall (stall, stall_every),
// its first switch (switch_wake) any switch, and the first line's write
// (write_first) any write.
// So a profile written before them schedules as it did.
func (c *Costs) charged(k CostKind) CostKind {
	if c.Dists[k].IsZero() {
		switch k {
		case CostMalg:
			return CostNewproc
		case CostSyscallTimerLate:
			return CostTimerLate
		case CostStepPsCell:
			// A cell was an index before it had a cost of its own.
			return c.charged(CostStepPsIndex)
		case CostStepPsPlain, CostStepPsIndex, CostStepPsMap, CostStepPsAppend, CostStepPsCall, CostStepPsFormat:
			return CostStepPs
		case CostStallWake:
			return CostStall
		case CostStallWakeAt:
			return CostStallEvery
		case CostStallEarly:
			return CostStall
		case CostStallEarlyEvery:
			return CostStallEvery
		case CostSwitchWake:
			return CostSwitch
		case CostWriteFirst:
			return CostWrite
		}
	}
	return k
}

// String returns the cost's name in the file format ("syscall_enter").
func (k CostKind) String() string {
	if k < NumCosts {
		return costNames[k]
	}
	return "CostKind(" + strconv.Itoa(int(k)) + ")"
}

// CostKinds returns every cost, in the order of the file format.
func CostKinds() []CostKind {
	ks := make([]CostKind, NumCosts)
	for i := range ks {
		ks[i] = CostKind(i)
	}
	return ks
}

// A Dist is the distribution of one cost: its 21 quantiles p0, p5, ...,
// p100 in nanoseconds, and the number of samples they were made from (0
// for a profile written by hand); optionally, its tail: the quantiles at
// TailLevels, between p95 and p100.
type Dist struct {
	N         int                 // samples measured
	Quantiles [NumQuantiles]int64 // p0, p5, ..., p100, in ns
	HasTail   bool                // whether Tail holds the tail
	Tail      [NumTail]int64      // p96, p97, p98, p99, p99.5, p99.9, in ns
}

// Const returns a Dist whose every quantile is ns: a cost that never
// varies.
func Const(ns int64) Dist {
	var d Dist
	for i := range d.Quantiles {
		d.Quantiles[i] = ns
	}
	return d
}

// Median returns the distribution's p50, what a run charges.
func (d *Dist) Median() int64 { return d.Quantiles[NumQuantiles/2] }

// Sample draws a value from the distribution with rng: a uniform point
// on [0, 1] is placed among the quantiles (the tail's too, if it has one)
// and the value interpolated linearly between the two around it (the
// inverse of the piecewise-linear distribution function the quantiles
// describe).
func (d *Dist) Sample(rng *rand.Rand) int64 { return d.at(rng.Float64()) }

// at is the value at the point p of [0, 1): Sample's draw, given.
func (d *Dist) at(p float64) int64 {
	u := p * (NumQuantiles - 1)
	i := int(u)
	if i >= NumQuantiles-1 {
		return d.Quantiles[NumQuantiles-1]
	}
	if d.HasTail && i == NumQuantiles-2 {
		return d.tailAt(p)
	}
	return between(d.Quantiles[i], d.Quantiles[i+1], u-float64(i))
}

// tailAt is the value at the point p of [0.95, 1), among p95, the tail
// and p100.
func (d *Dist) tailAt(p float64) int64 {
	loP, lo := 0.95, d.Quantiles[NumQuantiles-2]
	for j, level := range TailLevels {
		hiP := float64(level) / 1000
		if p < hiP {
			return between(lo, d.Tail[j], (p-loP)/(hiP-loP))
		}
		loP, lo = hiP, d.Tail[j]
	}
	return between(lo, d.Quantiles[NumQuantiles-1], (p-loP)/(1-loP))
}

// between is the value the fraction f of [0, 1) of the way from lo to hi.
func between(lo, hi int64, f float64) int64 {
	// float64(hi-lo) may round up past the int64 range: keep to hi.
	if x := f * float64(hi-lo); x < float64(hi-lo) {
		return min(lo+int64(x), hi)
	}
	return hi
}

// IsZero reports whether every quantile is 0.
func (d *Dist) IsZero() bool { return d.Quantiles[NumQuantiles-1] == 0 && d.Quantiles[0] == 0 }

// Costs is a costs profile: one Dist per cost, and where it was measured.
type Costs struct {
	Name     string // what the profile is ("default", "zero", ...)
	Machine  string // the machine it was measured on (uname, nproc, lscpu)
	Go       string // the Go toolchain measured ("go1.26.0 linux/amd64")
	Command  string // the command that wrote it
	Recorded string // the date
	Load     string // the load average while it was measured
	Notes    string // anything else a reader should know

	Dists [NumCosts]Dist // by CostKind

	// MalgRank is the cost of the program's k-th go statement that makes
	// a new G (malg), for k from 1 to len(MalgRank), in place of malg: a
	// young process's first new Gs are not alike (the first and the
	// third touch fresh stack memory, docs/faithfulness.md). Optional
	// ("malg_rank" in the file format): without it every new G pays
	// malg.
	MalgRank []Dist

	// SysmonLateRank is how late sysmon's k-th usleep returns, for k from
	// 1 to len(SysmonLateRank), in place of sysmon_late: a process's
	// first ticks are not its later ones (docs/faithfulness.md, "sysmon's
	// ticks in situ"). Optional ("sysmon_late_rank" in the file format):
	// without it every sleep draws sysmon_late, and a profile with it
	// makes sysmon's sleeps late even without sysmon_late.
	SysmonLateRank []Dist
}

// Dist returns the distribution of cost k.
func (c *Costs) Dist(k CostKind) *Dist { return &c.Dists[k] }

// Median returns the median of cost k, 0 for a nil profile.
func (c *Costs) Median(k CostKind) int64 {
	if c == nil {
		return 0
	}
	return c.Dists[k].Median()
}

// IsZero reports whether every cost of c is 0 (a nil c is the zero
// profile).
func (c *Costs) IsZero() bool {
	if c == nil {
		return true
	}
	for i := range c.Dists {
		if !c.Dists[i].IsZero() {
			return false
		}
	}
	return true
}

// ZeroCosts returns the textbook model: every cost 0.
func ZeroCosts() *Costs {
	return &Costs{Name: "zero", Notes: "every cost 0: only work, syscall, sleep and timers move the clock"}
}

//go:embed costs_default.json
var defaultCostsJSON []byte

var (
	defaultOnce  sync.Once
	defaultCosts *Costs
	defaultErr   error
)

// DefaultCosts returns the embedded default profile
// (runtime/costs_default.json), a new copy each call.
func DefaultCosts() *Costs {
	defaultOnce.Do(func() {
		defaultCosts, defaultErr = ParseCosts("runtime/costs_default.json", defaultCostsJSON)
	})
	if defaultErr != nil {
		throw("the embedded costs profile does not parse: " + defaultErr.Error())
	}
	c := *defaultCosts
	return &c
}

// DefaultCostsJSON returns the bytes of the embedded default profile.
func DefaultCostsJSON() []byte { return bytes.Clone(defaultCostsJSON) }

// The file format, as encoding/json reads it.
type costsFile struct {
	Format         *string              `json:"format"`
	Name           string               `json:"name"`
	Machine        string               `json:"machine"`
	Go             string               `json:"go"`
	Command        string               `json:"command"`
	Recorded       string               `json:"recorded"`
	Load           string               `json:"load"`
	Notes          string               `json:"notes,omitempty"`
	Costs          map[string]*distFile `json:"costs"`
	MalgRank       []*distFile          `json:"malg_rank,omitempty"`
	SysmonLateRank []*distFile          `json:"sysmon_late_rank,omitempty"`
}

type distFile struct {
	N         *int    `json:"n"`
	Quantiles []int64 `json:"quantiles"`
	Tail      []int64 `json:"tail,omitempty"`
}

// ParseCosts reads a costs profile in the file format. filename is used
// in errors only: each says "filename: what is wrong", with the line and
// column of a syntax or type error.
func ParseCosts(filename string, data []byte) (*Costs, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", filename, fmt.Sprintf(format, args...))
	}
	var f costsFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line, col := lineCol(data, se.Offset)
			return nil, fmt.Errorf("%s:%d:%d: %v", filename, line, col, se)
		case errors.As(err, &te):
			line, col := lineCol(data, te.Offset)
			field := te.Field
			if rest, ok := strings.CutPrefix(field, "costs."); ok && rest != "" {
				// encoding/json leaves the map key out of the path.
				field = "costs." + costAt(data, te.Offset) + "." + rest
			}
			return nil, fmt.Errorf("%s:%d:%d: %s: got a JSON %s, want %s", filename, line, col, field, te.Value, jsonKind(te.Type.String()))
		case errors.Is(err, io.EOF):
			return nil, fail("empty file, want a JSON object")
		}
		return nil, fail("%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return nil, fail("more than one JSON value")
	}
	if f.Format == nil {
		return nil, fail(`no "format": want %q`, CostsFormat)
	}
	if *f.Format != CostsFormat {
		return nil, fail(`format %q, want %q`, *f.Format, CostsFormat)
	}
	if f.Name == "" {
		return nil, fail(`no "name"`)
	}
	if f.Costs == nil {
		return nil, fail(`no "costs"`)
	}
	c := &Costs{Name: f.Name, Machine: f.Machine, Go: f.Go, Command: f.Command, Recorded: f.Recorded, Load: f.Load, Notes: f.Notes}
	for name := range f.Costs {
		if costKind(name) < 0 {
			return nil, fail("costs.%s: no such cost; the costs are %s", name, strings.Join(costNames[:], ", "))
		}
	}
	for k, name := range costNames {
		df, ok := f.Costs[name]
		if !ok && optionalCost(CostKind(k)) {
			continue // 0: the profile was written before the cost
		}
		if !ok || df == nil {
			return nil, fail("costs.%s: missing", name)
		}
		d, err := df.dist("costs." + name)
		if err != nil {
			return nil, fail("%v", err)
		}
		c.Dists[k] = d
	}
	var err error
	if c.MalgRank, err = parseRanks("malg_rank", f.MalgRank); err != nil {
		return nil, fail("%v", err)
	}
	if c.SysmonLateRank, err = parseRanks("sysmon_late_rank", f.SysmonLateRank); err != nil {
		return nil, fail("%v", err)
	}
	return c, nil
}

// parseRanks checks a list of distributions by rank, the file's key, and
// returns it (nil for none).
func parseRanks(key string, list []*distFile) ([]Dist, error) {
	var ds []Dist
	for i, df := range list {
		if df == nil {
			return nil, fmt.Errorf("%s[%d]: null, want a distribution", key, i)
		}
		d, err := df.dist(fmt.Sprintf("%s[%d]", key, i))
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// dist checks df, the distribution at path in the file, and returns it.
func (df *distFile) dist(path string) (Dist, error) {
	var d Dist
	if df.N == nil {
		return d, fmt.Errorf(`%s: no "n" (the number of samples; 0 for a value written by hand)`, path)
	}
	if *df.N < 0 {
		return d, fmt.Errorf("%s: n is %d, want 0 or more", path, *df.N)
	}
	if len(df.Quantiles) != NumQuantiles {
		return d, fmt.Errorf("%s: %d quantiles, want %d (p0, p5, ..., p100)", path, len(df.Quantiles), NumQuantiles)
	}
	d.N = *df.N
	for i, q := range df.Quantiles {
		if q < 0 {
			return d, fmt.Errorf("%s: p%d is %d, want a duration of 0ns or more", path, 5*i, q)
		}
		if i > 0 && q < df.Quantiles[i-1] {
			return d, fmt.Errorf("%s: p%d (%d) is less than p%d (%d); quantiles cannot decrease", path, 5*i, q, 5*(i-1), df.Quantiles[i-1])
		}
		d.Quantiles[i] = q
	}
	if df.Tail == nil {
		return d, nil
	}
	if len(df.Tail) != NumTail {
		return d, fmt.Errorf("%s: a tail of %d quantiles, want %d (%s)", path, len(df.Tail), NumTail, tailNames())
	}
	prev, prevName := d.Quantiles[NumQuantiles-2], "p95"
	for j, q := range df.Tail {
		name := tailName(j)
		if q < prev {
			return d, fmt.Errorf("%s: tail %s (%d) is less than %s (%d); quantiles cannot decrease", path, name, q, prevName, prev)
		}
		prev, prevName = q, name
		d.Tail[j] = q
	}
	if top := d.Quantiles[NumQuantiles-1]; prev > top {
		return d, fmt.Errorf("%s: tail %s (%d) is more than p100 (%d); quantiles cannot decrease", path, prevName, prev, top)
	}
	d.HasTail = true
	return d, nil
}

// tailName is the name of tail quantile j: "p99.5".
func tailName(j int) string {
	return "p" + strings.TrimSuffix(strconv.FormatFloat(float64(TailLevels[j])/10, 'f', 1, 64), ".0")
}

// tailNames lists the tail's quantiles: "p96, p97, ..., p99.9".
func tailNames() string {
	names := make([]string, NumTail)
	for j := range names {
		names[j] = tailName(j)
	}
	return strings.Join(names, ", ")
}

// costAt returns the name of the cost whose object holds byte offset off
// of data: the last cost name quoted before it.
func costAt(data []byte, off int64) string {
	before := data[:min(max(off, 0), int64(len(data)))]
	best, at := "?", -1
	for _, name := range costNames {
		if i := bytes.LastIndex(before, []byte(strconv.Quote(name))); i > at {
			best, at = name, i
		}
	}
	return best
}

// costKind returns the CostKind named name, or -1.
func costKind(name string) int {
	for k, n := range costNames {
		if n == name {
			return k
		}
	}
	return -1
}

// jsonKind names the JSON value that a field of Go type goType wants, for
// errors.
func jsonKind(goType string) string {
	switch goType {
	case "[]int64":
		return "an array of integers"
	case "int", "int64":
		return "an integer"
	case "string":
		return "a string"
	}
	return "an object"
}

// lineCol returns the 1-based line and column of byte offset off in data.
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

// JSON returns c in the file format, one cost per line, in the order of
// the format: what schedlab calibrate writes, and what ParseCosts reads
// back to an equal profile.
func (c *Costs) JSON() []byte {
	var b bytes.Buffer
	str := func(key, v string, comma bool) {
		q, _ := json.Marshal(v)
		fmt.Fprintf(&b, "  %q: %s", key, q)
		if comma {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("{\n")
	str("format", CostsFormat, true)
	str("name", c.Name, true)
	str("machine", c.Machine, true)
	str("go", c.Go, true)
	str("command", c.Command, true)
	str("recorded", c.Recorded, true)
	str("load", c.Load, true)
	if c.Notes != "" {
		str("notes", c.Notes, true)
	}
	b.WriteString("  \"costs\": {\n")
	for k, name := range costNames {
		fmt.Fprintf(&b, "    %-19s ", strconv.Quote(name)+":")
		appendDist(&b, &c.Dists[k])
		if k < len(costNames)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  }")
	appendRanks(&b, "malg_rank", c.MalgRank)
	appendRanks(&b, "sysmon_late_rank", c.SysmonLateRank)
	b.WriteString("\n}\n")
	return b.Bytes()
}

// appendRanks writes a list of distributions by rank under key, if it
// has any: ",\n  \"key\": [...]".
func appendRanks(b *bytes.Buffer, key string, ds []Dist) {
	if len(ds) == 0 {
		return
	}
	fmt.Fprintf(b, ",\n  %q: [\n", key)
	for i := range ds {
		b.WriteString("    ")
		appendDist(b, &ds[i])
		if i < len(ds)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]")
}

// appendDist writes d in the file format: {"n": N, "quantiles": [...]},
// and "tail": [...] if it has one.
func appendDist(b *bytes.Buffer, d *Dist) {
	fmt.Fprintf(b, "{\"n\": %d, \"quantiles\": ", d.N)
	appendInts(b, d.Quantiles[:])
	if d.HasTail {
		b.WriteString(", \"tail\": ")
		appendInts(b, d.Tail[:])
	}
	b.WriteString("}")
}

// appendInts writes qs as a JSON array of integers.
func appendInts(b *bytes.Buffer, qs []int64) {
	b.WriteByte('[')
	for i, q := range qs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(q, 10))
	}
	b.WriteByte(']')
}
