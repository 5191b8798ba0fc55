// Goroutine leak detection, as Go 1.26 does it.
//
// Go 1.26's garbage collector can find leaked goroutines (mgc.go
// findGoroutineLeaks, state _Gleaked, pprof profile "goroutineleak"): it
// marks the heap from the roots and the stacks of the goroutines that can
// still run only, then keeps adding the stack of any blocked goroutine whose
// channel, mutex or wait group was reached, until nothing changes. A
// goroutine still blocked after that waits on an object no running code can
// ever touch again: it is leaked.
//
// schedlab does the same by walking Starlark values instead of the heap:
//
//   - Roots: the globals of every module (the main script's too, while its
//     top level runs), any extra roots the caller gives (the REPL's
//     session), and every after() channel whose timer has not fired yet
//     (the runtime's timer heaps hold those channels).
//   - A goroutine can still run unless it is blocked on a channel, a
//     select, a mutex, a wait group or park(): runnable, running, in a
//     syscall, asleep on a timer (sleep), or waiting for the host (the
//     REPL's G1). These are Go's leak candidates (waitReason.isChanWait,
//     isSyncWait); park() is this language's user-level gopark, so a
//     goroutine parked by it is a candidate too, waiting on its own task:
//     only a goroutine holding the task can ready it.
//   - The frames of a goroutine that can still run are walked: the
//     function of each frame (its free variables, its parameters' defaults
//     and its module's globals), the receiver of a builtin method, and
//     every local (thread.DebugFrame(i).Local(j), captured variables
//     included). A goroutine that has not started yet holds its function
//     and its arguments.
//   - Walking a value follows lists, tuples, dicts, sets, structs and
//     modules, functions (free variables, defaults, globals), bound
//     builtins (their receiver), select cases (their channel and value)
//     and channels (their buffered values). Reaching a channel, mutex or
//     wait group, or the task of a parked goroutine, makes the goroutines
//     blocked on it able to run: their frames are walked in turn, to a
//     fixpoint.
//   - A candidate never reached is leaked. A goroutine blocked in a
//     select with no cases waits on nothing and is always leaked.
//
// What the walk cannot see: the interpreter's operand stack. A value that
// exists only as an intermediate of an expression being evaluated by a
// goroutine that is preempted or blocked mid-expression (the channel in
// `[d.pop("c"), gosched()]` once d no longer holds it) is not a root. Such
// a goroutine is found leaked although it is not; every script in the
// examples and tests keeps what it shares in variables.

package lang

import (
	"reflect"
	"unsafe"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/schedlab/schedlab/runtime"
)

// FindLeaks returns the goroutines of the run on m that are blocked for good
// on an object that no goroutine that can still run can reach (see the file
// comment), in id order, without marking them. roots are more globals to
// treat as roots (a REPL session's). It must be called while no goroutine
// of m runs.
func FindLeaks(m *runtime.Machine, roots ...starlark.StringDict) []*runtime.G {
	r := runOf(m)
	if r == nil {
		return nil
	}
	return r.findLeaks(roots)
}

// MarkLeaks marks the goroutines FindLeaks returns as _Gleaked
// (Machine.MarkLeaked) and returns them. A leaked goroutine never runs
// again: call it only when the run is over (main returned, deadlock) or
// when nothing can reach those goroutines any more.
func MarkLeaks(m *runtime.Machine, roots ...starlark.StringDict) []*runtime.G {
	leaked := FindLeaks(m, roots...)
	for _, g := range leaked {
		m.MarkLeaked(g) // g is waiting: FindLeaks returns no other
	}
	return leaked
}

// runOf returns the run whose goroutines live on m, or nil.
func runOf(m *runtime.Machine) *run {
	for _, g := range m.Goroutines() {
		if gr := goroutineOfG(g); gr != nil {
			return gr.run
		}
	}
	return nil
}

// waitObjects says what goroutine g is blocked on: the objects whose being
// reached lets it run again, and whether it is a leak candidate at all.
// A goroutine that is not (it runs, sleeps, waits for the host) can still
// run.
func (r *run) waitObjects(g *runtime.G) (objs []any, candidate bool) {
	if g.Status() != runtime.Gwaiting {
		return nil, false
	}
	if on := g.WaitingOn(); len(on) > 0 {
		return on, true // a channel, select, mutex or wait group
	}
	// park's reason is the user's: look at the call it is blocked in
	// before trusting the wait reason.
	if gr := goroutineOfG(g); gr != nil && gr.thread.CallStackDepth() > 0 {
		if fr := gr.thread.DebugFrame(0); fr.Callable() == r.park {
			return []any{gr}, true // parked: its task can ready it
		}
	}
	switch g.WaitReason() {
	case runtime.WaitReasonSelectNoCases, runtime.WaitReasonChanReceiveNilChan, runtime.WaitReasonChanSendNilChan,
		runtime.WaitReasonSelect: // a select whose every case is on the nil channel
		return nil, true // blocked on nothing: forever
	}
	return nil, false // asleep, or waiting for the host
}

