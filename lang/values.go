// Value types: task, chan, select_case, mutex, waitgroup.
//
// Each is a thin Starlark face over an object of the engine. A task is one
// per goroutine, so two tasks are equal exactly when they are the same
// goroutine; tasks and channels hash by their ids, which the engine never
// reuses. Freezing changes nothing: like a Go channel or mutex, these are
// synchronization objects whose whole point is to be shared, and the engine
// serializes every use of them (one goroutine runs at a time).

package lang

import (
	"fmt"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

// toValue turns a value that went through the engine back into a Starlark
// value: nil (a closed channel's zero value) is None, and the int64 that a
// time.After channel delivers is an int.
func toValue(v any) starlark.Value {
	switch v := v.(type) {
	case starlark.Value:
		return v
	case int64:
		return starlark.MakeInt64(v)
	}
	return starlark.None
}

// A method is one method of a value type. Each type lists its methods in
// a fixed order, and each value keeps them bound to itself in an array in
// the same order.
type method struct {
	name string
	fn   *starlark.Builtin
}

// builtinAttr returns the method name of recv from methods, bound to recv,
// or nil if there is none. A method call (ch.send(v)) looks the method up
// every time and binding allocates, so a value binds each method once, on
// first use, and keeps it in bound. Mirrors SL's builtinAttr.
func builtinAttr(recv starlark.Value, name string, methods []method, bound []*starlark.Builtin) (starlark.Value, error) {
	for i := range methods {
		if methods[i].name == name {
			if bound[i] == nil {
				bound[i] = methods[i].fn.BindReceiver(recv)
			}
			return bound[i], nil
		}
	}
	return nil, nil // no such method
}

// ---- task ----

// A Task is a goroutine as a Starlark value: what spawn and current return.
type Task struct{ gr *goroutine }

var _ starlark.HasAttrs = (*Task)(nil)

var taskAttrNames = []string{"id", "name", "state", "wait_reason"} // sorted

func (t *Task) String() string        { return fmt.Sprintf("<task G%d %s>", t.gr.id, t.gr.name) }
func (t *Task) Type() string          { return "task" }
func (t *Task) Freeze()               {}
func (t *Task) Truth() starlark.Bool  { return starlark.True }
func (t *Task) Hash() (uint32, error) { return uint32(t.gr.id) ^ uint32(t.gr.id>>32), nil }
func (t *Task) AttrNames() []string   { return taskAttrNames }

// Attr returns the task's id, name, state (runnable, running, waiting,
// syscall, dead, ...) or wait_reason ("" unless it is waiting).
func (t *Task) Attr(name string) (starlark.Value, error) {
	switch name {
	case "id":
		return starlark.MakeInt64(t.gr.id), nil
	case "name":
		return starlark.String(t.gr.name), nil
	case "state":
		return starlark.String(t.gr.state()), nil
	case "wait_reason":
		return starlark.String(t.gr.waitReason()), nil
	}
	return nil, nil
}

// ---- chan ----

// A Channel is a Go channel of untyped values (make(chan any, cap)).
type Channel struct {
	ch *runtime.Chan
	m  *runtime.Machine // to find the goroutine that iterates over it

	bound    [len(chanMethods)]*starlark.Builtin // its methods, bound to it (see builtinAttr)
	recvCase *SelectCase                         // what on_recv returns, made on first use
}

var (
	_ starlark.HasAttrs = (*Channel)(nil)
	_ starlark.Iterable = (*Channel)(nil)
	_ starlark.Sequence = (*Channel)(nil)
)

var chanMethods = [...]method{
	{"close", starlark.NewBuiltin("close", chan_close)},
	{"on_recv", starlark.NewBuiltin("on_recv", chan_on_recv)},
	{"on_send", starlark.NewBuiltin("on_send", chan_on_send)},
	{"recv", starlark.NewBuiltin("recv", chan_recv)},
	{"recv_ok", starlark.NewBuiltin("recv_ok", chan_recv_ok)},
	{"send", starlark.NewBuiltin("send", chan_send)},
}

var chanAttrNames = []string{"cap", "close", "on_recv", "on_send", "recv", "recv_ok", "send"} // sorted

func (c *Channel) String() string {
	if c.ch == nil {
		return "<chan nil>"
	}
	return fmt.Sprintf("<chan %d cap=%d>", c.ch.ID(), c.ch.Cap())
}
func (c *Channel) Type() string          { return "chan" }
func (c *Channel) Freeze()               {}
func (c *Channel) Truth() starlark.Bool  { return starlark.True }
func (c *Channel) Hash() (uint32, error) { return uint32(c.ch.ID()), nil }
func (c *Channel) Len() int {
	if c.m.Tracking() {
		if gr := goroutineOfG(c.m.Current()); gr != nil {
			gr.run.unparkFor() // the footprint changes the Machine, inside len's call
		}
		c.m.Touch(c.ch, runtime.AccessRead) // len(ch) reads the channel's state
	}
	return c.ch.Len()
}
func (c *Channel) AttrNames() []string        { return chanAttrNames }
func (c *Channel) Iterate() starlark.Iterator { return &chanIterator{c: c} }
func (c *Channel) Chan() *runtime.Chan        { return c.ch }
func (c *Channel) Attr(name string) (starlark.Value, error) {
	if name == "cap" {
		return starlark.MakeInt(c.ch.Cap()), nil
	}
	return builtinAttr(c, name, chanMethods[:], c.bound[:])
}

// chanIterator is `for v in ch`: each Next is a receive by the goroutine
// running now (for v := range ch), blocking through the engine; the loop
// ends when the channel is closed and drained.
type chanIterator struct{ c *Channel }

func (it *chanIterator) Next(p *starlark.Value) bool {
	gr := goroutineOfG(it.c.m.Current())
	if gr == nil {
		return false // not inside the run: nothing can be received
	}
	var v any
	var ok bool
	gr.blocking(func(g *runtime.G) { v, ok = g.Recv(it.c.ch) })
	if !ok {
		return false
	}
	*p = toValue(v)
	return true
}

func (it *chanIterator) Done() {}

func chan_send(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if len(args) == 1 && len(kwargs) == 0 {
		v = args[0] // the common case, without UnpackArgs's allocation
	} else {
		var err error
		if v, err = unpackValue(b, args, kwargs); err != nil {
			return nil, err
		}
	}
	if err := sendable(b); err != nil {
		return nil, err
	}
	gr, err := caller(b.Receiver().(*Channel).m, thread, b)
	if err != nil {
		return nil, err
	}
	gr.blocking(func(g *runtime.G) { err = g.Send(b.Receiver().(*Channel).ch, v) })
	if err != nil {
		return nil, err
	}
	return starlark.None, nil
}

// unpackValue unpacks the one argument v of ch.send(v).
func unpackValue(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	err := starlark.UnpackArgs(b.Name(), args, kwargs, "v", &v)
	return v, err
}

func chan_recv(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	v, _, err := recv(thread, b, args, kwargs)
	return v, err
}

func chan_recv_ok(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	v, ok, err := recv(thread, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	return starlark.Tuple{v, starlark.Bool(ok)}, nil
}

// recv is v, ok := <-ch, for recv and recv_ok.
func recv(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, bool, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, false, err
	}
	gr, err := caller(b.Receiver().(*Channel).m, thread, b)
	if err != nil {
		return nil, false, err
	}
	ch := b.Receiver().(*Channel).ch
	var v any
	var ok bool
	gr.blocking(func(g *runtime.G) { v, ok = g.Recv(ch) })
	return toValue(v), ok, nil
}

func chan_close(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	if b.Receiver().(*Channel).ch.IsTimer() {
		return nil, fmt.Errorf("invalid operation: cannot close receive-only channel %s (a timer's channel)", b.Receiver())
	}
	gr, err := caller(b.Receiver().(*Channel).m, thread, b)
	if err != nil {
		return nil, err
	}
	if err := gr.g.Close(b.Receiver().(*Channel).ch); err != nil {
		return nil, err
	}
	return starlark.None, nil
}

func chan_on_recv(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	c := b.Receiver().(*Channel)
	if c.recvCase == nil { // it never changes: made once per channel
		c.recvCase = &SelectCase{c: c, dir: runtime.SelectRecv, v: starlark.None}
	}
	return c.recvCase, nil
}

func chan_on_send(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "v", &v); err != nil {
		return nil, err
	}
	if err := sendable(b); err != nil {
		return nil, err
	}
	return &SelectCase{c: b.Receiver().(*Channel), dir: runtime.SelectSend, v: v}, nil
}

