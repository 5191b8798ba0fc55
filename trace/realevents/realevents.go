// Package realevents turns a real Go execution trace, as package
// internal/realtrace reads it, into schedlab's event stream
// ([]runtime.Event), so that `schedlab timeline` draws a real program
// the way it draws a simulated run.
//
// schedlab's views (the HTML timeline above all) draw runtime.Event
// streams. realtrace knows nothing of schedlab's simulation, and stays
// so; this package is the bridge. The translation is the inverse of
// trace/exectrace's:
//
//	NotExist → Runnable   GoCreate (G = the creator, Reason = the entry function)
//	Runnable → Running    GoStart
//	Running → Runnable    GoPreempt for "preempted", else GoSched
//	Running → Waiting     GoBlock (Reason = the trace's reason)
//	Waiting → Runnable    GoUnblock (G = who readied it)
//	Running → Syscall     GoSyscallBegin (Arg = its duration, when it ends in the trace)
//	Syscall → Running     GoSyscallEnd "fast"
//	Syscall → Runnable    GoSyscallEnd "no p" (a GoStart follows when it gets a P)
//	→ NotExist            GoDestroy
//	P start / stop        ProcStart / ProcStop; a stop by another thread is ProcSteal
//	log                   Print ("category: message")
//
// Status reports at the start of a generation become a GoStart (for a
// goroutine running when the trace began), a GoStart and a
// GoSyscallBegin (in a syscall) and a ProcStart (a running P); others
// need no event. What a real trace does not hold stays unknown: where a
// created or readied goroutine was queued is Arg -1 (shown as
// to=unknown), and there are no RunqSteal, GlobalRunqPut/Get or spinning
// events. Threads are numbered 0, 1, ... in the order they first appear,
// since a real trace's thread ids are the operating system's. Times are
// from the trace's first event.
package realevents

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/internal/realtrace"
	"github.com/schedlab/schedlab/runtime"
)

// Events returns the trace t as schedlab's event stream, in time order,
// and the number of Ps it names (the highest P id plus one, at least 1).
func Events(t *realtrace.Trace) (evs []runtime.Event, procs int) {
	x := newTranslator(t)
	for _, it := range mergeByTime(t) {
		switch it.list {
		case procList:
			x.proc(t.Procs[it.i])
		case transitionList:
			x.transition(t.Transitions[it.i])
		case logList:
			x.log(t.Logs[it.i])
		}
	}
	return x.evs, max(x.procs, 1)
}

// Which of a Trace's three lists an item comes from; the order breaks
// ties between equal times.
const (
	procList = iota
	transitionList
	logList
)

// An item is one event of a Trace: its time, its list and its index there.
type item struct {
	time int64
	list int
	i    int
}

// mergeByTime returns the events of t's three lists in one time order.
// The lists are each in trace order; the reader gives every event a time
// of its own, so merging by time restores the order.
func mergeByTime(t *realtrace.Trace) []item {
	items := make([]item, 0, len(t.Transitions)+len(t.Procs)+len(t.Logs))
	for i, tr := range t.Transitions {
		items = append(items, item{tr.Time, transitionList, i})
	}
	for i, pe := range t.Procs {
		items = append(items, item{pe.Time, procList, i})
	}
	for i, l := range t.Logs {
		items = append(items, item{l.Time, logList, i})
	}
	slices.SortStableFunc(items, func(a, b item) int {
		return cmp.Or(cmp.Compare(a.time, b.time), cmp.Compare(a.list, b.list))
	})
	return items
}

// A translator holds the state of one translation: the events so far,
// the threads numbered, the Ps seen, and the syscalls still open.
type translator struct {
	start    int64           // the trace's first time, time zero of the events
	evs      []runtime.Event // the stream so far
	mIdx     map[int64]int32 // thread id → its number
	procs    int             // the highest P id seen, plus one
	syscalls map[int64]int   // G → index in evs of its open GoSyscallBegin
}

// newTranslator returns a translator for t, its threads numbered in the
// order of their first event.
func newTranslator(t *realtrace.Trace) *translator {
	x := &translator{start: t.Start, mIdx: make(map[int64]int32, len(t.Threads)), syscalls: map[int64]int{}}
	for i, th := range t.Threads {
		x.mIdx[th.M] = int32(i)
	}
	return x
}

// m returns the number of thread id, numbering a new one; -1 for none.
func (x *translator) m(id int64) int32 {
	if id == realtrace.None {
		return -1
	}
	if i, ok := x.mIdx[id]; ok {
		return i
	}
	i := int32(len(x.mIdx))
	x.mIdx[id] = i
	return i
}

// p returns P id as an event's P, counting it; -1 for none.
func (x *translator) p(id int64) int32 {
	if id == realtrace.None {
		return -1
	}
	x.procs = max(x.procs, int(id)+1)
	return int32(id)
}

// g returns goroutine id as an event's G; 0 for none (the runtime).
func g(id int64) int64 {
	if id == realtrace.None {
		return 0
	}
	return id
}

