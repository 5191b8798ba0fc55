// Queue lengths derived from events.
//
// The timeline's graph and the Chrome export's counter track show two
// numbers over time: the length of the global run queue and the number of
// runnable goroutines (_Grunnable: in any run queue or runnext, waiting
// for a P). The Machine does not report them; queueModel derives them from
// the event stream alone, so that any consumer of a trace can check them.
//
// Runnable count. A set of Gs, so that an event repeated for the same G
// (a TimerFire followed by the GoUnblock it causes) counts once:
//
//   - added: GoCreate (G2), GoUnblock (G2), TimerFire (G2), GoSched (G),
//     GoPreempt (G), GoSyscallEnd with Reason "no p" (G, put on the global
//     queue by exitsyscallNoP);
//   - removed: GoStart (G); also GoBlock, GoSleep, GoDestroy and
//     GoSyscallBegin (G), which only a running G can do, so a G missed by
//     a GoStart does not stay counted forever.
//
// Global run queue length. A counter:
//
//   - +1: GoSched and GoPreempt (goschedImpl and gopreempt_m put the G on
//     the global queue), GoCreate and GoUnblock with Arg 2 (put on the
//     global queue), GoSyscallEnd with Reason "no p";
//   - +Arg: GlobalRunqPut (runqputslow moves half the ring there);
//   - -Arg: GlobalRunqGet (globrunqget, globrunqgetbatch), never below 0.
//
// The global count is exact only if the Machine reports every take from
// the global queue as a GlobalRunqGet, including the single G taken on
// every 61st schedtick, and every move to it that is not one of the events
// above (procresize moving a destroyed P's Gs) as a GlobalRunqPut; that is
// the contract of runtime/event.go.
//
// The set is a map, which is fine here: it is only ever asked for its
// length and for membership, never iterated into output.

package trace

import "github.com/schedlab/schedlab/runtime"

// A queueModel derives the global run queue length and the runnable count
// from events.
type queueModel struct {
	runnable map[int64]struct{} // Gs in _Grunnable
	global   int64              // length of the global run queue
}

// event applies ev. It reports whether either count changed.
func (q *queueModel) event(ev *runtime.Event) bool {
	if q.runnable == nil {
		q.runnable = make(map[int64]struct{})
	}
	n, global := len(q.runnable), q.global
	switch ev.Kind {
	case runtime.EvGoCreate, runtime.EvGoUnblock:
		q.add(ev.G2)
		if ev.Arg == queueGlobal {
			q.global++
		}
	case runtime.EvTimerFire:
		q.add(ev.G2)
	case runtime.EvGoSched, runtime.EvGoPreempt:
		q.add(ev.G)
		if ev.Arg == 0 { // else the local ring (goyield) or runnext (a stop-the-world)
			q.global++
		}
	case runtime.EvGoSyscallEnd:
		if ev.Reason == "no p" {
			q.add(ev.G)
			q.global++
		}
	case runtime.EvGoStart, runtime.EvGoBlock, runtime.EvGoSleep, runtime.EvGoDestroy, runtime.EvGoSyscallBegin:
		delete(q.runnable, ev.G)
	case runtime.EvGlobalRunqPut:
		q.global += ev.Arg
	case runtime.EvGlobalRunqGet:
		q.global = max(q.global-ev.Arg, 0)
	}
	return len(q.runnable) != n || q.global != global
}

// add marks g runnable.
func (q *queueModel) add(g int64) {
	if g != 0 {
		q.runnable[g] = struct{}{}
	}
}

// counts returns the global run queue length and the runnable count.
func (q *queueModel) counts() (global, runnable int64) {
	return q.global, int64(len(q.runnable))
}
