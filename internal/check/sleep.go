package check

// Sleep sets over the walk's choice points.
//
// DPOR (dpor.go) says where the walk must try a switch; it does not say
// that a switch is useless. Godefroid's sleep sets do ("Partial-Order
// Methods for the Verification of Concurrent Systems", LNCS 1032, 1996),
// and source-set DPOR keeps them beside its backtrack sets (Abdulla,
// Aronis, Jonsson and Sagonas, "Optimal Dynamic Partial Order
// Reduction", POPL 2014, Algorithm 1): once every schedule that starts
// at a state E with p's step has been explored, p is put to sleep for the
// siblings, Explore(E.q, {r ∈ Sleep ∪ {p} | E ⊨ q ◇ r}); a step
// dependent with p's wakes p, and a schedule in which p takes its step
// still asleep is a reordering of independent steps of one already
// explored, so nothing below it is tried.
//
// Here the tree is binary at a preempt point: 0 lets the running
// goroutine g go on, 1 switches away from it. The walk goes depth first
// and tries 0 before 1, so when it takes the 1 of point i, every schedule
// below the 0 that DPOR asks for has run, and the last run holds g's step
// after i: the accesses from i to g's next choice point or switch (its
// span of the log). In the runs below the 1, g sleeps with that footprint
// from point i on, as do the sleepers of the points before i that were
// still asleep at i (the runs replay the same prefix, so they sleep and
// wake there as before). A step wakes each sleeper whose footprint it is
// dependent with (one object, one of the two writes, as in dpor.go).
// When a sleeper begins a step while asleep, the run is blocked there: it
// runs on (a run cannot be cut short), its outcome counts, but the walk
// tries no other answer at a choice point from there on. The other
// answers of a select are no sleepers: they are one goroutine's, and
// dependent.
//
// Three things make a step here less than the paper's transition, and the
// sleep test more cautious:
//
//   - Go's run queues are state that no footprint names. A switch does
//     not pick a goroutine, the queues do; a spawn or a wake-up puts one
//     in runnext and pushes another back, a park or an exit takes the
//     next, a switch puts the preempted one on the global queue. Two
//     steps on no common object, one of them a spawn, leave other queues
//     in their two orders, and another tree below. So every release,
//     park, exit and switch writes one object, runqKey, for the sleep
//     test only (not for races). TestSleepSetsNeedTheRunQueues shows a
//     trace lost without it.
//   - Objects have no names across runs (a run's channels are new
//     values); they are numbered in the order the run first touches them
//     (sleeper says how).
//   - DPOR marks the latest point of a race's window whose preemption runs
//     a mover, not the state just before the race's first step, where
//     source-set DPOR backtracks, and the running goroutine's step there
//     sleeps in the 1. At one P the goroutine a switch runs changes only
//     when the running one spawns or wakes one, so that step is the
//     race's first step, which the mover's step wakes, or a release,
//     which writes runqKey, written again when the movers hand the P
//     back. (The 61st schedule tick, when Go looks at the global queue
//     first, changes it without a release: a hole no test has met.) Where the engine cannot say who a
//     switch runs (more than one P, a timer due) the walk marks the whole
//     window, and makes no sleeper there: only a preempt point with a
//     known Alternative does.
//
// That argument is the walk's, not the paper's proof. A preemption bound
// also weakens it: the reordering that a blocked run stands for may need
// more preemptions than the bound allows below the 0 (Coons, Musuvathi
// and McKinley, OOPSLA 2013, on sleep sets and bounds). Soundness is
// measured, as for the bounded marks (TestDPORSound, here and in
// bench/goker).

import (
	"slices"

	"github.com/schedlab/schedlab/runtime"
)

// runqKey is Go's run queues as an object: a write by every release,
// park, exit and switch, for the sleep test.
type runqKey struct{}

// ignoreRunQueues, in a test, leaves runqKey out of the sleep test: the
// unsound sleep sets that TestSleepSetsNeedTheRunQueues catches.
var ignoreRunQueues = false

// A logged access is one access of a logged transition.
type logged struct {
	obj   int32 // the object's number (tracker.ids)
	write bool
}

// A sleeper is a goroutine asleep from a choice point: the walk has run
// every schedule it needs in which g took, at that point, the step of
// footprint fp, and runs those in which it did not.
//
// Objects are named across runs by the order in which the run first
// touched them: the runs below a point replay the same prefix, so an
// object touched before the point has one number in all of them. One
// that the step touched first has no name in another run (a mutex made
// before the point and first locked in the step has another number
// there), so the step's first-touched objects are one: fresh, dependent
// with any object that a run first touches after the point.
type sleeper struct {
	at     int            // the choice point, from 0, whose 1 it sleeps under
	g      int64          // the goroutine
	fp     map[int32]bool // the objects touched before the point that its step touched, true for a write
	known  int32          // the objects numbered when the point was asked
	fresh  bool           // its step touched an object first
	freshW bool           // and wrote one
}