// add appends one event at trace time.
func (x *translator) add(time int64, kind runtime.EventKind, pp, mp int32, gp, g2 int64, arg int64, reason string) {
	x.evs = append(x.evs, runtime.Event{Seq: uint64(len(x.evs) + 1), Time: time - x.start, P: pp, M: mp, G: gp, Kind: kind, G2: g2, P2: -1, Arg: arg, Reason: reason})
}

// proc translates a P's start or stop.
func (x *translator) proc(pe realtrace.ProcEvent) {
	switch {
	case pe.Start:
		x.add(pe.Time, runtime.EvProcStart, x.p(pe.P), x.m(pe.M), 0, 0, 0, "")
	case pe.Steal:
		x.add(pe.Time, runtime.EvProcSteal, x.p(pe.P), -1, 0, 0, 0, "")
	default:
		x.add(pe.Time, runtime.EvProcStop, x.p(pe.P), x.m(pe.M), 0, 0, 0, "")
	}
}

// log translates a runtime/trace.Log line into a Print.
func (x *translator) log(l realtrace.Log) {
	x.add(l.Time, runtime.EvPrint, x.p(l.P), x.m(l.M), g(l.G), 0, 0, l.Category+": "+l.Message)
}

// status translates a report of a goroutine's state at the start of a
// generation: one already running starts, one in a syscall starts and
// enters it; others need no event.
func (x *translator) status(tr realtrace.Transition, pp, mp int32) {
	switch tr.To {
	case realtrace.Running:
		x.add(tr.Time, runtime.EvGoStart, pp, mp, tr.G, 0, 0, "")
	case realtrace.Syscall:
		x.add(tr.Time, runtime.EvGoStart, pp, mp, tr.G, 0, 0, "")
		x.syscallBegin(tr, pp, mp)
	}
}

// transition translates one change of a goroutine's state (the table of
// the package comment).
func (x *translator) transition(tr realtrace.Transition) {
	pp, mp, gp := x.p(tr.P), x.m(tr.M), tr.G
	if tr.Status {
		x.status(tr, pp, mp)
		return
	}
	switch {
	case tr.From == realtrace.NotExist && tr.To == realtrace.Runnable:
		x.add(tr.Time, runtime.EvGoCreate, pp, mp, g(tr.By), gp, -1, tr.Func)
	case tr.To == realtrace.Running && tr.From == realtrace.Runnable:
		x.add(tr.Time, runtime.EvGoStart, pp, mp, gp, 0, 0, "")
	case tr.From == realtrace.Running && tr.To == realtrace.Runnable:
		x.stop(tr, pp, mp)
	case tr.To == realtrace.Waiting:
		x.add(tr.Time, runtime.EvGoBlock, pp, mp, gp, 0, 0, tr.Reason)
	case tr.From == realtrace.Waiting && tr.To == realtrace.Runnable:
		x.add(tr.Time, runtime.EvGoUnblock, pp, mp, g(tr.By), gp, -1, "")
	case tr.To == realtrace.Syscall:
		x.syscallBegin(tr, pp, mp)
	case tr.From == realtrace.Syscall && (tr.To == realtrace.Running || tr.To == realtrace.Runnable):
		x.syscallEnd(tr, pp, mp)
	case tr.To == realtrace.NotExist:
		delete(x.syscalls, gp)
		x.add(tr.Time, runtime.EvGoDestroy, pp, mp, gp, 0, 0, "")
	}
}

// stop translates a running goroutine made runnable: a preemption, or a
// yield.
func (x *translator) stop(tr realtrace.Transition, pp, mp int32) {
	kind := runtime.EvGoSched
	if tr.Reason == "preempted" {
		kind = runtime.EvGoPreempt
	}
	x.add(tr.Time, kind, pp, mp, tr.G, 0, 0, "")
}

// syscallBegin translates a goroutine entering a syscall, and keeps the
// event open until syscallEnd gives it its duration.
func (x *translator) syscallBegin(tr realtrace.Transition, pp, mp int32) {
	x.syscalls[tr.G] = len(x.evs)
	x.add(tr.Time, runtime.EvGoSyscallBegin, pp, mp, tr.G, 0, 0, "")
}

// syscallEnd translates a goroutine leaving a syscall, with its P
// ("fast") or without one ("no p"), and sets the duration of its
// GoSyscallBegin.
func (x *translator) syscallEnd(tr realtrace.Transition, pp, mp int32) {
	if i, ok := x.syscalls[tr.G]; ok {
		x.evs[i].Arg = tr.Time - x.start - x.evs[i].Time
		delete(x.syscalls, tr.G)
	}
	exit := "fast"
	if tr.To == realtrace.Runnable {
		exit, pp = "no p", -1
	}
	x.add(tr.Time, runtime.EvGoSyscallEnd, pp, mp, tr.G, 0, 0, exit)
}