// findLeaks is FindLeaks for this run.
func (r *run) findLeaks(extra []starlark.StringDict) []*runtime.G {
	gs := r.m.Goroutines()
	lc := &leakCheck{
		seen:    make(map[any]bool),
		reached: make(map[any]bool),
		waiters: make(map[any][]int),
	}

	// The candidates, and who waits on what.
	type candidate struct {
		g    *runtime.G
		live bool
	}
	var cands []candidate
	var live []*runtime.G
	for _, g := range gs {
		objs, ok := r.waitObjects(g)
		if !ok {
			if g.Status() != runtime.Gleaked {
				live = append(live, g)
			}
			continue
		}
		for _, obj := range objs {
			lc.waiters[obj] = append(lc.waiters[obj], len(cands))
		}
		cands = append(cands, candidate{g: g})
	}
	if len(cands) == 0 {
		return nil // nothing blocked, nothing to leak: no walk
	}
	lc.stopped = func() bool { return r.stopped.Load() != nil }
	lc.wake = func(i int) {
		if !cands[i].live {
			cands[i].live = true
			live = append(live, cands[i].g)
		}
	}

	// The roots: every module's globals, the caller's, pending timers.
	for _, mod := range r.modules {
		lc.dict(mod.globals)
	}
	for _, g := range gs {
		if gr := goroutineOfG(g); gr != nil {
			for i := range gr.thread.CallStackDepth() {
				if fn, ok := gr.thread.DebugFrame(i).Callable().(*starlark.Function); ok {
					lc.module(fn.Module())
				}
			}
		}
	}
	for _, d := range extra {
		lc.dict(d)
	}
	for _, c := range r.m.PendingAfterChans() {
		lc.reach(c)
	}
	for _, d := range r.m.PendingFuncData() {
		if v, ok := d.(starlark.Value); ok {
			lc.push(v) // what an after_func goroutine will run
		}
	}

	// To a fixpoint: walk what each goroutine that can run holds.
	for {
		if !lc.drain() {
			return nil // a host limit stopped the run (memory.go)
		}
		if len(live) == 0 {
			break
		}
		g := live[len(live)-1]
		live = live[:len(live)-1]
		lc.goroutine(g)
	}

	var leaked []*runtime.G
	for _, c := range cands {
		if !c.live {
			leaked = append(leaked, c.g)
		}
	}
	return leaked
}

// A leakCheck is the state of one walk. It walks with an explicit stack,
// so that a deeply nested value cannot overflow the host's.
type leakCheck struct {
	seen    map[any]bool  // containers, functions and modules walked
	reached map[any]bool  // channels, mutexes, wait groups and parked goroutines reached
	waiters map[any][]int // candidates by the object they wait on
	wake    func(i int)   // makes candidate i able to run
	stopped func() bool   // a host limit stopped the run: give up
	stack   []starlark.Value
}

// stopEvery is how many values the walk takes between two looks for a
// stop: a walk of millions of values holds as much memory again as they
// do, and --max-memory and --timeout hold during it too.
const stopEvery = 1 << 12

// push schedules v to be walked.
func (lc *leakCheck) push(v starlark.Value) {
	if v != nil {
		lc.stack = append(lc.stack, v)
	}
}

func (lc *leakCheck) dict(d starlark.StringDict) {
	for _, v := range d {
		lc.push(v)
	}
}

// module walks the globals of mod once.
func (lc *leakCheck) module(mod *starlark.Module) {
	if mod == nil || lc.seen[mod] {
		return
	}
	lc.seen[mod] = true
	lc.dict(mod.Globals())
}

// reach records that obj is reachable and wakes its waiters.
func (lc *leakCheck) reach(obj any) {
	if lc.reached[obj] {
		return
	}
	lc.reached[obj] = true
	for _, i := range lc.waiters[obj] {
		lc.wake(i)
	}
}

// first reports whether key is seen for the first time.
func (lc *leakCheck) first(key any) bool {
	if lc.seen[key] {
		return false
	}
	lc.seen[key] = true
	return true
}

