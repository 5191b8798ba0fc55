// Package time's timers: timer, ticker, tick and after_func, and nil_chan.
//
// A timer or ticker is a thin face over the engine's runtime.Timer, which
// follows Go 1.23's timer channels (runtime/timer.go): the channel, .c, is
// synchronous (len and cap 0), receive-only, gets the deadline as an int of
// virtual ns, and holds no stale value after stop or reset. after_func's
// function runs in a goroutine of its own, started by the timer when it
// fires, as time.AfterFunc's goFunc does.

package lang

import (
	"fmt"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

// timer(d) → timer: time.NewTimer(d).
func timer_(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r.smallDuration(thread, b, args, kwargs)
	var d duration
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "d", &d); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	return newTimer(gr.g.NewTimer(int64(d)), gr.g.Machine(), "timer", nil), nil
}

// ticker(d) → ticker: time.NewTicker(d); d must be positive.
func ticker(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r.smallDuration(thread, b, args, kwargs)
	var d duration
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "d", &d); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	tm, err := gr.g.NewTicker(int64(d))
	if err != nil {
		return nil, err
	}
	return newTimer(tm, gr.g.Machine(), "ticker", nil), nil
}

// tick(d) → chan: time.Tick(d); the nil channel for d <= 0.
func tick(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r.smallDuration(thread, b, args, kwargs)
	var d duration
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "d", &d); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	return &Channel{ch: gr.g.Tick(int64(d)), m: gr.g.Machine()}, nil
}

// after_func(d, fn, *args, **kwargs) → timer: time.AfterFunc(d, func() {
// fn(args...) }). Each time the timer fires, fn runs in a new goroutine,
// created by time.goFunc.
func afterFunc(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r.smallDuration(thread, b, args, kwargs)
	if len(args) < 2 {
		return nil, fmt.Errorf("%s: got %d arguments, want at least 2 (d, fn)", b.Name(), len(args))
	}
	var d duration
	if err := d.Unpack(args[0]); err != nil {
		return nil, fmt.Errorf("%s: for parameter d: %s", b.Name(), err)
	}
	fn, ok := args[1].(starlark.Callable)
	if !ok {
		return nil, fmt.Errorf("%s: for parameter fn: got %s, want callable", b.Name(), args[1].Type())
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	fargs := append(starlark.Tuple(nil), args[2:]...)
	fkwargs := append([]starlark.Tuple(nil), kwargs...)
	site := starlark.CallFrame{Name: "time.goFunc"}
	if thread.CallStackDepth() > 1 {
		site.Pos = thread.CallFrame(1).Pos
	}
	parent := gr.id
	start := func() (runtime.Func, string, func(*runtime.G)) {
		child := r.newGoroutine(fn.Name(), fn)
		child.args, child.kwargs = fargs, fkwargs
		child.parent, child.site = parent, site
		f := child.main(nil)
		if r.wrapGoroutine != nil {
			f = r.wrapGoroutine(f)
		}
		return f, child.name, child.bind
	}
	held := append(starlark.Tuple{fn}, fargs...)
	for _, kv := range fkwargs {
		held = append(held, kv)
	}
	tm := gr.g.AfterFunc(int64(d), held, start)
	return newTimer(tm, gr.g.Machine(), "timer", held), nil
}

// nil_chan() → chan: Go's nil channel (var ch chan any). A send or receive
// blocks forever, a select case on it is never ready, close panics.
func nilChan(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	return &Channel{m: gr.g.Machine()}, nil
}

// A Timer is a time.Timer (type "timer", from timer and after_func) or a
// time.Ticker (type "ticker").
type Timer struct {
	tm    *runtime.Timer
	m     *runtime.Machine
	kind  string   // "timer" or "ticker"
	c     *Channel // .c; nil for after_func's timer
	held  starlark.Tuple
	bound [len(timerMethods)]*starlark.Builtin
}

var (
	_ starlark.HasAttrs = (*Timer)(nil)
	_ leakHolder        = (*Timer)(nil)
)

var timerMethods = [...]method{
	{"reset", starlark.NewBuiltin("reset", timer_reset)},
	{"stop", starlark.NewBuiltin("stop", timer_stop)},
}

var timerAttrNames = []string{"active", "c", "reset", "stop"} // sorted

func newTimer(tm *runtime.Timer, m *runtime.Machine, kind string, held starlark.Tuple) *Timer {
	t := &Timer{tm: tm, m: m, kind: kind, held: held}
	if c := tm.C(); c != nil {
		t.c = &Channel{ch: c, m: m}
	}
	return t
}

func (t *Timer) String() string {
	if t.tm.Active() {
		return fmt.Sprintf("<%s active when=%d>", t.kind, t.tm.When())
	}
	return fmt.Sprintf("<%s stopped>", t.kind)
}
func (t *Timer) Type() string          { return t.kind }
func (t *Timer) Freeze()               {}
func (t *Timer) Truth() starlark.Bool  { return starlark.True }
func (t *Timer) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: %s", t.kind) }
func (t *Timer) AttrNames() []string   { return timerAttrNames }
func (t *Timer) leakObjects() []any    { return nil }
func (t *Timer) leakValues() []starlark.Value {
	vs := []starlark.Value{t.held}
	if t.c != nil {
		vs = append(vs, t.c)
	}
	return vs
}

// Attr returns c (the channel; None for after_func's timer), active
// (armed: not fired, not stopped) or a method.
func (t *Timer) Attr(name string) (starlark.Value, error) {
	switch name {
	case "c":
		if t.c == nil {
			return starlark.None, nil
		}
		return t.c, nil
	case "active":
		return starlark.Bool(t.tm.Active()), nil
	}
	return builtinAttr(t, name, timerMethods[:], t.bound[:])
}

// timer_stop is Timer.Stop → bool, or Ticker.Stop → None.
func timer_stop(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	t := b.Receiver().(*Timer)
	gr, err := caller(t.m, thread, b)
	if err != nil {
		return nil, err
	}
	stopped := gr.g.StopTimer(t.tm)
	if t.kind == "ticker" {
		return starlark.None, nil
	}
	return starlark.Bool(stopped), nil
}

// timer_reset is Timer.Reset(d) → bool, or Ticker.Reset(d) → None, which
// panics for d <= 0 as Go's does.
func timer_reset(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var d duration
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "d", &d); err != nil {
		return nil, err
	}
	t := b.Receiver().(*Timer)
	gr, err := caller(t.m, thread, b)
	if err != nil {
		return nil, err
	}
	if t.kind == "ticker" {
		if err := gr.g.ResetTicker(t.tm, int64(d)); err != nil {
			return nil, err
		}
		return starlark.None, nil
	}
	return starlark.Bool(gr.g.ResetTimer(t.tm, int64(d), 0)), nil
}
