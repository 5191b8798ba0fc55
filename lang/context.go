// Package context's cancellation: background, with_cancel, with_timeout,
// with_deadline.
//
// A context is a done channel, an error and its children, as cancelCtx in
// context.go: cancelling one sets its error, closes its done channel
// (waking every goroutine blocked on it, in closechan's order), cancels its
// children and takes it off its parent. A deadline is a real runtime timer:
// time.AfterFunc, whose goroutine runs the cancel when it fires, so it
// shows in traces and dumps as Go's does. Go keeps the children in a map,
// which it walks in a random order; here the order is drawn from the run's
// seeded PRNG.

package lang

import (
	"fmt"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

// The errors a context reports, in Go's words.
const (
	errCanceled         = "context canceled"
	errDeadlineExceeded = "context deadline exceeded"
)

// A Context is a context.Context: Background (no done channel, never
// cancelled) or a cancelCtx, perhaps with a deadline (timerCtx).
type Context struct {
	m        *runtime.Machine
	parent   *Context
	done     *Channel // nil Chan for background
	err      string
	children []*Context
	deadline int64 // virtual ns, if hasDeadline
	hasDL    bool
	timer    *runtime.Timer // the deadline's AfterFunc
	bound    [len(contextMethods)]*starlark.Builtin
}

var (
	_ starlark.HasAttrs = (*Context)(nil)
	_ leakHolder        = (*Context)(nil)
)

var contextMethods = [...]method{
	{"deadline", starlark.NewBuiltin("deadline", context_deadline)},
	{"done", starlark.NewBuiltin("done", context_done)},
	{"err", starlark.NewBuiltin("err", context_err)},
}

var contextAttrNames = []string{"deadline", "done", "err"} // sorted

func (c *Context) String() string {
	switch {
	case c.parent == nil:
		return "context.Background"
	case c.hasDL:
		return fmt.Sprintf("%s.WithDeadline(%s)", c.parent, runtime.FormatDuration(c.deadline))
	}
	return c.parent.String() + ".WithCancel"
}
func (c *Context) Type() string          { return "context" }
func (c *Context) Freeze()               {}
func (c *Context) Truth() starlark.Bool  { return starlark.True }
func (c *Context) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: context") }
func (c *Context) AttrNames() []string   { return contextAttrNames }
func (c *Context) leakObjects() []any    { return nil }
func (c *Context) leakValues() []starlark.Value {
	vs := []starlark.Value{c.done}
	if c.parent != nil {
		vs = append(vs, c.parent)
	}
	for _, ch := range c.children {
		vs = append(vs, ch)
	}
	return vs
}
func (c *Context) Attr(name string) (starlark.Value, error) {
	return builtinAttr(c, name, contextMethods[:], c.bound[:])
}

// background() → context: context.Background().
func background(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	m := gr.g.Machine()
	return &Context{m: m, done: &Channel{m: m}}, nil
}

// with_cancel(parent) → (ctx, cancel): context.WithCancel.
func withCancel(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var parent *Context
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "parent", &parent); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	c, err := newCancelCtx(gr, parent)
	if err != nil {
		return nil, err
	}
	return starlark.Tuple{c, c.cancelFunc()}, nil
}

// with_timeout(parent, d) → (ctx, cancel): context.WithTimeout, which is
// WithDeadline(parent, now+d), the sum saturated at the end of the virtual
// clock as time.Time.Add never wraps (runtime.AddTime).
func withTimeout(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var parent *Context
	var d duration
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "parent", &parent, "d", &d); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	return withDeadlineAt(gr, parent, runtime.AddTime(gr.g.Now(), int64(d)))
}

// with_deadline(parent, t) → (ctx, cancel): context.WithDeadline, t in
// virtual ns (as now() returns).
func withDeadline(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var parent *Context
	var t int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "parent", &parent, "t", &t); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	return withDeadlineAt(gr, parent, t)
}

// newCancelCtx makes a child of parent and ties it to parent's
// cancellation. Mirrors withCancel and propagateCancel.
func newCancelCtx(gr *goroutine, parent *Context) (*Context, error) {
	m := gr.g.Machine()
	ch, err := m.NewChan(0)
	if err != nil {
		return nil, err
	}
	c := &Context{m: m, parent: parent, done: &Channel{ch: ch, m: m}}
	if parent.parent == nil {
		return c, nil // the parent is never cancelled
	}
	if parent.err != "" {
		// The parent is already cancelled.
		if err := c.cancel(gr, false, parent.err); err != nil {
			return nil, err
		}
		return c, nil
	}
	parent.children = append(parent.children, c)
	return c, nil
}

