// The builtins of the language: one literal table, as SL's library.go.
//
// Every builtin belongs to one run (bindBuiltins) and finds the goroutine
// that calls it as the G its run's Machine runs now (see goroutineOf),
// never through package state, and does what a Go program does by calling
// the engine's method on that goroutine's G. A builtin that
// may give up the processor (block, yield, sleep, work, a syscall) calls
// the engine inside gr.blocking, which accounts before the call and arms
// after it: the steps the goroutine ran so far are counted while it still
// holds its P, and its step budget is set again once it runs (see run.go).

package lang

import (
	"errors"
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

// A builtinFunc is the implementation of a builtin: a starlark.Builtin's
// function with the run it belongs to as its first argument.
type builtinFunc func(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

// builtins is the table of predeclared names. print overrides Starlark's
// own print.
var builtins = map[string]builtinFunc{
	"after":         after,
	"after_func":    afterFunc,
	"alloc":         alloc,
	"assert":        assert_,
	"atomic_int":    atomicInt,
	"background":    background,
	"cap":           cap_,
	"chan":          chan_,
	"cond":          cond,
	"current":       current,
	"dial":          dial,
	"gc":            gc,
	"gogc":          gogc,
	"gomaxprocs":    gomaxprocs,
	"gosched":       gosched,
	"is_error":      isError,
	"listen":        listen,
	"memlimit":      memlimit,
	"mutex":         mutex,
	"nil_chan":      nilChan,
	"now":           now,
	"once":          once,
	"param":         param,
	"park":          park,
	"print":         print_,
	"printf":        printf,
	"println":       println_,
	"ready":         ready,
	"release":       release,
	"retain":        retain,
	"rwmutex":       rwmutex,
	"sched":         sched,
	"select":        select_,
	"semaphore":     semaphore,
	"sleep":         sleep,
	"spawn":         spawn,
	"sprintf":       sprintf,
	"stats":         stats,
	"syscall":       syscall,
	"tick":          tick,
	"ticker":        ticker,
	"timer":         timer_,
	"traffic":       traffic,
	"waitgroup":     waitgroup,
	"with_cancel":   withCancel,
	"with_deadline": withDeadline,
	"with_timeout":  withTimeout,
	"work":          work,
}

// builtinsMore is how many names bindBuiltins adds to builtins: rand and
// the standard modules.
const builtinsMore = 5

// Builtins returns a new dict of the language's predeclared names (spawn,
// chan, select, ...), in addition to Starlark's universe. They belong to no
// run: those that need a goroutine report that they are called outside
// one. A run makes its own (run.bindBuiltins).
func Builtins() starlark.StringDict {
	return new(run).bindBuiltins(make(starlark.StringDict, len(builtins)+builtinsMore))
}

// bindBuiltins adds to d the predeclared names of run r, and returns d:
// each builtin is a closure over r, so that it finds its goroutine through
// r's Machine, a field, rather than through a thread-local map (see
// goroutineOf).
func (r *run) bindBuiltins(d starlark.StringDict) starlark.StringDict {
	for name, f := range builtins {
		d[name] = starlark.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return f(r, thread, b, args, kwargs)
		})
	}
	r.park = d["park"].(*starlark.Builtin)
	d["rand"] = r.randModule()
	for name, v := range r.stdModules() {
		d[name] = v
	}
	return d
}

// spawn(fn, *args, **kwargs) → task: go fn(args...). Mirrors newproc.
func spawn(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("%s: missing argument for fn", b.Name())
	}
	fn, ok := args[0].(starlark.Callable)
	if !ok {
		return nil, fmt.Errorf("%s: for parameter fn: got %s, want callable", b.Name(), args[0].Type())
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	// The interpreter may reuse its argument slices: keep copies.
	fargs := append(starlark.Tuple(nil), args[1:]...)
	fkwargs := append([]starlark.Tuple(nil), kwargs...)
	child := gr.run.newGoroutine(fn.Name(), fn)
	child.args, child.kwargs = fargs, fkwargs
	child.parent = gr.id
	if thread.CallStackDepth() > 1 {
		child.site = thread.CallFrame(1)
	}
	return gr.spawn(child, nil)
}

// spawn starts goroutine child, made by gr, running body (nil: child's
// function with its arguments), and returns its task.
func (gr *goroutine) spawn(child *goroutine, body func() error) (starlark.Value, error) {
	r := gr.run
	var f runtime.Func = spawned // no closure a spawn
	if body != nil || r.wrapGoroutine != nil {
		f = child.main(body)
		if r.wrapGoroutine != nil {
			f = r.wrapGoroutine(f)
		}
	}
	var ng *runtime.G
	var err error
	gr.blocking(func(g *runtime.G) {
		gr.spawning = child
		ng, err = g.GoData(f, child.name, child)
		gr.spawning = nil
	})
	if err != nil {
		child.forget()
		return nil, err
	}
	child.bind(ng)
	return &child.task, nil
}

