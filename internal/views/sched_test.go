package views_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/schedlab/schedlab/internal/views"
	"github.com/schedlab/schedlab/lang"
)

// TestSchedValueMatchesViews holds a script's sched() to what the REPL's
// :runq and :ms and the playground's picture show (RunqOf): stepping a
// world one event at a time, the value lang.SchedValue makes of each
// snapshot, read back field by field, is RunqOf's of the same snapshot.
// The run passes through every thing an M does, so that each of
// MState.Activity's words is compared at least once, and through the
// network poller: goroutines parked in accept, read (with a deadline) and
// connect, an M blocked in netpoll.
func TestSchedValueMatchesViews(t *testing.T) {
	sess := lang.NewSession(lang.SessionOptions{Options: lang.Options{Procs: 3, Seed: 1, Preempt: true}})
	t.Cleanup(sess.Close)
	src := `def worker(ch, i):
    syscall("%dus" % (30 + 200 * i))
    gosched()
    work("50us")
    spawn(lambda: ch.recv())
    sleep("10us")
    ch.send(i)

ch = chan()
for i in range(4):
    spawn(worker, ch, i)

l = listen(":8080")
def handle(c):
    c.set_read_deadline(now() + 5000000)
    c.write(c.read())
    c.close()
def serve():
    for i in range(4):
        spawn(handle, l.accept())
spawn(serve)
t = traffic(":8080", every="300us", n=3)
spawn(lambda: dial(":8080").read())

`
	if res := sess.Exec("<stdin>", []byte(src), false); res.Err != nil || res.Stop != lang.Reached {
		t.Fatalf("exec: stop %v, err %v", res.Stop, res.Err)
	}
	seen := map[string]bool{}
	steps := 0
	for ; steps < 2000; steps++ {
		s := sess.Machine().Snapshot()
		want := views.RunqOf(s)
		got, err := runqOfValue(lang.SchedValue(s))
		if err != nil {
			t.Fatalf("step %d: %v", steps, err)
		}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(gj) != string(wj) {
			t.Fatalf("step %d: sched() and the views disagree:\nsched(): %s\nviews:   %s", steps, gj, wj)
		}
		for _, m := range want.Ms {
			seen[m.Activity] = true
		}
		for _, w := range want.Netpoll.Waiting {
			seen[w.Mode] = true
			if w.Deadline > 0 {
				seen["deadline"] = true
			}
		}
		if sess.Step(1) == lang.Idle {
			break
		}
	}
	t.Logf("%d steps, activities seen: %v", steps, seen)
	for _, a := range []string{"running", "syscall", "syscall, no P", "spinning", "schedule", "idle", "starting", "netpoll", "accept", "read", "connect", "deadline"} {
		if !seen[a] {
			t.Errorf("no M was %q in %d steps (seen: %v)", a, steps, seen)
		}
	}
}

// runqOfValue reads a sched() value back into the views' Runq, with the
// views' conventions: -1 for no P or M, 0 for no G, [] for an empty list.
func runqOfValue(v *starlarkstruct.Struct) (views.Runq, error) {
	var r reader
	q := views.Runq{
		Time:     r.int64(v, "time"),
		Global:   r.goids(v, "global_runq"),
		IdlePs:   r.ints(v, "idle_ps"),
		Spinning: []int{},
		Ms:       []views.M{},
	}
	for _, mv := range r.structs(v, "ms") {
		m := views.M{
			ID:       int(r.int64(mv, "id")),
			P:        int(r.idOr(mv, "p", -1)),
			SyscallP: int(r.idOr(mv, "syscall_p", -1)),
			Curg:     r.idOr(mv, "curg", 0),
			Spinning: r.bool(mv, "spinning"),
			Idle:     r.bool(mv, "idle"),
			Syscall:  r.bool(mv, "syscall"),
			Netpoll:  r.bool(mv, "netpoll"),
			Activity: r.str(mv, "activity"),
		}
		if m.Spinning {
			q.Spinning = append(q.Spinning, m.ID)
		}
		q.Ms = append(q.Ms, m)
	}
	if n := r.int64(v, "nmspinning"); int(n) != len(q.Spinning) {
		r.fail("nmspinning is %d, %d Ms spin", n, len(q.Spinning))
	}
	for _, pv := range r.structs(v, "ps") {
		q.Ps = append(q.Ps, views.P{
			ID:        int(r.int64(pv, "id")),
			Status:    r.str(pv, "status"),
			M:         int(r.idOr(pv, "m", -1)),
			Schedtick: uint32(r.int64(pv, "schedtick")),
			Curg:      r.idOr(pv, "curg", 0),
			Runnext:   r.idOr(pv, "runnext", 0),
			Ring:      r.goids(pv, "runq"),
			Timers:    int(r.int64(pv, "timers")),
		})
	}
	np := r.strct(v, "netpoll", "netpoll")
	q.Netpoll = views.Netpoll{
		Waiters: int(r.int64(np, "waiters")),
		M:       int(r.idOr(np, "m", -1)),
		Waiting: []views.Waiter{},
	}
	for _, x := range r.tuple(np, "waiting") {
		wv, ok := x.(*starlarkstruct.Struct)
		if !ok || wv.Constructor().String() != "waiter" {
			r.fail("netpoll.waiting holds %s", x)
			continue
		}
		q.Netpoll.Waiting = append(q.Netpoll.Waiting, views.Waiter{
			G:        r.int64(wv, "g"),
			FD:       r.int64(wv, "fd"),
			Kind:     r.str(wv, "kind"),
			Mode:     r.str(wv, "mode"),
			Deadline: r.idOr(wv, "deadline", 0),
		})
	}
	return q, r.err
}

