// The rest of sync's vocabulary: rwmutex, cond, once, atomic_int,
// semaphore, and waitgroup's go.
//
// Each value is a thin face over the engine's object (runtime/syncx.go),
// as mutex and waitgroup are (values.go); the engine keeps the wake order
// and the wait reasons Go has (sync.RWMutex.RLock, sync.Cond.Wait, ...).
// atomic_int needs no engine object: a builtin runs without a scheduling
// point in the middle, so each of its methods is indivisible.

package lang

import (
	"errors"
	"fmt"
	"math"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

// A leakHolder is a value the leak check looks into: the engine objects
// that goroutines block on (reached when the value is), and the values it
// holds.
type leakHolder interface {
	leakObjects() []any
	leakValues() []starlark.Value
}

// call returns the goroutine calling method b of a value of Machine m.
func call(m *runtime.Machine, thread *starlark.Thread, b *starlark.Builtin) (*goroutine, error) {
	return caller(m, thread, b)
}

// ---- rwmutex ----

// rwmutex() → rwmutex: a new sync.RWMutex.
func rwmutex(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	m := gr.g.Machine()
	return &RWMutex{rw: m.NewRWMutex(), m: m}, nil
}

// An RWMutex is sync.RWMutex.
type RWMutex struct {
	rw    *runtime.RWMutex
	m     *runtime.Machine
	bound [len(rwmutexMethods)]*starlark.Builtin
}

var (
	_ starlark.HasAttrs = (*RWMutex)(nil)
	_ leakHolder        = (*RWMutex)(nil)
)

var rwmutexMethods = [...]method{
	{"lock", starlark.NewBuiltin("lock", rwmutex_lock)},
	{"rlock", starlark.NewBuiltin("rlock", rwmutex_rlock)},
	{"runlock", starlark.NewBuiltin("runlock", rwmutex_runlock)},
	{"unlock", starlark.NewBuiltin("unlock", rwmutex_unlock)},
}

var rwmutexAttrNames = []string{"lock", "readers", "rlock", "runlock", "unlock", "writer"} // sorted

func (mu *RWMutex) String() string {
	return fmt.Sprintf("<rwmutex readers=%d writer=%t>", mu.rw.Readers(), mu.rw.Writer())
}
func (mu *RWMutex) Type() string                 { return "rwmutex" }
func (mu *RWMutex) Freeze()                      {}
func (mu *RWMutex) Truth() starlark.Bool         { return starlark.True }
func (mu *RWMutex) Hash() (uint32, error)        { return 0, fmt.Errorf("unhashable type: rwmutex") }
func (mu *RWMutex) AttrNames() []string          { return rwmutexAttrNames }
func (mu *RWMutex) leakObjects() []any           { return []any{mu.rw, mu.rw.WriterMutex()} }
func (mu *RWMutex) leakValues() []starlark.Value { return nil }

// Attr returns a method, readers (the readers holding it) or writer
// (whether a writer holds or waits for it).
func (mu *RWMutex) Attr(name string) (starlark.Value, error) {
	switch name {
	case "readers":
		return starlark.MakeInt(mu.rw.Readers()), nil
	case "writer":
		return starlark.Bool(mu.rw.Writer()), nil
	}
	return builtinAttr(mu, name, rwmutexMethods[:], mu.bound[:])
}

// rwmutexCall runs one method of an rwmutex, which may block.
func rwmutexCall(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, f func(g *runtime.G, rw *runtime.RWMutex) error) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	mu := b.Receiver().(*RWMutex)
	gr, err := call(mu.m, thread, b)
	if err != nil {
		return nil, err
	}
	gr.blocking(func(g *runtime.G) { err = f(g, mu.rw) })
	if err != nil {
		return nil, err
	}
	return starlark.None, nil
}

func rwmutex_lock(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return rwmutexCall(thread, b, args, kwargs, func(g *runtime.G, rw *runtime.RWMutex) error { g.LockRW(rw); return nil })
}

