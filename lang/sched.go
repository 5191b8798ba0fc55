// sched(): the scheduler's state as a script sees it.
//
// A student of the chapter's figure wants one picture of a moment: which
// M holds which P, which G each runs, who spins, who sleeps in a syscall
// without its P, which M is blocked in netpoll and who waits on the
// network. The REPL's :runq, :ms and :netpoll and the playground's M:P:G
// picture draw it from runtime.Machine.Snapshot (through internal/views);
// sched() builds its value from the very same Snapshot, field for field,
// and names what an M does with the same function (runtime.MState.Activity),
// so that a script, the REPL and the playground cannot disagree about an
// instant. internal/views' TestSchedValueMatchesViews holds SchedValue to
// views.RunqOf on every event of a stepped run.
//
// The value is a frozen struct of frozen structs and tuples: a snapshot,
// not a live view. A goroutine is named by its id (task.id), a P and an M
// by theirs; None stands for "none" where the runtime has nil (an M on
// g0 has curg None, an M without a P has p None). In Go the same picture
// is GODEBUG=schedtrace=X,scheddetail=1's SCHED, P and M lines
// (schedtrace in proc.go), which the runtime prints by itself; here the
// script asks when it wants one.

package lang

import (
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/schedlab/schedlab/runtime"
)

// The constructors name the structs in their str(): sched(...), P(...),
// M(...). They are names only, not callable, and no script can reach
// them: a struct does not give its constructor away.
var (
	schedCtor   = structName("sched")
	pCtor       = structName("P")
	mCtor       = structName("M")
	netpollCtor = structName("netpoll")
	waiterCtor  = structName("waiter")
)

// A structName is a struct's constructor that only names it.
type structName string

var _ starlark.Value = structName("")

func (n structName) String() string        { return string(n) }
func (n structName) Type() string          { return "struct_name" }
func (n structName) Freeze()               {}
func (n structName) Truth() starlark.Bool  { return true }
func (n structName) Hash() (uint32, error) { return starlark.String(n).Hash() }

// sched() → struct: every P and M, the global run queue and the idle Ps at
// this instant, from runtime.Machine.Snapshot (what :runq and :ms show).
// Reading it is not a scheduling point.
func sched(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	return SchedValue(gr.g.Machine().Snapshot()), nil
}

// SchedValue returns the value sched() gives for snapshot s: a frozen
// struct with time, gomaxprocs, goroutines, runnable, nmspinning, ps (one
// struct per P: id, status, m, curg, runnext, runq, schedtick,
// syscalltick, timers, gfree), ms (one per M, in creation order: id, p,
// syscall_p, curg, spinning, idle, syscall, netpoll, activity),
// global_runq, idle_ps and netpoll (the poller: waiters, m, and waiting,
// one struct per goroutine parked on a descriptor: g, fd, kind, mode,
// deadline). docs/language.md describes every field.
func SchedValue(s *runtime.Snapshot) *starlarkstruct.Struct {
	curg := make(map[int]int64) // P id → the G its M runs
	ms := make(starlark.Tuple, len(s.Ms))
	for i := range s.Ms {
		mm := &s.Ms[i]
		if mm.P >= 0 && mm.Curg != 0 {
			curg[mm.P] = mm.Curg
		}
		ms[i] = frozenStruct(mCtor, starlark.StringDict{
			"id":        starlark.MakeInt(mm.ID),
			"p":         idOrNone(mm.P),
			"syscall_p": idOrNone(mm.SyscallP),
			"curg":      goidOrNone(mm.Curg),
			"spinning":  starlark.Bool(mm.Spinning),
			"idle":      starlark.Bool(mm.Idle),
			"syscall":   starlark.Bool(mm.Syscall),
			"netpoll":   starlark.Bool(mm.Netpoll),
			"activity":  starlark.String(mm.Activity()),
		})
	}
	ps := make(starlark.Tuple, len(s.Ps))
	for i, p := range s.Ps {
		ps[i] = frozenStruct(pCtor, starlark.StringDict{
			"id":          starlark.MakeInt(p.ID),
			"status":      starlark.String(p.Status.String()),
			"m":           idOrNone(p.M),
			"curg":        goidOrNone(curg[p.ID]),
			"runnext":     goidOrNone(p.Runnext),
			"runq":        goids(p.Runq),
			"schedtick":   starlark.MakeUint64(uint64(p.Schedtick)),
			"syscalltick": starlark.MakeUint64(uint64(p.Syscalltick)),
			"timers":      starlark.MakeInt(p.Timers),
			"gfree":       starlark.MakeInt(p.GFree),
		})
	}
	idle := make(starlark.Tuple, len(s.IdlePs))
	for i, id := range s.IdlePs {
		idle[i] = starlark.MakeInt(id)
	}
	return frozenStruct(schedCtor, starlark.StringDict{
		"time":        starlark.MakeInt64(s.Time),
		"gomaxprocs":  starlark.MakeInt(s.GOMAXPROCS),
		"goroutines":  starlark.MakeInt(s.Goroutines),
		"runnable":    starlark.MakeInt(s.Runnable),
		"nmspinning":  starlark.MakeInt(s.NMSpinning),
		"ps":          ps,
		"ms":          ms,
		"global_runq": goids(s.GlobalRunq),
		"idle_ps":     idle,
		"netpoll":     netpollValue(s),
	})
}

// netpollValue is sched().netpoll: the poller's waiter count, the M
// blocked in netpoll (None for none) and a waiter struct per goroutine
// parked on a descriptor, in fd order, as :netpoll lists them
// (views.NetpollOf reads the same Snapshot fields).
func netpollValue(s *runtime.Snapshot) *starlarkstruct.Struct {
	var waiting starlark.Tuple
	for i := range s.Polls {
		pd := &s.Polls[i]
		for _, g := range []int64{pd.ReadG, pd.WriteG} {
			if g == 0 {
				continue
			}
			deadline := starlark.Value(starlark.None)
			if g == pd.ReadG && pd.ReadDeadline != 0 {
				deadline = starlark.MakeInt64(pd.ReadDeadline)
			}
			waiting = append(waiting, frozenStruct(waiterCtor, starlark.StringDict{
				"g":        starlark.MakeInt64(g),
				"fd":       starlark.MakeInt64(pd.FD),
				"kind":     starlark.String(pd.Kind),
				"mode":     starlark.String(pd.Mode(g)),
				"deadline": deadline,
			}))
		}
	}
	if waiting == nil {
		waiting = starlark.Tuple{}
	}
	return frozenStruct(netpollCtor, starlark.StringDict{
		"waiters": starlark.MakeInt(s.NetpollWaiters),
		"m":       idOrNone(s.PollM),
		"waiting": waiting,
	})
}

func frozenStruct(ctor structName, d starlark.StringDict) *starlarkstruct.Struct {
	st := starlarkstruct.FromStringDict(ctor, d)
	st.Freeze()
	return st
}

// idOrNone is a P's or an M's id, None for the runtime's nil (-1 in a
// Snapshot).
func idOrNone(id int) starlark.Value {
	if id < 0 {
		return starlark.None
	}
	return starlark.MakeInt(id)
}

// goidOrNone is a goroutine's id, None for none (0 in a Snapshot).
func goidOrNone(goid int64) starlark.Value {
	if goid == 0 {
		return starlark.None
	}
	return starlark.MakeInt64(goid)
}

func goids(ids []int64) starlark.Tuple {
	t := make(starlark.Tuple, len(ids))
	for i, id := range ids {
		t[i] = starlark.MakeInt64(id)
	}
	return t
}