// gosched(): runtime.Gosched. The caller goes to the global run queue,
// even when nothing else is runnable. Mirrors goschedImpl.
func gosched(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	gr.blocking((*runtime.G).Gosched)
	return starlark.None, nil
}

// park(reason="parked") → value: gopark until ready(task, value).
func park(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	reason, err := unpackReason(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	var v any
	gr.blocking(func(g *runtime.G) { v = g.Park(reason) })
	return toValue(v), nil
}

// ready(task, value=None): goready of a task blocked in park. It goes to
// runnext of the caller's P.
func ready(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	t, v, err := unpackReady(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	if !t.gr.alive() {
		return nil, fmt.Errorf("ready of goroutine %d, which is not parked (it is dead)", t.gr.id)
	}
	if err := gr.g.Ready(t.gr.g, v); err != nil {
		return nil, err
	}
	return starlark.None, nil
}

// current() → task: getg().
func current(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	return &gr.task, nil
}

// chan(cap=0) → channel: make(chan any, cap).
func chan_(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	size := 0
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "cap?", &size); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	m := gr.g.Machine()
	c, err := m.NewChan(size)
	if err != nil {
		return nil, err
	}
	return &Channel{ch: c, m: m}, nil
}

// select(*cases, default=False) → (index, value, ok): Go's select. index
// is the case chosen (-1 for default), value the value received (None for
// a send), ok false only for a receive from a closed channel. A case may be
// None, a case on the nil channel (never ready), and the cases may come as
// one list, select([c1, c2], default=True), since Starlark's grammar allows
// no keyword argument after *cases.
func select_(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	dflt := false
	if len(kwargs) > 0 {
		if err := unpackDefault(b, kwargs, &dflt); err != nil {
			return nil, err
		}
	}
	// A select of up to four cases needs no allocation for them: the
	// engine does not keep the slice.
	var buf [4]runtime.SelectCase
	cases := buf[:0]
	if len(args) > len(buf) {
		cases = make([]runtime.SelectCase, 0, len(args))
	}
	if len(args) == 1 {
		if l, ok := args[0].(*starlark.List); ok {
			args = make(starlark.Tuple, l.Len())
			for i := range args {
				args[i] = l.Index(i)
			}
		}
	}
	for i, arg := range args {
		if arg == starlark.None {
			cases = append(cases, runtime.SelectCase{Dir: runtime.SelectRecv})
			continue
		}
		sc, ok := arg.(*SelectCase)
		if !ok {
			return nil, fmt.Errorf("%s: argument %d: got %s, want a case made by ch.on_recv() or ch.on_send(v), or None", b.Name(), i+1, arg.Type())
		}
		cases = append(cases, runtime.SelectCase{Dir: sc.dir, Chan: sc.c.ch, Send: sc.v})
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	var i int
	var v any
	var ok bool
	gr.blocking(func(g *runtime.G) { i, v, ok, err = g.Select(cases, !dflt) })
	if err != nil {
		return nil, err
	}
	if i >= 0 && cases[i].Dir == runtime.SelectSend {
		ok = true // the send took place
	}
	return starlark.Tuple{starlark.MakeInt(i), toValue(v), starlark.Bool(ok)}, nil
}

// unpackReason unpacks park's reason="parked": directly when it is given
// as a string or not at all, through UnpackArgs (where it escapes to the
// heap) otherwise.
func unpackReason(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (string, error) {
	if len(kwargs) == 0 {
		switch len(args) {
		case 0:
			return "parked", nil
		case 1:
			if s, ok := args[0].(starlark.String); ok {
				return string(s), nil
			}
		}
	}
	reason := "parked"
	err := starlark.UnpackArgs(b.Name(), args, kwargs, "reason?", &reason)
	return reason, err
}

// unpackReady unpacks ready's task and value=None: directly when they are
// given by position, through UnpackArgs otherwise.
func unpackReady(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (*Task, starlark.Value, error) {
	if len(kwargs) == 0 && (len(args) == 1 || len(args) == 2) {
		if t, ok := args[0].(*Task); ok {
			if len(args) == 2 {
				return t, args[1], nil
			}
			return t, starlark.None, nil
		}
	}
	var t *Task
	var v starlark.Value = starlark.None
	err := starlark.UnpackArgs(b.Name(), args, kwargs, "task", &t, "value?", &v)
	return t, v, err
}

// unpackDuration unpacks the one argument d of sleep, work and syscall:
// directly in the common case of one positional argument, through
// UnpackArgs (where d escapes to the heap) otherwise.
func unpackDuration(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (duration, error) {
	var d duration
	if len(args) == 1 && len(kwargs) == 0 {
		if err := d.Unpack(args[0]); err != nil {
			return 0, fmt.Errorf("%s: for parameter d: %s", b.Name(), err)
		}
		return d, nil
	}
	var dp duration
	err := starlark.UnpackArgs(b.Name(), args, kwargs, "d", &dp)
	return dp, err
}

// unpackDefault unpacks select's one keyword argument, default. It is
// apart from select so that the flag escapes to the heap only when there
// are keyword arguments to unpack.
func unpackDefault(b *starlark.Builtin, kwargs []starlark.Tuple, dflt *bool) error {
	d := *dflt
	err := starlark.UnpackArgs(b.Name(), nil, kwargs, "default?", &d)
	*dflt = d
	return err
}

// sleep(d): time.Sleep on the virtual clock; d <= 0 returns at once, as
// timeSleep does.
func sleep(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r.smallDuration(thread, b, args, kwargs)
	d, err := unpackDuration(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	if d <= 0 {
		return starlark.None, nil
	}
	gr.blocking(func(g *runtime.G) { g.Sleep(int64(d)) })
	return starlark.None, nil
}

// work(d): burn d of CPU on the current P.
func work(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	gr, d, err := durationArg(r, thread, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	gr.blocking(func(g *runtime.G) { g.Work(d) })
	return starlark.None, nil
}

// syscall(d, timer=False): a blocking system call lasting d; with
// timer=True one that sleeps on a kernel timer (nanosleep), which returns
// as late as a timer fires.
func syscall(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return syscallTimer(r, thread, b, args, kwargs)
	}
	gr, d, err := durationArg(r, thread, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	gr.blocking(func(g *runtime.G) { g.Syscall(d) })
	return starlark.None, nil
}

// syscallTimer is syscall with keyword arguments: d and timer.
func syscallTimer(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r.smallDuration(thread, b, args, kwargs)
	var d duration
	var timer bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "d", &d, "timer?", &timer); err != nil {
		return nil, err
	}
	ns, err := d.nonNegative(b.Name())
	if err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	if timer {
		gr.blocking(func(g *runtime.G) { g.SyscallTimer(ns) })
	} else {
		gr.blocking(func(g *runtime.G) { g.Syscall(ns) })
	}
	return starlark.None, nil
}

// durationArg unpacks the one non-negative duration d of work and
// syscall.
func durationArg(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (*goroutine, int64, error) {
	r.smallDuration(thread, b, args, kwargs)
	d, err := unpackDuration(b, args, kwargs)
	if err != nil {
		return nil, 0, err
	}
	ns, err := d.nonNegative(b.Name())
	if err != nil {
		return nil, 0, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, 0, err
	}
	return gr, ns, nil
}

// now() → int: the virtual time in ns (time.Now).
func now(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	return starlark.MakeInt64(gr.g.Now()), nil
}

// after(d) → channel: time.After; the virtual time is sent on it d from now.
func after(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r.smallDuration(thread, b, args, kwargs)
	var d duration
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "d", &d); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	c := gr.g.After(int64(d))
	return &Channel{ch: c, m: gr.g.Machine()}, nil
}

// gomaxprocs(n=0) → int: runtime.GOMAXPROCS; n < 1 only asks.
func gomaxprocs(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	n := 0
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n?", &n); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	var prev int
	gr.blocking(func(g *runtime.G) { prev, err = g.GOMAXPROCS(n) })
	if err != nil {
		return nil, err
	}
	return starlark.MakeInt(prev), nil
}

// stats() → dict: the scheduler's counters, in Machine.Counters order,
// then "gc", the heap and the collector's (gcStats).
func stats(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	cs := gr.g.Machine().Counters()
	d := starlark.NewDict(len(cs) + 1)
	for _, c := range cs {
		if err := d.SetKey(starlark.String(c.Name), starlark.MakeInt64(c.Value)); err != nil {
			return nil, err
		}
	}
	if err := d.SetKey(starlark.String("gc"), gcStats(gr.g.Machine().GCStats())); err != nil {
		return nil, err
	}
	return d, nil
}

// mutex() → mutex: a new sync.Mutex.
func mutex(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	return &Mutex{mu: gr.g.Machine().NewMutex(), m: gr.g.Machine()}, nil
}

// waitgroup() → waitgroup: a new sync.WaitGroup.
func waitgroup(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	return &WaitGroup{wg: gr.g.Machine().NewWaitGroup(), m: gr.g.Machine()}, nil
}

// print(*args, sep=" "): the program's output, as Starlark's print writes
// it: the write(2) it is in Go, or free, as Options.Print says (writeOut).
func print_(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	sep := " "
	if err := starlark.UnpackArgs(b.Name(), nil, kwargs, "sep?", &sep); err != nil {
		return nil, err
	}
	var buf strings.Builder
	for i, v := range args {
		if i > 0 {
			buf.WriteString(sep)
		}
		if s, ok := starlark.AsString(v); ok {
			buf.WriteString(s)
		} else if b, ok := v.(starlark.Bytes); ok {
			buf.WriteString(string(b))
		} else {
			buf.WriteString(v.String())
		}
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	gr.run.print(gr, buf.String())
	return starlark.None, nil
}

// assert(cond, msg="assertion failed"): a panic in this goroutine unless
// cond is true.
func assert_(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cond starlark.Value
	msg := "assertion failed"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "cond", &cond, "msg?", &msg); err != nil {
		return nil, err
	}
	if !cond.Truth() {
		return nil, errors.New(msg)
	}
	return starlark.None, nil
}