// sendable refuses a send on a timer's channel, which Go types as
// receive-only (<-chan Time): a compile error there.
func sendable(b *starlark.Builtin) error {
	if c := b.Receiver().(*Channel); c.ch.IsTimer() {
		return fmt.Errorf("invalid operation: cannot send to receive-only channel %s (a timer's channel)", c)
	}
	return nil
}

// ---- select_case ----

// A SelectCase is one case of a select: ch.on_recv() or ch.on_send(v).
type SelectCase struct {
	c   *Channel
	dir runtime.SelectDir
	v   starlark.Value // the value to send
}

var _ starlark.HasAttrs = (*SelectCase)(nil)

var selectCaseAttrNames = []string{"chan", "dir", "value"} // sorted

func (sc *SelectCase) String() string {
	if sc.dir == runtime.SelectSend {
		return fmt.Sprintf("<on_send chan %d %s>", sc.c.ch.ID(), sc.v)
	}
	return fmt.Sprintf("<on_recv chan %d>", sc.c.ch.ID())
}
func (sc *SelectCase) Type() string          { return "select_case" }
func (sc *SelectCase) Freeze()               { sc.v.Freeze() }
func (sc *SelectCase) Truth() starlark.Bool  { return starlark.True }
func (sc *SelectCase) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: select_case") }
func (sc *SelectCase) AttrNames() []string   { return selectCaseAttrNames }

