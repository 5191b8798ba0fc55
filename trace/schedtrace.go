// Go's schedtrace lines.
//
// GODEBUG=schedtrace=X makes a Go program print one line to stderr every X
// milliseconds, summarizing the scheduler; scheddetail=1 makes it print the
// state of every P, M and G instead. Both come from schedtrace() in
// $GOROOT/src/runtime/proc.go, which sysmon calls. This writer prints the
// same lines, in the same format, for a simulated run, every period of
// virtual time, so that they can be set next to a real program's lines and
// fed to the tools that read them:
//
//	SCHED 2ms: gomaxprocs=2 idleprocs=0 threads=3 spinningthreads=1 needspinning=0 idlethreads=0 runqueue=0 [ 1 0 ] schedticks=[ 3 2 ]
//
// and with detail:
//
//	SCHED 2ms: gomaxprocs=2 idleprocs=0 threads=3 spinningthreads=1 needspinning=0 idlethreads=0 runqueue=0 gcwaiting=false nmidlelocked=0 stopwait=0 sysmonwait=false
//	  P0: status=1 schedtick=3 syscalltick=0 m=0 runqsize=1 gfreecnt=0 timerslen=0
//	  P1: status=1 schedtick=2 syscalltick=0 m=1 runqsize=0 gfreecnt=0 timerslen=0
//	  M1: p=1 curg=nil mallocing=0 throwing=0 preemptoff= locks=0 dying=0 spinning=true blocked=false lockedg=nil
//	  M0: p=0 curg=1 mallocing=0 throwing=0 preemptoff= locks=0 dying=0 spinning=false blocked=false lockedg=nil
//	  G1: status=2() m=0 lockedm=nil
//	  G2: status=1() m=nil lockedm=nil
//
// A tracer only sees events, and the lines show state that events only
// imply (queue lengths, schedticks, idle Ms), so the writer reads the
// Machine itself: it is given a SchedSource (a *runtime.Machine) with
// Attach before the run starts, and takes a runtime.Snapshot when it
// prints.
//
// When: a line is due at every multiple of the period, starting at 0
// (Go's first line is "SCHED 0ms", printed at sysmon's first tick), one
// line per boundary: a run that sleeps through five periods gets five
// lines, all alike. Go's sysmon wakes when it can, so a real program's
// lines drift and skip; these are exactly on the period. Two things can
// say that a boundary has passed:
//
//   - The events (Event): the lines due are printed when the first event
//     whose Time is at or after them arrives. The state shown is the state
//     just before that event, except that the engine may have begun the
//     step that reports it: when it reports an event after making part of
//     the change (a GoStart's G is already running, a G that a GoUnblock
//     readies is already runnable, a timer that fires on an idle P has
//     already taken the P off the idle list), that part shows, also in
//     the lines of a stretch where nothing happened before that event.
//   - The clock (Advance): a Machine that reports when its clock is about
//     to move, between two steps, gives the exact state at each boundary.
//     Once Advance has been called, Event prints no more lines; the line
//     at 0 comes from the first event, or from Advance when there was
//     none.
//
// What the simulator does not have is printed as its closest honest value,
// always the same: needspinning=0; in the detail lines gcwaiting=false,
// stopwait=0, sysmonwait=false, and for every M mallocing=0 throwing=0
// preemptoff= locks=0 dying=0. blocked=true means the M is parked (stopm,
// or stoplockedm for a locked M, which nmidlelocked counts), as Go's
// notesleep sets it; lockedg and lockedm name runtime.main's G1 and M0
// while its init runs locked (runtime/startup.go). The G lines include
// the runtime's own goroutines, as Go's do. A P's status is the simulator's (0 idle, 1 running, 2
// syscall, 3 gcstop, 4 dead, Go's numbers); Go 1.26 itself no longer puts
// a P in _Psyscall. A G's wait reason is shown only while it waits (Go
// keeps the last one). The G lines list the goroutines that are not dead,
// in id order (Go lists every G it ever made, dead ones as status=6).
//
// A stretch of many periods at once (--schedtrace=1ns over a long sleep)
// is written as it goes, and cut when the run is stopped: the lines then
// end where the wall-clock timeout found them.
//
// At the end of a run Go prints nothing more, except when the program dies
// of a fatal error or an unrecovered panic: then startpanic_m prints one
// detailed dump whenever schedtrace or scheddetail is set. Crash writes
// that dump.

package trace

import (
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/runtime"
)

// A SchedSource is the scheduler a SchedTrace reads: a *runtime.Machine,
// or anything else that can take its snapshot. When the source also has a
// method Goroutines() []*runtime.G (the Machine has), the detail lines
// list those goroutines.
type SchedSource interface {
	Snapshot() *runtime.Snapshot
}

// goroutineSource is a SchedSource that can list its goroutines.
type goroutineSource interface {
	AllGoroutines() []*runtime.G
}