func rwmutex_unlock(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return rwmutexCall(thread, b, args, kwargs, (*runtime.G).UnlockRW)
}

func rwmutex_rlock(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return rwmutexCall(thread, b, args, kwargs, func(g *runtime.G, rw *runtime.RWMutex) error { g.RLock(rw); return nil })
}

func rwmutex_runlock(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return rwmutexCall(thread, b, args, kwargs, (*runtime.G).RUnlock)
}

// ---- cond ----

// cond(mu) → cond: sync.NewCond(mu), for a mutex or an rwmutex (its write
// lock).
func cond(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var l starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "l", &l); err != nil {
		return nil, err
	}
	switch l.(type) {
	case *Mutex, *RWMutex:
	default:
		return nil, fmt.Errorf("%s: for parameter l: got %s, want mutex or rwmutex", b.Name(), l.Type())
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	m := gr.g.Machine()
	return &Cond{c: m.NewCond(), l: l, m: m}, nil
}

// A Cond is sync.Cond.
type Cond struct {
	c     *runtime.Cond
	l     starlark.Value // its Locker: *Mutex or *RWMutex
	m     *runtime.Machine
	bound [len(condMethods)]*starlark.Builtin
}

var (
	_ starlark.HasAttrs = (*Cond)(nil)
	_ leakHolder        = (*Cond)(nil)
)

var condMethods = [...]method{
	{"broadcast", starlark.NewBuiltin("broadcast", cond_broadcast)},
	{"signal", starlark.NewBuiltin("signal", cond_signal)},
	{"wait", starlark.NewBuiltin("wait", cond_wait)},
}

var condAttrNames = []string{"broadcast", "l", "signal", "wait"} // sorted

func (c *Cond) String() string               { return "<cond>" }
func (c *Cond) Type() string                 { return "cond" }
func (c *Cond) Freeze()                      {}
func (c *Cond) Truth() starlark.Bool         { return starlark.True }
func (c *Cond) Hash() (uint32, error)        { return 0, fmt.Errorf("unhashable type: cond") }
func (c *Cond) AttrNames() []string          { return condAttrNames }
func (c *Cond) leakObjects() []any           { return []any{c.c} }
func (c *Cond) leakValues() []starlark.Value { return []starlark.Value{c.l} }
func (c *Cond) Attr(name string) (starlark.Value, error) {
	if name == "l" {
		return c.l, nil
	}
	return builtinAttr(c, name, condMethods[:], c.bound[:])
}

// lock and unlock are c.L.Lock and c.L.Unlock.
func (c *Cond) lock(g *runtime.G) {
	switch l := c.l.(type) {
	case *Mutex:
		g.Lock(l.mu)
	case *RWMutex:
		g.LockRW(l.rw)
	}
}

func (c *Cond) unlock(g *runtime.G) error {
	switch l := c.l.(type) {
	case *Mutex:
		return g.Unlock(l.mu)
	case *RWMutex:
		return g.UnlockRW(l.rw)
	}
	return nil
}

// cond_wait is Cond.Wait: take a ticket, unlock L, wait for the ticket,
// lock L again.
func cond_wait(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	c := b.Receiver().(*Cond)
	gr, err := call(c.m, thread, b)
	if err != nil {
		return nil, err
	}
	gr.blocking(func(g *runtime.G) {
		t := g.CondAdd(c.c)
		if err = c.unlock(g); err != nil {
			return
		}
		g.CondWait(c.c, t)
		c.lock(g)
	})
	if err != nil {
		return nil, err
	}
	return starlark.None, nil
}

func cond_signal(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	c := b.Receiver().(*Cond)
	gr, err := call(c.m, thread, b)
	if err != nil {
		return nil, err
	}
	gr.g.Signal(c.c)
	return starlark.None, nil
}

func cond_broadcast(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	c := b.Receiver().(*Cond)
	gr, err := call(c.m, thread, b)
	if err != nil {
		return nil, err
	}
	gr.g.Broadcast(c.c)
	return starlark.None, nil
}

// ---- once ----

