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
	"fmt"
	"strconv"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// ignoreLocals, in a test, leaves the goroutine's locals out of the keys:
// a loop's counter is then not seen, and turns that differ are merged,
// which TestStutterNeedsTheLocals catches.
var ignoreLocals = false

// noCycles, in a test, keys every preempt point in full, never from the
// cycle (stretch.predict): the walk must be the same either way.
var noCycles = false

// checkCycles, in a test, keys in full also the points that the cycle
// keys; cycleChecked counts them, and cycleMismatch says where the two
// first differed.
var (
	checkCycles   = false
	cycleChecked  = 0
	cycleMismatch = ""
)

// A stretch is the stutter state of a tracker: the keys of the preempt
// points of the stretch in progress.
//
// Keying a point costs more than the loop's turn it stands for: it writes
// out the goroutine's frames and locals and looks them up. A loop's turns
// need not be keyed one by one, though. Once point i of a stretch has the
// key of an earlier point j, the state at i is the state at j but for the
// clock, so from i on the goroutine does again what it did from j, step
// for step, and point i+k has the state of point j + k mod (i-j): the same
// representative, without a key (predict). That holds while what the key
// compares and the run does not decide by itself is as it was at j: the
// timers (how many, how many due), which the clock moves, and the answers
// to the choice points, which the schedule may give otherwise; and while
// the points come as they came from j, of the same kinds (a sysmon tick
// due at a safe point adds an interleave point). The stretch checks those
// at each point and keys in full again where one differs. TestCycles
// keys every point both ways on kubernetes11298.
type stretch struct {
	on      bool
	g       int64          // the goroutine of the stretch
	written []any          // the engine objects the stretch wrote, in the order of their first write
	wrote   map[any]bool   // the same, as a set
	seen    map[string]int // the first preempt point of each key
	buf     []byte
	reps    []int32 // by choice point: the earlier point of its state in its stretch, -1 if none

	asked  int       // choice points asked so far in the run
	base   int       // the choice point pts[0] is: the stretch's first
	pts    []stPoint // the stretch's points, from base
	keyed  bool      // the point about to be asked is a preempt point
	canon  int32     // its first point of its state (itself if first), -1 if none or no key
	cyc    bool      // the stretch repeats from a point on (predict)
	from   int       // the earlier point of the repeated state
	at     int       // the later one, where the stretch came back to it
	timers []byte    // the timers' key at the later one
	tbuf   []byte
}

// An stPoint is what a stretch keeps of one of its points to repeat it.
type stPoint struct {
	canon  int32 // the first point of its state, itself if first; -1 if it has no key
	kind   runtime.ChoiceKind
	keyed  bool // a preempt point, keyed
	answer int32
}

// breakStretch ends the stretch in progress: what follows is compared
// with nothing before it.
func (s *stretch) breakStretch() {
	if !s.on {
		return
	}
	s.base, s.pts, s.cyc = s.asked, s.pts[:0], false
	if len(s.seen) == 0 && len(s.written) == 0 {
		return
	}
	s.written = s.written[:0]
	clear(s.wrote)
	clear(s.seen)
}

// repeats returns the earlier point of the stretch that point i repeats,
// in the cycle from s.from to s.at.
func (s *stretch) repeats(i int) int {
	return s.from + (i-s.at)%(s.at-s.from)
}

// predict returns the representative of preempt point i from the cycle,
// and whether the cycle still holds there: the earlier point is a preempt
// point and the timers are as they were.
func (s *stretch) predict(gp *runtime.G, i int) (int32, bool) {
	p := s.pts[s.repeats(i)-s.base]
	if !p.keyed {
		return 0, false
	}
	s.tbuf = gp.Machine().AppendTimersKey(s.tbuf[:0])
	if string(s.tbuf) != string(s.timers) {
		return 0, false
	}
	return p.canon, true
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
// changes state ends the stretch. A builtin call comes to touchedCall
// instead (tracker.Touch).
func (s *stretch) touched(g int64, obj any, a runtime.Access) {
	if !s.on {
		return
	}
	if g == 0 {
		s.breakStretch()
		return
	}
	switch obj.(type) {
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

// touchedCall notes a builtin call of the transition in progress: one
// that touches anything beyond the objects the engine names, or draws
// from the PRNG, ends the stretch.
func (s *stretch) touchedCall(g int64, c callInfo) {
	if !s.on {
		return
	}
	if g == 0 || !c.precise || c.extra != nil || c.rand {
		s.breakStretch()
	}
}

// key sets the representative of the preempt point about to be asked,
// index i, of goroutine gp: from the cycle, if the stretch is in one,
// else from its key.
func (s *stretch) key(gp *runtime.G, i int) {
	if !s.on {
		return
	}
	s.keyed, s.canon = true, -1
	if s.cyc && !noCycles {
		if c, ok := s.predict(gp, i); ok {
			s.canon = c
			if checkCycles {
				s.checkCycle(gp, i)
				cycleChecked++
			}
			return
		}
	}
	s.cyc = false
	s.fullKey(gp, i)
}

// fullKey keys preempt point i in full, and starts a cycle where it
// repeats an earlier point's key.
func (s *stretch) fullKey(gp *runtime.G, i int) {
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
	t := len(b)
	b = gp.Machine().AppendTimersKey(b)
	timers := b[t:]
	b = strconv.AppendInt(b, int64(len(s.written)), 10)
	for _, obj := range s.written {
		if b, ok = runtime.AppendStateKey(b, obj); !ok {
			s.buf = b
			return
		}
	}
	s.buf = b
	if j, found := s.seen[string(b)]; found {
		s.canon = int32(j)
		s.cyc, s.from, s.at = true, j, i
		s.timers = append(s.timers[:0], timers...)
		return
	}
	s.seen[string(b)] = i
	s.canon = int32(i)
}

// checkCycle keys preempt point i in full, as it was just keyed from the
// cycle, and records in cycleMismatch where the two first differ
// (checkCycles).
func (s *stretch) checkCycle(gp *runtime.G, i int) {
	canon := s.canon
	from, at, timers := s.from, s.at, append([]byte(nil), s.timers...)
	s.fullKey(gp, i)
	if s.canon != canon && cycleMismatch == "" {
		cycleMismatch = fmt.Sprintf("stutter: point %d of G%d from the cycle %d-%d: first point of its state %d, in full %d", i, s.g, from, at, canon, s.canon)
	}
	s.cyc, s.from, s.at, s.timers = true, from, at, timers
}

// chose records the representative of the point just asked, of kind k,
// answered a, and ends the cycle where the point is not as the one it
// repeats.
func (s *stretch) chose(k runtime.ChoiceKind, a int) {
	if !s.on {
		return
	}
	rep := int32(-1) // the earlier point of its state, if it is not the first
	if s.canon >= 0 && int(s.canon) < s.asked {
		rep = s.canon
	}
	s.reps = push(s.reps, rep)
	p := stPoint{canon: s.canon, kind: k, keyed: s.keyed, answer: int32(a)}
	if s.cyc {
		if q := s.pts[s.repeats(s.asked)-s.base]; q.kind != p.kind || q.keyed != p.keyed || q.answer != p.answer {
			s.cyc = false
		}
	}
	s.pts = push(s.pts, p)
	s.asked++
	s.keyed, s.canon = false, -1
}

// moveMarks moves each mark of a point to the first point of its state.
func (s *stretch) moveMarks(marks []bool) {
	for j, r := range s.reps {
		if j < len(marks) && r >= 0 && marks[j] {
			marks[r], marks[j] = true, false
		}
	}
}