// SnapshotFunc adapts a function to the SchedSource interface.
type SnapshotFunc func() *runtime.Snapshot

// Snapshot returns f().
func (f SnapshotFunc) Snapshot() *runtime.Snapshot { return f() }

// A SchedTrace prints Go's schedtrace lines for a run at every period of
// virtual time. It implements runtime.Tracer. It writes each group of
// lines to w as soon as it is due, unbuffered, as Go prints to stderr.
type SchedTrace struct {
	w       io.Writer
	period  int64 // ns between lines
	detail  bool  // scheddetail=1
	src     SchedSource
	next    int64 // virtual time of the next line
	started bool  // an event was seen
	clocked bool  // Advance drives the lines
	buf     []byte
	err     error
}

var _ runtime.Tracer = (*SchedTrace)(nil)

// NewSchedTrace returns a SchedTrace that writes to w a line every period
// ns of virtual time (GODEBUG=schedtrace), the detailed lines when detail
// is set (scheddetail=1). A period of 0 or less means no periodic lines:
// only Crash prints. It prints nothing until a source is attached.
func NewSchedTrace(w io.Writer, period int64, detail bool) *SchedTrace {
	return &SchedTrace{w: w, period: period, detail: detail}
}

// Attach sets the scheduler whose state the lines show. It must be called
// before the run's first event.
func (s *SchedTrace) Attach(src SchedSource) { s.src = src }

// Event prints the lines due at or before ev.Time, unless Advance drives
// the lines.
func (s *SchedTrace) Event(ev *runtime.Event) {
	s.started = true
	if !s.clocked {
		s.printUntil(ev.Time)
	}
}

// Advance prints the lines due at or before virtual time to, with the
// state as it is now. It is meant to be called by the Machine just before
// its clock moves forward to to, between two steps, when the state is the
// state of every instant up to to (before anything happens at to).
func (s *SchedTrace) Advance(to int64) {
	s.clocked = true
	s.printUntil(to)
}

// printUntil prints the lines due at or before t, all with the current
// state.
func (s *SchedTrace) printUntil(t int64) {
	if s.period <= 0 || s.src == nil || t < s.next || s.err != nil {
		return
	}
	snap := s.src.Snapshot()
	var gs []*runtime.G
	if s.detail {
		gs = s.goroutines()
	}
	stop, _ := s.src.(interruptible)
	b := s.buf[:0]
	for n := 1; t >= s.next; n++ {
		b = appendSchedTrace(b, snap, s.next, s.detail, gs)
		if s.next > math.MaxInt64-s.period {
			s.next = math.MaxInt64 // the end of the clock: no line after it
			break
		}
		s.next += s.period
		if n%linesPerCheck == 0 {
			// A long stretch at a short period (--schedtrace=1ns over a
			// second is a billion lines): write as it goes, and stop
			// when the run is stopped (the wall-clock timeout).
			s.write(b)
			b = s.buf[:0]
			if s.err != nil || stop != nil && stop.Interrupted() {
				s.skipTo(t)
				return
			}
		}
	}
	s.write(b)
}

// linesPerCheck is how many lines printUntil writes between two looks at
// whether the run was stopped.
const linesPerCheck = 1024

// interruptible is a SchedSource that can say that its run was stopped
// (the Machine can: Interrupted).
type interruptible interface {
	Interrupted() bool
}

// skipTo moves the next line past t without printing the lines between.
func (s *SchedTrace) skipTo(t int64) {
	k := (t-s.next)/s.period + 1
	if k > (math.MaxInt64-s.next)/s.period {
		s.next = math.MaxInt64
		return
	}
	s.next += k * s.period
}

// Crash prints the detailed dump that Go prints when the program dies of a
// fatal error or an unrecovered panic while schedtrace or scheddetail is
// set (startpanic_m calls schedtrace(true)): the current state, labelled
// with the current virtual time. It prints nothing if no source is
// attached or the run never started.
func (s *SchedTrace) Crash() {
	if s.src == nil || !s.started || s.err != nil {
		return
	}
	snap := s.src.Snapshot()
	s.write(appendSchedTrace(s.buf[:0], snap, snap.Time, true, s.goroutines()))
}

// Flush returns the first error met writing the lines. The lines are
// written as they are due, so there is nothing left to write.
func (s *SchedTrace) Flush() error { return s.err }

// goroutines returns the goroutines the detail lines list, if the source
// can list them.
func (s *SchedTrace) goroutines() []*runtime.G {
	if gsrc, ok := s.src.(goroutineSource); ok {
		return gsrc.AllGoroutines()
	}
	return nil
}

// write writes b and keeps it as the scratch buffer.
func (s *SchedTrace) write(b []byte) {
	s.buf = b
	if _, err := s.w.Write(b); err != nil {
		s.err = err
	}
}