// once() → once: a new sync.Once.
func once(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	m := gr.g.Machine()
	return &Once{mu: m.NewMutex(), m: m}, nil
}

// A Once is sync.Once: a done flag and a mutex, which a second caller
// waits on (sync.Mutex.Lock) while the first runs fn.
type Once struct {
	done  bool
	mu    *runtime.Mutex
	m     *runtime.Machine
	bound [len(onceMethods)]*starlark.Builtin
}

var (
	_ starlark.HasAttrs = (*Once)(nil)
	_ leakHolder        = (*Once)(nil)
)

var onceMethods = [...]method{
	{"do", starlark.NewBuiltin("do", once_do)},
}

var onceAttrNames = []string{"do", "done"} // sorted

func (o *Once) String() string               { return fmt.Sprintf("<once done=%t>", o.done) }
func (o *Once) Type() string                 { return "once" }
func (o *Once) Freeze()                      {}
func (o *Once) Truth() starlark.Bool         { return starlark.True }
func (o *Once) Hash() (uint32, error)        { return 0, fmt.Errorf("unhashable type: once") }
func (o *Once) AttrNames() []string          { return onceAttrNames }
func (o *Once) leakObjects() []any           { return []any{o.mu} }
func (o *Once) leakValues() []starlark.Value { return nil }
func (o *Once) Attr(name string) (starlark.Value, error) {
	if name == "done" {
		return starlark.Bool(o.done), nil
	}
	return builtinAttr(o, name, onceMethods[:], o.bound[:])
}

// once_do is Once.Do(fn): the fast path when done, else doSlow: lock, run
// fn if still not done, mark done, unlock.
func once_do(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn starlark.Callable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "fn", &fn); err != nil {
		return nil, err
	}
	o := b.Receiver().(*Once)
	if o.done {
		return starlark.None, nil
	}
	gr, err := call(o.m, thread, b)
	if err != nil {
		return nil, err
	}
	gr.blocking(func(g *runtime.G) { g.Lock(o.mu) })
	if !o.done {
		_, err := starlark.Call(thread, fn, nil, nil)
		o.done = true // deferred in Go: set even when fn fails
		if err != nil {
			return nil, err
		}
	}
	gr.blocking(func(g *runtime.G) { err = g.Unlock(o.mu) })
	if err != nil {
		return nil, err
	}
	return starlark.None, nil
}

// ---- atomic_int ----

// atomic_int(v=0) → atomic_int: an atomic.Int64.
func atomicInt(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "v?", &v); err != nil {
		return nil, err
	}
	return &AtomicInt{v: v}, nil
}

// An AtomicInt is atomic.Int64: its methods are indivisible, and wrap
// around on overflow as Go's do.
type AtomicInt struct {
	v     int64
	bound [len(atomicIntMethods)]*starlark.Builtin
}

var _ starlark.HasAttrs = (*AtomicInt)(nil)

var atomicIntMethods = [...]method{
	{"add", starlark.NewBuiltin("add", atomic_add)},
	{"cas", starlark.NewBuiltin("cas", atomic_cas)},
	{"get", starlark.NewBuiltin("get", atomic_get)},
	{"set", starlark.NewBuiltin("set", atomic_set)},
	{"swap", starlark.NewBuiltin("swap", atomic_swap)},
}

var atomicIntAttrNames = []string{"add", "cas", "get", "set", "swap"} // sorted

func (a *AtomicInt) String() string        { return fmt.Sprintf("<atomic_int %d>", a.v) }
func (a *AtomicInt) Type() string          { return "atomic_int" }
func (a *AtomicInt) Freeze()               {}
func (a *AtomicInt) Truth() starlark.Bool  { return starlark.True }
func (a *AtomicInt) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: atomic_int") }
func (a *AtomicInt) AttrNames() []string   { return atomicIntAttrNames }
func (a *AtomicInt) Attr(name string) (starlark.Value, error) {
	return builtinAttr(a, name, atomicIntMethods[:], a.bound[:])
}