// Attr returns the case's channel, its direction ("recv" or "send") and
// the value it sends (None for a receive).
func (sc *SelectCase) Attr(name string) (starlark.Value, error) {
	switch name {
	case "chan":
		return sc.c, nil
	case "dir":
		if sc.dir == runtime.SelectSend {
			return starlark.String("send"), nil
		}
		return starlark.String("recv"), nil
	case "value":
		return sc.v, nil
	}
	return nil, nil
}

// ---- mutex ----

// A Mutex is sync.Mutex, on the engine's semaphores.
type Mutex struct {
	mu    *runtime.Mutex
	m     *runtime.Machine
	bound [len(mutexMethods)]*starlark.Builtin
}

var _ starlark.HasAttrs = (*Mutex)(nil)

var mutexMethods = [...]method{
	{"lock", starlark.NewBuiltin("lock", mutex_lock)},
	{"unlock", starlark.NewBuiltin("unlock", mutex_unlock)},
}

var mutexAttrNames = []string{"lock", "locked", "unlock"} // sorted

func (mu *Mutex) String() string        { return "<mutex>" }
func (mu *Mutex) Type() string          { return "mutex" }
func (mu *Mutex) Freeze()               {}
func (mu *Mutex) Truth() starlark.Bool  { return starlark.True }
func (mu *Mutex) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: mutex") }
func (mu *Mutex) AttrNames() []string   { return mutexAttrNames }
func (mu *Mutex) Attr(name string) (starlark.Value, error) {
	if name == "locked" {
		return starlark.Bool(mu.mu.Locked()), nil
	}
	return builtinAttr(mu, name, mutexMethods[:], mu.bound[:])
}

func mutex_lock(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := caller(b.Receiver().(*Mutex).m, thread, b)
	if err != nil {
		return nil, err
	}
	gr.blocking(func(g *runtime.G) { g.Lock(b.Receiver().(*Mutex).mu) })
	return starlark.None, nil
}

func mutex_unlock(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := caller(b.Receiver().(*Mutex).m, thread, b)
	if err != nil {
		return nil, err
	}
	// In starvation mode Unlock hands off and yields.
	gr.blocking(func(g *runtime.G) { err = g.Unlock(b.Receiver().(*Mutex).mu) })
	if err != nil {
		return nil, err
	}
	return starlark.None, nil
}

// ---- waitgroup ----

// A WaitGroup is sync.WaitGroup, on the engine's semaphores.
type WaitGroup struct {
	wg    *runtime.WaitGroup
	m     *runtime.Machine
	bound [len(waitGroupMethods)]*starlark.Builtin
}

var _ starlark.HasAttrs = (*WaitGroup)(nil)

var waitGroupMethods = [...]method{
	{"add", starlark.NewBuiltin("add", waitgroup_add)},
	{"done", starlark.NewBuiltin("done", waitgroup_done)},
	{"go", starlark.NewBuiltin("go", waitgroup_go)},
	{"wait", starlark.NewBuiltin("wait", waitgroup_wait)},
}

var waitGroupAttrNames = []string{"add", "count", "done", "go", "wait"} // sorted

func (wg *WaitGroup) String() string        { return fmt.Sprintf("<waitgroup count=%d>", wg.wg.Count()) }
func (wg *WaitGroup) Type() string          { return "waitgroup" }
func (wg *WaitGroup) Freeze()               {}
func (wg *WaitGroup) Truth() starlark.Bool  { return starlark.True }
func (wg *WaitGroup) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: waitgroup") }
func (wg *WaitGroup) AttrNames() []string   { return waitGroupAttrNames }
func (wg *WaitGroup) Attr(name string) (starlark.Value, error) {
	if name == "count" {
		return starlark.MakeInt64(wg.wg.Count()), nil
	}
	return builtinAttr(wg, name, waitGroupMethods[:], wg.bound[:])
}

func waitgroup_add(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	// The common call, one int by position, without UnpackArgs, which
	// makes delta escape to the heap; anything else gets its errors.
	if len(args) == 1 && len(kwargs) == 0 {
		if i, ok := args[0].(starlark.Int); ok {
			if d, ok := i.Int64(); ok {
				return waitGroupAdd(thread, b, d)
			}
		}
	}
	var delta int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "delta", &delta); err != nil {
		return nil, err
	}
	return waitGroupAdd(thread, b, delta)
}

func waitgroup_done(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return waitGroupAdd(thread, b, -1)
}

// waitGroupAdd is wg.Add(delta), for add and done.
func waitGroupAdd(thread *starlark.Thread, b *starlark.Builtin, delta int64) (starlark.Value, error) {
	gr, err := caller(b.Receiver().(*WaitGroup).m, thread, b)
	if err != nil {
		return nil, err
	}
	if err := gr.g.Add(b.Receiver().(*WaitGroup).wg, delta); err != nil {
		return nil, err
	}
	return starlark.None, nil
}

func waitgroup_wait(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := caller(b.Receiver().(*WaitGroup).m, thread, b)
	if err != nil {
		return nil, err
	}
	gr.blocking(func(g *runtime.G) { g.Wait(b.Receiver().(*WaitGroup).wg) })
	return starlark.None, nil
}
