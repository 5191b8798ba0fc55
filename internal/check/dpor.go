package check

// Dynamic partial-order reduction over the walk's choice points.
//
// The walk's tree (check.go) branches at the engine's choice points. A
// preempt or interleave point is binary: 0 lets the running goroutine go
// on, 1 switches away from it, and Go's own rules then decide who runs
// (runnext, the local ring, the global queue). The naive walk tries the 1
// of every point. Two schedules that differ only in the order of
// independent transitions end in the same state, so the walk need try the
// 1 of a point only when some schedule below its 0 has two dependent
// transitions of two goroutines, not ordered by anything else (a race),
// whose order a switch at that point could reverse. That is the shape of
// Flanagan and Godefroid's DPOR (POPL 2005), whose backtrack set at a
// state is here the one bit "try the switch".
//
// The footprints come from the engine (runtime.Tracker): each transition,
// what one goroutine does between two choice points or switches, says
// which objects it read or wrote. A transition of goroutine 0 is what
// runs outside the goroutines: a timer firing, the world. Happens-before
// is tracked with vector clocks over the transitions: program order,
// dependent accesses, and the release-acquire edges of a spawn or a
// wake-up and the goroutine's next run.
//
// For a race of T_k (goroutine q) before T_j (goroutine p), the window is
// the choice points after the last transition before T_k that happens
// before T_j's start, and before T_k: a switch at one of them can let p's
// next step come before T_k, with the steps of other goroutines between
// T_k and T_j that happen before it (the movers: p and their goroutines).
// The walk marks the latest point of the window at which a preemption
// would run a mover next (Tracker.Alternative tells it who would run);
// when there is none, or a goroutine 0 transition is part of the race, it
// marks every point of the window. A bound can make a reversal need more
// preemptions than the schedule it reverses (Coons, Musuvathi and
// McKinley, "Bounded Partial-Order Reduction", OOPSLA 2013); with a bound
// the walk also marks the earliest such point, the one with the fewest
// preemptions before it. That is a heuristic, not their algorithm: with a
// bound, the reduction's soundness is measured (TestDPORSound), not
// proved.
//
// The end of the run is an access too: the last transition (main's
// return, the panic, the last goroutine to block) races with the last
// transition of every goroutine not ordered before it, and with the next
// step of every goroutine still runnable then, which never ran: that is
// how a goroutine that main's return cut short is reordered before it.