// goroutine walks what goroutine g holds: its frames, or, if it has not
// started, its function and arguments.
func (lc *leakCheck) goroutine(g *runtime.G) {
	gr := goroutineOfG(g)
	if gr == nil {
		return
	}
	th := gr.thread
	n := th.CallStackDepth()
	if n == 0 {
		lc.push(gr.fn)
		for _, v := range gr.args {
			lc.push(v)
		}
		for _, kv := range gr.kwargs {
			lc.push(kv)
		}
		return
	}
	for i := range n {
		fr := th.DebugFrame(i)
		lc.push(fr.Callable())
		for j := range fr.NumLocals() {
			_, v := fr.Local(j)
			lc.push(v)
		}
	}
}

// drain walks every value pushed so far. It reports false if it gave up
// because the run was stopped.
func (lc *leakCheck) drain() bool {
	for n := 1; len(lc.stack) > 0; n++ {
		if n%stopEvery == 0 && lc.stopped != nil && lc.stopped() {
			return false
		}
		v := lc.stack[len(lc.stack)-1]
		lc.stack = lc.stack[:len(lc.stack)-1]
		lc.value(v)
	}
	return true
}

// value walks one value: it marks the synchronization objects it is and
// pushes the values it holds. It is long by design (gocyclo 34): one flat
// type switch with a short case per kind of value.
func (lc *leakCheck) value(v starlark.Value) {
	switch v := v.(type) {
	case starlark.NoneType, starlark.Bool, starlark.Int, starlark.Float, starlark.String, starlark.Bytes:
	case *Channel:
		if lc.first(v) {
			lc.reach(v.ch)
			for _, x := range v.ch.Buffered() {
				lc.push(toValue(x))
			}
		}
	case *SelectCase:
		lc.push(v.c)
		lc.push(v.v)
	case *Task:
		lc.reach(v.gr)
	case *Mutex:
		lc.reach(v.mu)
	case *WaitGroup:
		lc.reach(v.wg)
	case *starlark.List:
		if lc.first(v) {
			for i := range v.Len() {
				lc.push(v.Index(i))
			}
		}
	case starlark.Tuple:
		if len(v) > 0 && lc.first(unsafe.SliceData(v)) {
			for _, x := range v {
				lc.push(x)
			}
		}
	case *starlark.Dict:
		if lc.first(v) {
			for k, x := range v.Entries() {
				lc.push(k)
				lc.push(x)
			}
		}
	case *starlark.Set:
		if lc.first(v) {
			for x := range v.Elements() {
				lc.push(x)
			}
		}
	case *starlark.Function:
		if lc.first(v) {
			lc.module(v.Module())
			for i := range v.NumFreeVars() {
				_, x := v.FreeVar(i)
				lc.push(x)
			}
			for i := range v.NumParams() {
				lc.push(v.ParamDefault(i))
			}
		}
	case *starlark.Builtin:
		lc.push(v.Receiver())
	case *starlarkstruct.Struct:
		if lc.first(v) {
			for _, x := range v.Entries() {
				lc.push(x)
			}
		}
	case *starlarkstruct.Module:
		if lc.first(v) {
			lc.dict(v.Members)
		}
	case leakHolder:
		if lc.first(v) {
			for _, o := range v.leakObjects() {
				lc.reach(o)
			}
			for _, x := range v.leakValues() {
				lc.push(x)
			}
		}
	default:
		if x, ok := cellValue(v); ok && lc.first(v) {
			lc.push(x)
		}
	}
}

// cellValue returns the variable held by v if v is one of the interpreter's
// cells: a frame's local that a closure captured shows up in the frame as
// the cell (an unexported *starlark.cell, struct{ v Value }) rather than as
// its value. TestLeakCapturedLocal checks that this still works.
func cellValue(v starlark.Value) (starlark.Value, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, false
	}
	t := rv.Type().Elem()
	if t.Name() != "cell" || t.PkgPath() != "go.starlark.net/starlark" || t.Kind() != reflect.Struct ||
		t.NumField() != 1 || t.Field(0).Type != valueType {
		return nil, false
	}
	f := rv.Elem().Field(0)
	x := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
	if x == nil {
		return nil, false
	}
	return x.(starlark.Value), true
}

var valueType = reflect.TypeFor[starlark.Value]()

// markLeaks marks the run's leaked goroutines at its end (main returned, or
// deadlock) and returns how many there are.
func (r *run) markLeaks() int {
	leaked := r.findLeaks(nil)
	for _, g := range leaked {
		r.m.MarkLeaked(g)
	}
	return len(leaked)
}