// atomicOp charges the goroutine that runs thread one atomic operation
// (G.Atomic: sync_op, when the profile has it).
func atomicOp(thread *starlark.Thread) {
	if r := threadRun(thread); r != nil {
		if gr := r.current(); gr != nil {
			gr.g.Atomic()
		}
	}
}

// atomic_get is Load (load is a reserved word in Starlark).
func atomic_get(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	// A load is a plain load on amd64 and arm64: no sync_op.
	return starlark.MakeInt64(b.Receiver().(*AtomicInt).v), nil
}

// atomic_set is Store.
func atomic_set(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "v", &v); err != nil {
		return nil, err
	}
	atomicOp(thread)
	b.Receiver().(*AtomicInt).v = v
	return starlark.None, nil
}

// atomic_add is Add: it returns the new value.
func atomic_add(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var d int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "delta", &d); err != nil {
		return nil, err
	}
	atomicOp(thread)
	a := b.Receiver().(*AtomicInt)
	a.v += d
	return starlark.MakeInt64(a.v), nil
}

// atomic_swap is Swap: it returns the old value.
func atomic_swap(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "v", &v); err != nil {
		return nil, err
	}
	atomicOp(thread)
	a := b.Receiver().(*AtomicInt)
	old := a.v
	a.v = v
	return starlark.MakeInt64(old), nil
}

// atomic_cas is CompareAndSwap.
func atomic_cas(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var old, v int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "old", &old, "new", &v); err != nil {
		return nil, err
	}
	atomicOp(thread)
	a := b.Receiver().(*AtomicInt)
	if a.v != old {
		return starlark.False, nil
	}
	a.v = v
	return starlark.True, nil
}

// ---- semaphore ----

// semaphore(n) → semaphore: semaphore.NewWeighted(n).
func semaphore(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n", &n); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%s: negative size %d", b.Name(), n)
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	m := gr.g.Machine()
	return &Semaphore{s: m.NewWeighted(n), m: m}, nil
}

// A Semaphore is golang.org/x/sync/semaphore.Weighted.
type Semaphore struct {
	s     *runtime.Weighted
	m     *runtime.Machine
	bound [len(semaphoreMethods)]*starlark.Builtin
}

var (
	_ starlark.HasAttrs = (*Semaphore)(nil)
	_ leakHolder        = (*Semaphore)(nil)
)

var semaphoreMethods = [...]method{
	{"acquire", starlark.NewBuiltin("acquire", semaphore_acquire)},
	{"release", starlark.NewBuiltin("release", semaphore_release)},
	{"try_acquire", starlark.NewBuiltin("try_acquire", semaphore_try_acquire)},
}

var semaphoreAttrNames = []string{"acquire", "held", "release", "size", "try_acquire"} // sorted

func (s *Semaphore) String() string {
	return fmt.Sprintf("<semaphore %d/%d>", s.s.Held(), s.s.Size())
}
func (s *Semaphore) Type() string                 { return "semaphore" }
func (s *Semaphore) Freeze()                      {}
func (s *Semaphore) Truth() starlark.Bool         { return starlark.True }
func (s *Semaphore) Hash() (uint32, error)        { return 0, fmt.Errorf("unhashable type: semaphore") }
func (s *Semaphore) AttrNames() []string          { return semaphoreAttrNames }
func (s *Semaphore) leakObjects() []any           { return []any{s.s} }
func (s *Semaphore) leakValues() []starlark.Value { return nil }
func (s *Semaphore) Attr(name string) (starlark.Value, error) {
	switch name {
	case "held":
		return starlark.MakeInt64(s.s.Held()), nil
	case "size":
		return starlark.MakeInt64(s.s.Size()), nil
	}
	return builtinAttr(s, name, semaphoreMethods[:], s.bound[:])
}

// unpackWeight unpacks a semaphore method's k=1, which may not be
// negative: Acquire's panic, which Release and TryAcquire share here.
func unpackWeight(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (int64, error) {
	k := int64(1)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "k?", &k); err != nil {
		return 0, err
	}
	if k < 0 {
		return 0, errors.New("semaphore: n < 0")
	}
	return k, nil
}