import (
	"slices"
	"strings"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// A Reduction says which schedules a walk may leave out.
type Reduction uint8

// The reductions.
const (
	// NoReduction walks every schedule up to the bound: the naive
	// enumeration.
	NoReduction Reduction = iota
	// DPOR walks, of the schedules that differ only in the order of
	// independent transitions, at least one (dpor.go).
	DPOR
)

func (r Reduction) String() string {
	if r == DPOR {
		return "dpor"
	}
	return "none"
}

// Keys of what the engine does not name: the output, the PRNG, the plain
// values of a program that shares them, and everything (a builtin call
// the tracker does not know).
type (
	outputKey struct{}
	randKey   struct{}
	heapKey   struct{}
	globalKey struct{}
)

// preciseCalls are the builtin calls whose shared effects the engine
// records itself (or that have none): a call not in the list touches
// everything. Each value says what the call touches besides.
var preciseCalls = map[lang.Call]any{
	"assert": nil, "chan": nil, "cond": nil, "mutex": nil, "rwmutex": nil,
	"waitgroup": nil, "semaphore": nil, "nil_chan": nil, "current": nil,
	"param": nil, "sprintf": nil, "struct": nil, "is_error": nil, "work": nil,
	"spawn": nil, "gosched": nil, "sleep": nil, "after": nil, "select": nil,
	"park": nil, "ready": nil,
	"print": outputKey{}, "println": outputKey{}, "printf": outputKey{},
	"chan.send": nil, "chan.recv": nil, "chan.recv_ok": nil, "chan.close": nil,
	"chan.on_recv": nil, "chan.on_send": nil,
	"mutex.lock": nil, "mutex.unlock": nil,
	"rwmutex.lock": nil, "rwmutex.unlock": nil, "rwmutex.rlock": nil, "rwmutex.runlock": nil,
	"waitgroup.add": nil, "waitgroup.done": nil, "waitgroup.wait": nil,
	"cond.wait": nil, "cond.signal": nil, "cond.broadcast": nil,
	"semaphore.acquire": nil, "semaphore.release": nil, "semaphore.try_acquire": nil,
}

// breakChannels, in a test, makes every channel operation independent of
// every other: a wrong dependence that the soundness tests must catch.
var breakChannels = false

// An epoch names a transition: its slot (a goroutine, or one goroutine 0
// transition) and its place in the slot, from 1.
type epoch struct {
	slot int32
	seq  int32
}

// A vclock is a vector clock over slots; it is never changed once shared.
type vclock []int32

// join returns the pointwise maximum of a and b, a itself when b adds
// nothing.
func (a vclock) join(b vclock) vclock {
	grow := false
	if len(b) > len(a) {
		grow = true
	} else {
		for i, x := range b {
			if x > a[i] {
				grow = true
				break
			}
		}
	}
	if !grow {
		return a
	}
	c := make(vclock, max(len(a), len(b)))
	copy(c, a)
	for i, x := range b {
		c[i] = max(c[i], x)
	}
	return c
}

// has reports whether the transition e happens before a point with clock a.
func (a vclock) has(e epoch) bool { return int(e.slot) < len(a) && a[e.slot] >= e.seq }

// An access is a transition's access of an object, kept for the next.
type access struct {
	e  epoch
	vc vclock // the transition's clock at the access
}

// An object is what the tracker keeps of a shared object: its last write
// (write.vc is nil if there is none) and the reads since, one per slot.
type object struct {
	write access
	reads []access
	id    int32 // its number for the sleep sets (tracker.ids) plus one, 0 until numbered
}

// A race is two dependent transitions of two goroutines in a run, not
// ordered by happens-before, and the choice points a switch at which
// could reverse them: from lo to hi, hi not included. movers are the
// goroutines one of which is to run first there: the second's, and those
// of the steps between the two that go before the first with it; world
// says goroutine 0 runs one of them.
type race struct {
	lo, hi int
	movers []int64
	world  bool
}

// A slot is a goroutine's, or one goroutine 0 transition's, place in the
// clocks.
type slot struct {
	g      int64
	vc     vclock  // the clock of its latest transition
	starts []int32 // the choice points asked before each of its transitions
	order  []int   // the run's order of each of its transitions
	parked bool    // it blocked in its latest transition and was not woken
	exited bool
	system bool   // one of the runtime's own goroutines (tracker.System)
	woken  vclock // the release clock of a wake-up not yet acquired, or nil
}

// A tracker records the footprints of one run's transitions
// (runtime.Tracker) and finds the run's races as it goes.
type tracker struct {
	heap    bool // every goroutine transition writes the plain values
	asked   int  // choice points asked so far
	slots   []*slot
	byG     map[int64]int32
	objects map[any]*object
	races   []race

	g        int64     // the goroutine of the transition in progress
	cur      int32     // its slot, -1 for a goroutine 0 transition not begun
	start    vclock    // its clock at its start
	vc       vclock    // its clock now
	order    int       // transitions begun so far
	lastSlot int32     // the slot of the last goroutine transition
	nextAlt  int64     // the last Alternative, for the next choice point
	system   []int64   // the runtime's own goroutines (System), for their slots when they first run
	slab     []int32   // what is left of the slab newClock cuts clocks from
	slabs    [][]int32 // the slabs cut from, this run's first, then those of earlier runs to reuse
	slabsCut int       // how many of slabs this run has cut from
	marked   []bool    // the buffers of marks
	diff     []int
	global   *object // objects[globalKey{}], once made (readGlobals)
	globalID int32   // ids[globalKey{}], -1 until numbered

	// Sleep sets (sleep.go), kept only when sleeping.
	sleeping bool
	ids      map[any]int32 // the objects touched, numbered in order
	known    []int32       // by choice point: len(ids) when it was asked
	log      []logged      // the accesses of the transitions begun at a choice point
	spans    [][2]int32    // by choice point: the span of log of the transition it began, {-1, -1} if none
	logging  bool          // the transition in progress is logged
	sleepers []sleeper     // the run's sleepers, by the point they sleep from
	slept    int           // sleepers[:slept] have fallen asleep (and may have woken)
	wokeAt   []int         // by sleeper: the choice points asked when it woke, -1 if it has not
	blocked  int           // the choice points asked when a sleeper ran asleep; -1 if none did

	st    stretch   // the stutter keys (stutter.go), kept only when st.on
	calls callCache // what the walk knows of the calls met last
}

func newTracker(heap bool) *tracker {
	t := &tracker{heap: heap, byG: map[int64]int32{}, objects: map[any]*object{}, ids: map[any]int32{}}
	t.reset()
	return t
}

// reset makes t a new tracker for the walk's next run, as newTracker
// would, but with the buffers of the runs before: a walk's runs are
// alike, and a run of millions of choice points would otherwise allocate
// (and clear) its slices, slots and clocks anew.
func (t *tracker) reset() {
	clear(t.byG)
	clear(t.objects)
	clear(t.ids)
	clear(t.st.wrote)
	clear(t.st.seen)
	*t = tracker{
		heap: t.heap, slots: t.slots[:0], byG: t.byG, objects: t.objects, races: t.races[:0],
		cur: -1, lastSlot: -1, system: t.system[:0], slabs: t.slabs, marked: t.marked, diff: t.diff,
		ids: t.ids, globalID: -1, known: t.known[:0], log: t.log[:0], spans: t.spans[:0], wokeAt: t.wokeAt[:0], blocked: -1,
		st: stretch{
			written: t.st.written[:0], wrote: t.st.wrote, seen: t.st.seen, buf: t.st.buf[:0],
			reps: t.st.reps[:0], pts: t.st.pts[:0], canon: -1,
			timers: t.st.timers[:0], tbuf: t.st.tbuf[:0],
		},
	}
}

// stutter makes the tracker key the preempt points' states (stutter.go).
func (t *tracker) stutter(room int) {
	t.st.on = true
	t.st.reps = emptied(t.st.reps, room)
	if t.st.wrote == nil {
		t.st.wrote = map[any]bool{}
		t.st.seen = map[string]int{}
	}
}

// Running begins a transition of g (0: goroutine 0, begun at its first
// access).
func (t *tracker) Running(g int64) {
	t.endSpan()
	t.st.running(g)
	t.g, t.cur = g, -1
	if g != 0 {
		t.begin()
	}
}

// begin starts the transition of t.g in its slot.
func (t *tracker) begin() {
	var s *slot
	if t.g != 0 {
		i := t.lastSlot // a goroutine goes on in a new transition at each choice point
		if i < 0 || t.slots[i].g != t.g {
			var ok bool
			if i, ok = t.byG[t.g]; !ok {
				i = t.newSlot(t.g)
				t.byG[t.g] = i
			}
		}
		t.cur = i
		s = t.slots[i]
		t.lastSlot = i
		t.ran(t.g)
	} else {
		t.cur = t.newSlot(0)
		s = t.slots[t.cur]
	}
	seq := int32(len(s.starts) + 1)
	s.starts = push(s.starts, int32(t.asked))
	s.order = push(s.order, t.order)
	t.order++
	vc := s.vc
	if s.woken != nil {
		vc = vc.join(s.woken)
		s.woken = nil
	}
	s.parked = false
	c := t.newClock(max(len(vc), int(t.cur)+1))
	copy(c, vc)
	c[t.cur] = seq
	t.start, t.vc = c, c
	s.vc = c
	if t.g != 0 && !s.system {
		t.readGlobals()
		if t.heap {
			t.touch(heapKey{}, runtime.AccessWrite)
		}
	}
}

// newClock returns a zero clock of n slots, cut from t's slab: a run
// begins a transition at every choice point, millions in a loop that
// never blocks, and one allocation each would cost more than the clocks.
// The clock's capacity is n, so that nothing appended to it reaches the
// next one; clocks are never changed once shared (vclock).
func (t *tracker) newClock(n int) vclock {
	if len(t.slab) < n {
		t.slab = t.nextSlab(n)
	}
	c := vclock(t.slab[:n:n])
	t.slab = t.slab[n:]
	return c
}

// clockSlab is the int32s of a slab of clocks.
const clockSlab = 1 << 16

// nextSlab returns a zero slab of at least n int32s: the next of those an
// earlier run cut from, whose clocks no one holds once the run is done, or
// a new one.
func (t *tracker) nextSlab(n int) []int32 {
	if n > clockSlab {
		return make([]int32, n)
	}
	if t.slabsCut == len(t.slabs) {
		t.slabs = append(t.slabs, make([]int32, clockSlab))
	} else {
		clear(t.slabs[t.slabsCut])
	}
	t.slabsCut++
	return t.slabs[t.slabsCut-1]
}

// push appends x to s, doubling a full s where append grows a long slice
// by a quarter: a run of millions of choice points would copy its longest
// slices about five times over.
func push[S ~[]E, E any](s S, x E) S {
	if len(s) == cap(s) && len(s) > 0 {
		// make, not slices.Grow, which clears the room it adds: make's
		// comes clear when it is memory fresh from the OS, and is not
		// touched before it is used.
		s = append(make(S, 0, 2*len(s)), s...)
	}
	return append(s, x)
}

// emptied returns s with length 0 and room for n elements: s itself if it
// has the room, else a new slice.
func emptied[S ~[]E, E any](s S, n int) S {
	if cap(s) < n {
		return make(S, 0, n)
	}
	return s[:0]
}

// chose ends the transition in progress at a choice point; the goroutine
// goes on in a new one, or another runs (Running).
func (t *tracker) chose() {
	t.nextAlt = 0
	if t.sleeping {
		t.endSpan()
		t.spans = push(t.spans, [2]int32{-1, -1})
		t.known = push(t.known, int32(len(t.ids)))
		if t.g != 0 {
			t.spans[t.asked][0] = int32(len(t.log))
			t.logging = true
		}
	}
	t.asked++
	if t.g != 0 {
		t.begin()
	} else {
		t.cur = -1
	}
	if t.sleeping {
		t.fallAsleep()
	}
}

// newSlot adds a slot for goroutine g (0: one goroutine 0 transition) to
// t.slots and returns its index. It reuses the slot of an earlier run at
// that index, if any, with its starts' and order's room.
func (t *tracker) newSlot(g int64) int32 {
	i := len(t.slots)
	t.slots = slices.Grow(t.slots, 1)[:i+1]
	s := t.slots[i]
	if s == nil {
		s = &slot{}
		t.slots[i] = s
	}
	*s = slot{g: g, starts: s.starts[:0], order: s.order[:0], system: g != 0 && slices.Contains(t.system, g)}
	return int32(i)
}

// System records that g is one of the runtime's own goroutines
// (runtime.SystemTracker): its transitions neither read the program's
// globals nor write its plain values, and its last one is no race with
// the run's end. It parks at once, and nothing of the program's waits
// for it.
func (t *tracker) System(g int64) {
	t.system = append(t.system, g)
	if i, ok := t.byG[g]; ok {
		t.slots[i].system = true // made by the spawn's release, before this call
	}
}

// Alternative records who would run if the next point preempts.
func (t *tracker) Alternative(g int64) { t.nextAlt = g }

// Preempting keys the state at the preempt point about to be asked
// (stutter.go).
func (t *tracker) Preempting(gp *runtime.G) { t.st.key(gp, t.asked) }

// Touch records an access of the transition in progress.
func (t *tracker) Touch(obj any, a runtime.Access) {
	if k, ok := obj.(lang.Call); ok {
		t.touchCall(t.calls.info(k))
		return
	}
	t.st.touched(t.g, obj, a)
	if t.cur < 0 {
		t.begin()
	}
	switch k := obj.(type) {
	case runtime.GKey:
		t.touchG(int64(k), a)
		return
	case *runtime.Chan:
		if breakChannels {
			return
		}
	}
	t.touch(obj, a)
}

// touchCall records a builtin call of the transition in progress: what
// it touches besides the objects the engine names.
func (t *tracker) touchCall(c callInfo) {
	t.st.touchedCall(t.g, c)
	if t.cur < 0 {
		t.begin()
	}
	switch {
	case !c.precise:
		t.touch(globalKey{}, runtime.AccessWrite)
	case c.extra != nil:
		t.touch(c.extra, runtime.AccessWrite)
	}
	if c.rand {
		t.touch(randKey{}, runtime.AccessWrite)
	}
}

// A callInfo is what the walk knows of a builtin call.
type callInfo struct {
	extra   any  // what it touches besides (preciseCalls)
	precise bool // it is one of preciseCalls: if not, it touches everything
	rand    bool // it draws from the PRNG
}

// infoOf returns what the walk knows of call k.
func infoOf(k lang.Call) callInfo {
	extra, ok := preciseCalls[k]
	return callInfo{extra: extra, precise: ok, rand: k == "rand" || strings.HasPrefix(string(k), "rand.")}
}

// A callCache answers infoOf for the calls met last: a loop calls a few
// builtins over and over, by the same Call each time (lang makes a
// builtin's once a run), and two equal strings at one address compare
// without reading them, where the map hashes them.
type callCache struct {
	keys  [8]lang.Call
	infos [8]callInfo
	n     int // entries filled
	next  int // the entry to replace next
}

// info returns infoOf(k).
func (c *callCache) info(k lang.Call) callInfo {
	for i := range c.n {
		if c.keys[i] == k {
			return c.infos[i]
		}
	}
	ci := infoOf(k)
	c.keys[c.next], c.infos[c.next] = k, ci
	c.next = (c.next + 1) % len(c.keys)
	c.n = min(c.n+1, len(c.keys))
	return ci
}

// touchG records what the transition does to goroutine g.
func (t *tracker) touchG(g int64, a runtime.Access) {
	i, ok := t.byG[g]
	if !ok {
		i = t.newSlot(g)
		t.byG[g] = i
	}
	s := t.slots[i]
	switch a {
	case runtime.AccessRelease:
		t.sleepTouch(runqKey{}, runtime.AccessWrite)
		s.woken = s.woken.join(t.vc)
		s.parked = false
	case runtime.AccessPark:
		t.sleepTouch(runqKey{}, runtime.AccessWrite)
		s.parked = true
	case runtime.AccessExit:
		t.sleepTouch(runqKey{}, runtime.AccessWrite)
		s.exited = true
	}
}

// touch records a read or a write of obj, finds the races it makes with
// earlier accesses, and orders the transition after them.
func (t *tracker) touch(obj any, a runtime.Access) {
	o := t.object(obj)
	if t.sleepWatches(obj) {
		// sleepTouch, with the number kept on the object: one map
		// look-up, not two.
		if o.id == 0 {
			o.id = t.id(obj) + 1
		}
		t.sleepTouchID(o.id-1, a == runtime.AccessWrite)
	}
	t.access(o, a)
}

// readGlobals is touch(globalKey{}, runtime.AccessRead), which every
// goroutine transition does: with the object and its number kept from
// the first time, not looked up in two maps each time.
func (t *tracker) readGlobals() {
	if t.global == nil {
		t.global = t.object(globalKey{})
	}
	if t.sleeping {
		if t.globalID < 0 {
			t.globalID = t.id(globalKey{})
		}
		t.sleepTouchID(t.globalID, false)
	}
	t.access(t.global, runtime.AccessRead)
}

// object returns what t keeps of obj, made on first use.
func (t *tracker) object(obj any) *object {
	o := t.objects[obj]
	if o == nil {
		o = &object{}
		t.objects[obj] = o
	}
	return o
}

// access records a read or a write of o, finds the races it makes with
// earlier accesses, and orders the transition after them.
func (t *tracker) access(o *object, a runtime.Access) {
	me := epoch{t.cur, t.start[t.cur]}
	if w := &o.write; w.vc != nil && w.e.slot != me.slot {
		t.conflict(w)
	}
	if a == runtime.AccessWrite {
		for i := range o.reads {
			if o.reads[i].e.slot != me.slot {
				t.conflict(&o.reads[i])
			}
		}
		o.write = access{e: me, vc: t.vc}
		o.reads = o.reads[:0]
		return
	}
	for i := range o.reads {
		if o.reads[i].e.slot == me.slot {
			o.reads[i] = access{e: me, vc: t.vc}
			return
		}
	}
	o.reads = append(o.reads, access{e: me, vc: t.vc})
}

// conflict deals with a dependent earlier access k: a race unless k
// happens before the transition's start; then k happens before it.
func (t *tracker) conflict(k *access) {
	if !t.start.has(k.e) {
		t.raced(t.slots[k.e.slot].g == 0 || t.g == 0, k.e, t.start, t.cur, t.g)
	}
	t.vc = t.vc.join(k.vc)
	t.slots[t.cur].vc = t.vc
}

// raced records a race of the transition k (slot, seq) with a later
// step of goroutine p whose clock at its start is pre; self is the slot of
// that step if pre counts it, else -1. The window starts after the last
// transition before k that happens before the step; the goroutines whose
// transitions after k happen before the step (independent of k, or k
// would happen before the step) move before k with it, and a switch to
// any of them, or to p, starts the reversal.
func (t *tracker) raced(world bool, k epoch, pre vclock, self int32, p int64) {
	ks := t.slots[k.slot]
	hi := int(ks.starts[k.seq-1])
	kAt := ks.order[k.seq-1]
	lo := 0
	movers := []int64{p}
	for i, seq := range pre {
		if int32(i) == self {
			seq--
		}
		if seq <= 0 || i >= len(t.slots) {
			continue
		}
		s := t.slots[i]
		// The latest of its transitions up to seq that ran before k.
		j, _ := slices.BinarySearch(s.order[:seq], kAt)
		if j > 0 {
			lo = max(lo, int(s.starts[j-1]))
		}
		if j < int(seq) {
			if s.g == 0 {
				world = true
			} else if !slices.Contains(movers, s.g) {
				movers = append(movers, s.g)
			}
		}
	}
	if lo < hi {
		t.races = append(t.races, race{lo: lo, hi: hi, movers: movers, world: world})
	}
}

// finish adds the races of the run's end: its last goroutine transition
// against the last transition of every other goroutine not ordered before
// it, and against the next step of every goroutine still runnable.
func (t *tracker) finish() {
	t.endSpan()
	if t.lastSlot < 0 {
		return
	}
	end := t.slots[t.lastSlot]
	endSeq := int32(len(end.starts))
	endAt := end.order[endSeq-1]
	endVC := end.vc
	for i, s := range t.slots {
		if int32(i) == t.lastSlot || s.g == 0 || s.exited || s.system {
			continue
		}
		if n := len(s.starts); n > 0 && !endVC.has(epoch{int32(i), int32(n)}) {
			if s.order[n-1] < endAt {
				// s's last step, then the end: the end first.
				t.raced(false, epoch{int32(i), int32(n)}, endVC, t.lastSlot, end.g)
			} else {
				// The end, then s's last step: that step first.
				pre := slices.Clone(s.vc)
				pre[i] = int32(n - 1)
				t.raced(false, epoch{t.lastSlot, endSeq}, pre, -1, s.g)
			}
		}
		if !s.parked {
			// Runnable at the end: its next step before the end.
			t.raced(false, epoch{t.lastSlot, endSeq}, s.vc.join(s.woken), -1, s.g)
		}
	}
}

// marks returns, for each of the run's choice points, whether the walk is
// to try switching there, from the run's races: the latest point of a
// race's window at which a preemption would run one of its movers next,
// and with a bound also the earliest, whose prefix has the fewest
// preemptions; when there is none, or goroutine 0 is part of the race,
// every point of the window. The slice is t's, until its next run.
func (t *tracker) marks(points []Point, bounded bool) []bool {
	n := len(points)
	t.diff = slices.Grow(t.diff[:0], n+1)[:n+1]
	t.marked = slices.Grow(t.marked[:0], n)[:n]
	diff, mark := t.diff, t.marked
	clear(diff)
	clear(mark)
	for _, r := range t.races {
		hi := min(r.hi, n)
		if r.lo >= hi {
			continue
		}
		if !r.world {
			first, last := -1, -1
			for i := r.lo; i < hi; i++ {
				if p := points[i]; p.Kind == runtime.ChoicePreempt && p.Answer == 0 && p.Alt != 0 && slices.Contains(r.movers, p.Alt) {
					if first < 0 {
						first = i
					}
					last = i
				}
			}
			if last >= 0 {
				mark[last] = true
				if bounded {
					mark[first] = true
				}
				continue
			}
		}
		diff[r.lo]++
		diff[hi]--
	}
	run := 0
	for i := range n {
		run += diff[i]
		mark[i] = mark[i] || run > 0
	}
	return mark
}