// appendSchedTrace appends what schedtrace(detailed) prints for snap,
// labelled with virtual time t (ns). gs are the goroutines for the G lines
// of the detailed form. It mirrors schedtrace in proc.go line by line.
func appendSchedTrace(b []byte, snap *runtime.Snapshot, t int64, detailed bool, gs []*runtime.G) []byte {
	nmidle, nmidlelocked := 0, 0
	for _, m := range snap.Ms {
		if m.Idle {
			nmidle++
		}
		if m.Locked {
			nmidlelocked++
		}
	}
	b = append(b, "SCHED "...)
	b = strconv.AppendInt(b, t/1e6, 10)
	b = append(b, "ms: gomaxprocs="...)
	b = strconv.AppendInt(b, int64(snap.GOMAXPROCS), 10)
	b = append(b, " idleprocs="...)
	b = strconv.AppendInt(b, int64(len(snap.IdlePs)), 10)
	b = append(b, " threads="...)
	b = strconv.AppendInt(b, int64(len(snap.Ms)), 10)
	b = append(b, " spinningthreads="...)
	b = strconv.AppendInt(b, int64(snap.NMSpinning), 10)
	b = append(b, " needspinning=0 idlethreads="...)
	b = strconv.AppendInt(b, int64(nmidle), 10)
	b = append(b, " runqueue="...)
	b = strconv.AppendInt(b, int64(len(snap.GlobalRunq)), 10)
	if detailed {
		b = append(b, " gcwaiting=false nmidlelocked="...)
		b = strconv.AppendInt(b, int64(nmidlelocked), 10)
		b = append(b, " stopwait=0 sysmonwait=false\n"...)
	}
	for i, p := range snap.Ps {
		// runqsize is the ring's length, t-h: runnext is not counted.
		if detailed {
			b = append(b, "  P"...)
			b = strconv.AppendInt(b, int64(p.ID), 10)
			b = append(b, ": status="...)
			b = strconv.AppendInt(b, int64(p.Status), 10)
			b = append(b, " schedtick="...)
			b = strconv.AppendUint(b, uint64(p.Schedtick), 10)
			b = append(b, " syscalltick="...)
			b = strconv.AppendUint(b, uint64(p.Syscalltick), 10)
			b = append(b, " m="...)
			b = appendIDOrNil(b, int64(p.M), p.M < 0)
			b = append(b, " runqsize="...)
			b = strconv.AppendInt(b, int64(len(p.Runq)), 10)
			b = append(b, " gfreecnt="...)
			b = strconv.AppendInt(b, int64(p.GFree), 10)
			b = append(b, " timerslen="...)
			b = strconv.AppendInt(b, int64(p.Timers), 10)
			b = append(b, '\n')
		} else {
			// [ len1 len2 len3 len4 ]
			b = append(b, ' ')
			if i == 0 {
				b = append(b, "[ "...)
			}
			b = strconv.AppendInt(b, int64(len(p.Runq)), 10)
			if i == len(snap.Ps)-1 {
				b = append(b, " ]"...)
			}
		}
	}
	if !detailed {
		b = append(b, " schedticks=[ "...)
		for _, p := range snap.Ps {
			b = strconv.AppendUint(b, uint64(p.Schedtick), 10)
			b = append(b, ' ')
		}
		return append(b, "]\n"...)
	}

	// allm is a list with the newest M first.
	for _, m := range slices.Backward(snap.Ms) {
		b = append(b, "  M"...)
		b = strconv.AppendInt(b, int64(m.ID), 10)
		b = append(b, ": p="...)
		b = appendIDOrNil(b, int64(m.P), m.P < 0)
		b = append(b, " curg="...)
		b = appendIDOrNil(b, m.Curg, m.Curg == 0)
		b = append(b, " mallocing=0 throwing=0 preemptoff= locks=0 dying=0 spinning="...)
		b = strconv.AppendBool(b, m.Spinning)
		b = append(b, " blocked="...)
		b = strconv.AppendBool(b, m.Idle || m.Locked)
		b = append(b, " lockedg="...)
		b = appendIDOrNil(b, m.LockedG, m.LockedG == 0)
		b = append(b, '\n')
	}

	for _, g := range gs {
		id := g.ID()
		b = append(b, "  G"...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, ": status="...)
		b = strconv.AppendUint(b, uint64(g.Status()), 10)
		b = append(b, '(')
		b = append(b, g.WaitReason()...)
		b = append(b, ") m="...)
		m := -1
		for _, ms := range snap.Ms {
			if ms.Curg == id {
				m = ms.ID
				break
			}
		}
		b = appendIDOrNil(b, int64(m), m < 0)
		b = append(b, " lockedm="...)
		lm := g.LockedM()
		b = appendIDOrNil(b, int64(lm), lm < 0)
		b = append(b, '\n')
	}
	return b
}

// appendIDOrNil appends id, or "nil" when there is none, as schedtrace
// prints a pointer's id.
func appendIDOrNil(b []byte, id int64, none bool) []byte {
	if none {
		return append(b, "nil"...)
	}
	return strconv.AppendInt(b, id, 10)
}