// endSpan closes the logged transition in progress, if any.
func (t *tracker) endSpan() {
	if t.logging {
		t.spans[len(t.spans)-1][1] = int32(len(t.log))
		t.logging = false
	}
}

// sleeperAt returns goroutine g asleep from choice point i with the step
// that i began, false if i began none (goroutine 0 was running).
func (t *tracker) sleeperAt(i int, g int64) (sleeper, bool) {
	if i >= len(t.spans) || t.spans[i][0] < 0 {
		return sleeper{}, false
	}
	lo, hi := t.spans[i][0], t.spans[i][1]
	if hi < lo {
		hi = int32(len(t.log))
	}
	z := sleeper{at: i, g: g, fp: map[int32]bool{}, known: t.known[i]}
	for _, l := range t.log[lo:hi] {
		if l.obj >= z.known {
			z.fresh = true
			z.freshW = z.freshW || l.write
			continue
		}
		z.fp[l.obj] = z.fp[l.obj] || l.write
	}
	return z, true
}

// sleep gives the run its sleepers, sorted by their points, and makes it
// keep the log, with room for about that many choice points.
func (t *tracker) sleep(s []sleeper, room int) {
	t.sleeping = true
	t.spans = emptied(t.spans, room)
	t.known = emptied(t.known, room)
	t.log = emptied(t.log, 4*room)
	t.sleepers = s
	t.wokeAt = slices.Grow(t.wokeAt[:0], len(s))[:len(s)]
	for i := range t.wokeAt {
		t.wokeAt[i] = -1
	}
	t.slept = 0
}

// fallAsleep puts to sleep the sleepers of the choice point just asked.
func (t *tracker) fallAsleep() {
	for t.slept < len(t.sleepers) && t.sleepers[t.slept].at < t.asked {
		t.slept++
	}
}

// asleep returns the sleepers asleep now, as indices.
func (t *tracker) asleep(yield func(int) bool) {
	for i := range t.sleepers[:t.slept] {
		if t.wokeAt[i] < 0 && !yield(i) {
			return
		}
	}
}

// ran notes that goroutine g begins a transition: the run is blocked if
// g sleeps.
func (t *tracker) ran(g int64) {
	if !t.sleeping || t.blocked >= 0 {
		return
	}
	for i := range t.asleep {
		if t.sleepers[i].g == g {
			t.blocked = t.asked
			return
		}
	}
}

// sleepTouch logs an access of the transition in progress and wakes the
// sleepers it is dependent with.
func (t *tracker) sleepTouch(obj any, a runtime.Access) {
	if t.sleepWatches(obj) {
		t.sleepTouchID(t.id(obj), a == runtime.AccessWrite)
	}
}

// sleepWatches reports whether the sleep sets note an access of obj now.
func (t *tracker) sleepWatches(obj any) bool {
	return t.sleeping && !(ignoreRunQueues && obj == (runqKey{}))
}

// id returns the number of obj (tracker.ids), numbering it if it has none.
func (t *tracker) id(obj any) int32 {
	id, ok := t.ids[obj]
	if !ok {
		id = int32(len(t.ids))
		t.ids[obj] = id
	}
	return id
}

// sleepTouchID is sleepTouch of the object numbered id, a write if w.
func (t *tracker) sleepTouchID(id int32, w bool) {
	if t.logging {
		t.log = push(t.log, logged{id, w})
	}
	if t.blocked >= 0 {
		return
	}
	for i := range t.asleep {
		z := &t.sleepers[i]
		if id >= z.known {
			if z.fresh && (z.freshW || w) {
				t.wokeAt[i] = t.asked
			}
		} else if sw, ok := z.fp[id]; ok && (sw || w) {
			t.wokeAt[i] = t.asked
		}
	}
}

// sleepersAt returns the sleepers of the runs below the 1 of choice point
// i, from the last run, which took its 0: those of its points before i
// still asleep at i, and its running goroutine with its step after i.
func (t *tracker) sleepersAt(points []Point, i int) []sleeper {
	var s []sleeper
	for j, z := range t.sleepers {
		if z.at < i && (t.wokeAt[j] < 0 || t.wokeAt[j] > i) {
			s = append(s, z)
		}
	}
	if p := points[i]; p.Kind == runtime.ChoicePreempt && p.Alt != 0 {
		if z, ok := t.sleeperAt(i, p.G); ok {
			s = append(s, z)
		}
	}
	return s
}

// sleepSets reports whether a walk of cfg keeps sleep sets: with DPOR,
// unless every transition writes the plain values (heap), when every
// goroutine's step wakes every sleeper and the log is only a cost.
func sleepSets(cfg Config, heap bool) bool {
	return cfg.Reduction == DPOR && !heap
}