// strct reads a field that holds a struct made by ctor.
func (r *reader) strct(v *starlarkstruct.Struct, name, ctor string) *starlarkstruct.Struct {
	st, ok := r.field(v, name).(*starlarkstruct.Struct)
	if !ok || st.Constructor().String() != ctor {
		r.fail("%s is not a %s struct", name, ctor)
		return starlarkstruct.FromStringDict(starlark.String(ctor), nil)
	}
	return st
}

// A reader reads fields of sched()'s structs, keeping the first error.
type reader struct{ err error }

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) field(v *starlarkstruct.Struct, name string) starlark.Value {
	x, err := v.Attr(name)
	if err != nil || x == nil {
		r.fail("no field %s in %s", name, v)
		return starlark.None
	}
	return x
}

func (r *reader) int64(v *starlarkstruct.Struct, name string) int64 {
	return r.asInt64(name, r.field(v, name))
}

func (r *reader) asInt64(name string, x starlark.Value) int64 {
	i, ok := x.(starlark.Int)
	n, exact := i.Int64()
	if !ok || !exact {
		r.fail("%s: got %s, want an int", name, x)
	}
	return n
}

// idOr reads an id that may be None, which reads as none.
func (r *reader) idOr(v *starlarkstruct.Struct, name string, none int64) int64 {
	if r.field(v, name) == starlark.None {
		return none
	}
	return r.int64(v, name)
}

func (r *reader) bool(v *starlarkstruct.Struct, name string) bool {
	b, ok := r.field(v, name).(starlark.Bool)
	if !ok {
		r.fail("%s is not a bool", name)
	}
	return bool(b)
}

func (r *reader) str(v *starlarkstruct.Struct, name string) string {
	s, ok := starlark.AsString(r.field(v, name))
	if !ok {
		r.fail("%s is not a string", name)
	}
	return s
}

func (r *reader) tuple(v *starlarkstruct.Struct, name string) starlark.Tuple {
	t, ok := r.field(v, name).(starlark.Tuple)
	if !ok {
		r.fail("%s is not a tuple", name)
	}
	return t
}

func (r *reader) goids(v *starlarkstruct.Struct, name string) []int64 {
	ids := []int64{}
	for _, x := range r.tuple(v, name) {
		ids = append(ids, r.asInt64(name, x))
	}
	return ids
}

func (r *reader) ints(v *starlarkstruct.Struct, name string) []int {
	ids := []int{}
	for _, id := range r.goids(v, name) {
		ids = append(ids, int(id))
	}
	return ids
}

func (r *reader) structs(v *starlarkstruct.Struct, name string) []*starlarkstruct.Struct {
	var out []*starlarkstruct.Struct
	for _, x := range r.tuple(v, name) {
		st, ok := x.(*starlarkstruct.Struct)
		if !ok {
			r.fail("%s holds a %s", name, x.Type())
			continue
		}
		if !slices.Contains([]string{"P", "M"}, st.Constructor().String()) {
			r.fail("%s holds a %s", name, st.Constructor())
		}
		out = append(out, st)
	}
	return out
}
