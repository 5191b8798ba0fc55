// A real trace as schedlab's event stream.
//
// schedlab's views (the HTML timeline above all) draw runtime.Event
// streams. realEvents turns a trace read by internal/realtrace (which
// knows nothing of schedlab's simulation, and stays so) into one, so that
// `schedlab timeline` draws a real program the way it draws a simulated
// run. The
// translation is the inverse of trace/exectrace's:
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

package main

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/internal/realtrace"
	"github.com/schedlab/schedlab/runtime"
)

// realEvents returns the trace t as schedlab's event stream, in time
// order, and the number of Ps it names (the highest P id plus one).
func realEvents(t *realtrace.Trace) (evs []runtime.Event, procs int) {
	mIdx := make(map[int64]int32, len(t.Threads))
	for i, th := range t.Threads {
		mIdx[th.M] = int32(i)
	}
	m := func(id int64) int32 {
		if id == realtrace.None {
			return -1
		}
		if i, ok := mIdx[id]; ok {
			return i
		}
		i := int32(len(mIdx))
		mIdx[id] = i
		return i
	}
	p := func(id int64) int32 {
		if id == realtrace.None {
			return -1
		}
		procs = max(procs, int(id)+1)
		return int32(id)
	}
	g := func(id int64) int64 {
		if id == realtrace.None {
			return 0
		}
		return id
	}

	// The three lists are each in trace order; the reader gives every
	// event a time of its own, so merging by time restores the order.
	type item struct {
		time  int64
		order int // which list, to keep equal times stable
		i     int
	}
	items := make([]item, 0, len(t.Transitions)+len(t.Procs)+len(t.Logs))
	for i, tr := range t.Transitions {
		items = append(items, item{tr.Time, 1, i})
	}
	for i, pe := range t.Procs {
		items = append(items, item{pe.Time, 0, i})
	}
	for i, l := range t.Logs {
		items = append(items, item{l.Time, 2, i})
	}
	slices.SortStableFunc(items, func(a, b item) int {
		return cmp.Or(cmp.Compare(a.time, b.time), cmp.Compare(a.order, b.order))
	})

	add := func(time int64, kind runtime.EventKind, pp, mp int32, gp, g2 int64, arg int64, reason string) {
		evs = append(evs, runtime.Event{Seq: uint64(len(evs) + 1), Time: time - t.Start, P: pp, M: mp, G: gp, Kind: kind, G2: g2, P2: -1, Arg: arg, Reason: reason})
	}
	syscalls := map[int64]int{} // G → index in evs of its open GoSyscallBegin
	for _, it := range items {
		switch it.order {
		case 0:
			pe := t.Procs[it.i]
			switch {
			case pe.Start:
				add(pe.Time, runtime.EvProcStart, p(pe.P), m(pe.M), 0, 0, 0, "")
			case pe.Steal:
				add(pe.Time, runtime.EvProcSteal, p(pe.P), -1, 0, 0, 0, "")
			default:
				add(pe.Time, runtime.EvProcStop, p(pe.P), m(pe.M), 0, 0, 0, "")
			}
		case 2:
			l := t.Logs[it.i]
			add(l.Time, runtime.EvPrint, p(l.P), m(l.M), g(l.G), 0, 0, l.Category+": "+l.Message)
		case 1:
			tr := t.Transitions[it.i]
			pp, mp, gp := p(tr.P), m(tr.M), tr.G
			if tr.Status {
				switch tr.To {
				case realtrace.Running:
					add(tr.Time, runtime.EvGoStart, pp, mp, gp, 0, 0, "")
				case realtrace.Syscall:
					add(tr.Time, runtime.EvGoStart, pp, mp, gp, 0, 0, "")
					syscalls[gp] = len(evs)
					add(tr.Time, runtime.EvGoSyscallBegin, pp, mp, gp, 0, 0, "")
				}
				continue
			}
			switch {
			case tr.From == realtrace.NotExist && tr.To == realtrace.Runnable:
				add(tr.Time, runtime.EvGoCreate, pp, mp, g(tr.By), gp, -1, tr.Func)
			case tr.To == realtrace.Running && tr.From == realtrace.Runnable:
				add(tr.Time, runtime.EvGoStart, pp, mp, gp, 0, 0, "")
			case tr.From == realtrace.Running && tr.To == realtrace.Runnable:
				if tr.Reason == "preempted" {
					add(tr.Time, runtime.EvGoPreempt, pp, mp, gp, 0, 0, "")
				} else {
					add(tr.Time, runtime.EvGoSched, pp, mp, gp, 0, 0, "")
				}
			case tr.To == realtrace.Waiting:
				add(tr.Time, runtime.EvGoBlock, pp, mp, gp, 0, 0, tr.Reason)
			case tr.From == realtrace.Waiting && tr.To == realtrace.Runnable:
				add(tr.Time, runtime.EvGoUnblock, pp, mp, g(tr.By), gp, -1, "")
			case tr.To == realtrace.Syscall:
				syscalls[gp] = len(evs)
				add(tr.Time, runtime.EvGoSyscallBegin, pp, mp, gp, 0, 0, "")
			case tr.From == realtrace.Syscall && (tr.To == realtrace.Running || tr.To == realtrace.Runnable):
				if i, ok := syscalls[gp]; ok {
					evs[i].Arg = tr.Time - t.Start - evs[i].Time
					delete(syscalls, gp)
				}
				exit := "fast"
				if tr.To == realtrace.Runnable {
					exit, pp = "no p", -1
				}
				add(tr.Time, runtime.EvGoSyscallEnd, pp, mp, gp, 0, 0, exit)
			case tr.To == realtrace.NotExist:
				delete(syscalls, gp)
				add(tr.Time, runtime.EvGoDestroy, pp, mp, gp, 0, 0, "")
			}
		}
	}
	return evs, max(procs, 1)
}