func semaphore_acquire(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	k, err := unpackWeight(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	s := b.Receiver().(*Semaphore)
	gr, err := call(s.m, thread, b)
	if err != nil {
		return nil, err
	}
	gr.blocking(func(g *runtime.G) { g.Acquire(s.s, k) })
	return starlark.None, nil
}

func semaphore_try_acquire(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	k, err := unpackWeight(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	s := b.Receiver().(*Semaphore)
	gr, err := call(s.m, thread, b)
	if err != nil {
		return nil, err
	}
	return starlark.Bool(gr.g.TryAcquire(s.s, k)), nil
}

func semaphore_release(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	k, err := unpackWeight(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	s := b.Receiver().(*Semaphore)
	gr, err := call(s.m, thread, b)
	if err != nil {
		return nil, err
	}
	if err := gr.g.Release(s.s, k); err != nil {
		return nil, err
	}
	return starlark.None, nil
}

// ---- waitgroup.go ----

// waitgroup_go is WaitGroup.Go(fn, *args) (Go 1.25): wg.Add(1), then a
// goroutine that runs fn(*args) and calls wg.Done() when it returns.
func waitgroup_go(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("%s: missing argument for fn", b.Name())
	}
	fn, ok := args[0].(starlark.Callable)
	if !ok {
		return nil, fmt.Errorf("%s: for parameter fn: got %s, want callable", b.Name(), args[0].Type())
	}
	wg := b.Receiver().(*WaitGroup)
	gr, err := call(wg.m, thread, b)
	if err != nil {
		return nil, err
	}
	if err := gr.g.Add(wg.wg, 1); err != nil {
		return nil, err
	}
	fargs := append(starlark.Tuple(nil), args[1:]...)
	fkwargs := append([]starlark.Tuple(nil), kwargs...)
	child := gr.run.newGoroutine(fn.Name(), fn)
	child.args, child.kwargs = fargs, fkwargs
	child.parent = gr.id
	child.site = starlark.CallFrame{Name: "sync.(*WaitGroup).Go"}
	if thread.CallStackDepth() > 1 {
		child.site.Pos = thread.CallFrame(1).Pos
	}
	body := func() error {
		if _, err := starlark.Call(child.thread, fn, fargs, fkwargs); err != nil {
			return err
		}
		child.account()
		return child.g.Add(wg.wg, -1)
	}
	return gr.spawn(child, body)
}

// isFatal reports whether err is one of sync's fatal errors, which Go
// reports as "fatal error:" rather than as a panic, and cannot be
// recovered.
func isFatal(err error) bool {
	return errors.Is(err, runtime.ErrUnlockOfUnlocked) || errors.Is(err, runtime.ErrUnlockOfUnlockedRW) || errors.Is(err, runtime.ErrRUnlockOfUnlocked)
}

// Recursion is allowed, as in Go, to maxCallDepth nested calls. Go's own
// limit is on the stack's size (1GB on 64-bit machines) and its end the
// fatal error "stack overflow"; a Starlark frame costs the host about
// 1.4KB of stack, so the limit is on calls. The depth is looked at every
// depthCheckSteps steps (OnMaxSteps, see arm), so a run ends between
// maxCallDepth and a few thousand calls deeper; go.starlark.net's own guard
// (starlarkStackOverflow, at 100000) is never reached.
const (
	maxCallDepth          = 10_000
	depthCheckSteps       = 4096
	starlarkStackOverflow = "Starlark stack overflow"
	stackOverflowMsg      = "stack overflow (more than 10000 nested calls)"
)

// overflow ends the goroutine's Starlark code for going more than
// maxCallDepth calls deep: exit reports Go's fatal error, with the
// goroutine's backtrace as it was.
func (gr *goroutine) overflow() {
	gr.overflowed = true
	gr.thread.SetMaxExecutionSteps(math.MaxUint64)
	gr.thread.Cancel(stackOverflowMsg)
}
