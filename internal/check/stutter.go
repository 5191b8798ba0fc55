package check

// Stutter: a goroutine that comes back to a state it was in.
//
// A loop that polls and finds nothing, as Go's
//
//	for {
//		select {
//		case <-done:
//			return
//		default:
//		}
//		mu.Lock(); cond.Signal(); mu.Unlock()
//	}
//
// takes its turns alone at one P until something else runs, and a
// preemption at each of its safe points is a schedule of its own. DPOR
// cannot merge them: the poll reads done and the close writes it, so
// each place of the close among the turns is a trace of its own (as
// optimal DPOR counts traces too). But from the second turn on, each turn
// leaves everything as it found it: the mutex unlocked, the cond without
// waiters, done open, the goroutine's locals the same. A preemption at a
// safe point of turn k+1 then starts from the state a preemption at the
// same safe point of turn k starts from, but for the clock. That is the
// stutter of Kokologiannakis, Marmanis, Gladstein and Vafeiadis,
// "Awaiting for Godot: Stateless Model Checking that Avoids Executions
// where Nothing Happens" (FMCAD 2022), who block the executions of an
// await loop whose failed iterations only repeat one another, and of
// GenMC's treatment of zero-net-effect loops: here the walk tries the
// switch only at the first point of each such state, and moves there the
// marks that DPOR set at the later ones.
//
// A stretch is what one goroutine runs alone: it ends when another
// goroutine or goroutine 0 runs, and at anything whose effect the walk
// does not compare (a spawn, a wake-up, a park, a switch, the output, the
// PRNG, a builtin the tracker does not know). Within a stretch, each
// preempt point gets a key (stretch.key): the goroutine's Starlark state
// (lang.AppendStateKey: its frames, calls and locals, or none when the
// interpreter holds state the key cannot see), the timers (how many, how
// many due: runtime's AppendTimersKey), and the state of every engine
// object the stretch has written (runtime.AppendStateKey). Everything else
// is as it was at the stretch's start: no other goroutine ran, the run
// queues did not change, objects only read were not changed. Two points
// of one stretch with one key are one state, but for the virtual clock
// and what it drives (sysmon's ticks and its 10ms slice, the costs
// model's counters, the GC's pacing, a step or time limit): the time
// that DPOR does not cover either (docs/check.md, "What is sound").
// Plain values are compared by identity, which holds only where no plain
// value changes in place: the keys are kept only when
// Program.SharedPlainState is "".
//
// The later point's schedules are those of the earlier one: the same
// state, with no more preemptions before it (the points between are the
// running goroutine's, answered 0), so a bound allows as much below it.

import (
	"strconv"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// ignoreLocals, in a test, leaves the goroutine's locals out of the keys:
// a loop's counter is then not seen, and turns that differ are merged,
// which TestStutterNeedsTheLocals catches.
var ignoreLocals = false

// A stretch is the stutter state of a tracker: the keys of the preempt
// points of the stretch in progress.
type stretch struct {
	on      bool
	g       int64          // the goroutine of the stretch
	written []any          // the engine objects the stretch wrote, in the order of their first write
	wrote   map[any]bool   // the same, as a set
	seen    map[string]int // the first preempt point of each key
	buf     []byte
	next    int     // the representative of the point about to be asked, -1 if none
	reps    []int32 // by choice point: the earlier point of its state in its stretch, -1 if none
}

// breakStretch ends the stretch in progress: what follows is compared
// with nothing before it.
func (s *stretch) breakStretch() {
	if !s.on || len(s.seen) == 0 && len(s.written) == 0 {
		return
	}
	s.written = s.written[:0]
	clear(s.wrote)
	clear(s.seen)
}

// running notes that g runs from now on: another goroutine than the
// stretch's ends it. Goroutine 0 ends it only by what it touches (a timer
// that readies a goroutine or sends on its channel): a sysmon tick, which
// touches nothing, changes nothing a key compares.
func (s *stretch) running(g int64) {
	if g != 0 && g != s.g {
		s.breakStretch()
		s.g = g
	}
}

// touched notes an access of the transition in progress: a write of an
// engine object is compared at the next points; anything else that
// changes state ends the stretch.
func (s *stretch) touched(g int64, obj any, a runtime.Access) {
	if !s.on {
		return
	}
	if g == 0 {
		s.breakStretch()
		return
	}
	switch k := obj.(type) {
	case lang.Call:
		extra, ok := preciseCalls[k]
		if !ok || extra != nil || k == "rand" || len(k) > 5 && k[:5] == "rand." {
			s.breakStretch()
		}
		return
	case *runtime.Chan, *runtime.Mutex, *runtime.WaitGroup, *runtime.RWMutex, *runtime.Cond, *runtime.Weighted:
		if a == runtime.AccessRead {
			return
		}
		if a == runtime.AccessWrite {
			if !s.wrote[obj] {
				s.wrote[obj] = true
				s.written = append(s.written, obj)
			}
			return
		}
	}
	s.breakStretch()
}

// key sets the representative of the preempt point about to be asked,
// index i, of goroutine gp.
func (s *stretch) key(gp *runtime.G, i int) {
	s.next = -1
	if !s.on {
		return
	}
	b := s.buf[:0]
	var ok bool
	if ignoreLocals {
		b, ok = append(b, "any"...), true
	} else {
		b, ok = lang.AppendStateKey(b, gp)
	}
	if !ok {
		s.buf = b
		return
	}
	b = gp.Machine().AppendTimersKey(b)
	b = strconv.AppendInt(b, int64(len(s.written)), 10)
	for _, obj := range s.written {
		if b, ok = runtime.AppendStateKey(b, obj); !ok {
			s.buf = b
			return
		}
	}
	s.buf = b
	if j, found := s.seen[string(b)]; found {
		s.next = j
		return
	}
	s.seen[string(b)] = i
}

// chose records the representative of the point just asked.
func (s *stretch) chose() {
	if s.on {
		s.reps = push(s.reps, int32(s.next))
		s.next = -1
	}
}

// moveMarks moves each mark of a point to the first point of its state.
func (s *stretch) moveMarks(marks []bool) {
	for j, r := range s.reps {
		if j < len(marks) && r >= 0 && marks[j] {
			marks[r], marks[j] = true, false
		}
	}
}