// withDeadlineAt is WithDeadline(parent, d).
func withDeadlineAt(gr *goroutine, parent *Context, d int64) (starlark.Value, error) {
	if cur, ok := parent.deadlineOf(); ok && cur < d {
		// The current deadline is already sooner than the new one.
		c, err := newCancelCtx(gr, parent)
		if err != nil {
			return nil, err
		}
		return starlark.Tuple{c, c.cancelFunc()}, nil
	}
	c, err := newCancelCtx(gr, parent)
	if err != nil {
		return nil, err
	}
	c.deadline, c.hasDL = d, true
	if d <= gr.g.Now() { // compared, not subtracted: d - now may wrap
		// The deadline has already passed.
		if err := c.cancel(gr, true, errDeadlineExceeded); err != nil {
			return nil, err
		}
		return starlark.Tuple{c, c.cancelFunc()}, nil
	}
	if c.err == "" {
		fire := starlark.NewBuiltin("context.timerCtx.cancel", context_expire).BindReceiver(c)
		r := gr.run
		start := func() (runtime.Func, string, func(*runtime.G)) {
			child := r.newGoroutine(fire.Name(), fire)
			child.parent = gr.id
			child.site = starlark.CallFrame{Name: "time.goFunc"}
			f := child.main(nil)
			if r.wrapGoroutine != nil {
				f = r.wrapGoroutine(f)
			}
			return f, child.name, child.bind
		}
		c.timer = gr.g.AfterFunc(d-gr.g.Now(), starlark.Tuple{fire}, start)
	}
	return starlark.Tuple{c, c.cancelFunc()}, nil
}

// deadlineOf returns the context's deadline, inherited from its parents.
func (c *Context) deadlineOf() (int64, bool) {
	for ; c != nil; c = c.parent {
		if c.hasDL {
			return c.deadline, true
		}
	}
	return 0, false
}

// cancelFunc returns the CancelFunc of c.
func (c *Context) cancelFunc() *starlark.Builtin {
	return starlark.NewBuiltin("cancel", context_cancel).BindReceiver(c)
}

// cancel closes c's done channel, cancels its children and, with
// removeFromParent, takes c off its parent. Mirrors cancelCtx.cancel and
// timerCtx.cancel.
func (c *Context) cancel(gr *goroutine, removeFromParent bool, err string) error {
	if c.err != "" {
		return nil // already cancelled
	}
	c.err = err
	if e := gr.g.Close(c.done.ch); e != nil {
		return e
	}
	children := c.children
	c.children = nil
	// Go ranges over a map: a random order.
	for i := len(children) - 1; i > 0; i-- {
		j := int(c.m.Rand(uint32(i + 1)))
		children[i], children[j] = children[j], children[i]
	}
	for _, child := range children {
		if e := child.cancel(gr, false, err); e != nil {
			return e
		}
	}
	if removeFromParent && c.parent != nil {
		p := c.parent
		for i, x := range p.children {
			if x == c {
				p.children = append(p.children[:i], p.children[i+1:]...)
				break
			}
		}
	}
	if c.timer != nil {
		gr.g.StopTimer(c.timer)
		c.timer = nil
	}
	return nil
}

// context_cancel is a CancelFunc: cancel(true, Canceled).
func context_cancel(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	c := b.Receiver().(*Context)
	gr, err := caller(c.m, thread, b)
	if err != nil {
		return nil, err
	}
	if err := c.cancel(gr, true, errCanceled); err != nil {
		return nil, err
	}
	return starlark.None, nil
}

// context_expire is the deadline's AfterFunc: cancel(true,
// DeadlineExceeded), run in the timer's own goroutine.
func context_expire(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	c := b.Receiver().(*Context)
	gr, err := caller(c.m, thread, b)
	if err != nil {
		return nil, err
	}
	if err := c.cancel(gr, true, errDeadlineExceeded); err != nil {
		return nil, err
	}
	return starlark.None, nil
}

// context_done is Done: the channel closed when the context is cancelled;
// the nil channel for background.
func context_done(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return b.Receiver().(*Context).done, nil
}

// context_err is Err: None, "context canceled" or "context deadline
// exceeded".
func context_err(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	if e := b.Receiver().(*Context).err; e != "" {
		return starlark.String(e), nil
	}
	return starlark.None, nil
}

// context_deadline is Deadline → (t, ok).
func context_deadline(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	d, ok := b.Receiver().(*Context).deadlineOf()
	return starlark.Tuple{starlark.MakeInt64(d), starlark.Bool(ok)}, nil
}
