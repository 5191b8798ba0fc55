package lang

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

// testSession is a Session whose output and events are kept.
type testSession struct {
	*Session
	t      *testing.T
	out    bytes.Buffer // prints
	errs   bytes.Buffer // reports
	events []string
}

func newTestSession(t *testing.T, procs int) *testSession {
	t.Helper()
	ts := &testSession{t: t}
	ts.Session = NewSession(SessionOptions{
		Options: Options{Procs: procs, Seed: 1, Preempt: true, Stdout: &ts.out, Stderr: &ts.errs},
		OnEvent: func(ev *runtime.Event) {
			ts.events = append(ts.events, fmt.Sprintf("G%d %v", ev.G, ev.Kind))
		},
	})
	t.Cleanup(ts.Close)
	return ts
}

// exec runs src and fails the test unless it returns without error.
func (ts *testSession) exec(src string) starlark.Value {
	ts.t.Helper()
	res := ts.Exec("<stdin>", []byte(src), false)
	if res.Err != nil || res.Stop != Reached {
		ts.t.Fatalf("exec %q: stop %v, err %v; stderr:\n%s", src, res.Stop, res.Err, ts.errs.String())
	}
	return res.Value
}

// eval runs src and returns its value as a string.
func (ts *testSession) eval(src string) string {
	ts.t.Helper()
	v := ts.exec(src)
	if v == nil {
		return "<nil>"
	}
	return v.String()
}

func TestSessionStatements(t *testing.T) {
	ts := newTestSession(t, 1)
	if got := ts.eval("1 + 2"); got != "3" {
		t.Errorf("1 + 2 = %s, want 3", got)
	}
	if got := ts.eval("_ * 2"); got != "6" {
		t.Errorf("_ * 2 = %s, want 6 (the last value)", got)
	}
	ts.exec("x = [1]")
	ts.exec("def f(n):\n    x.append(n)\n    return len(x)\n\n")
	if got := ts.eval("f(5)"); got != "2" {
		t.Errorf("f(5) = %s, want 2", got)
	}
	if got := ts.eval("x = 3"); got != "<nil>" {
		t.Errorf("a statement has value %s, want none", got)
	}
	if got := ts.eval("print('hi')"); got != "None" || ts.out.String() != "hi\n" {
		t.Errorf("print: value %s, output %q", got, ts.out.String())
	}
	if got := ts.eval("current()"); got != "<task G1 main>" {
		t.Errorf("current() = %s", got)
	}
	if st := ts.Main().WaitReason(); st != WaitReasonInput {
		t.Errorf("G1 between statements waits for %q, want %q", st, WaitReasonInput)
	}
}

func TestSessionErrors(t *testing.T) {
	ts := newTestSession(t, 1)
	ts.exec("x = 1")
	events := len(ts.events)

	// Compile errors never wake G1.
	for _, src := range []string{"x +", "y + 1", "yield"} {
		res := ts.Exec("<stdin>", []byte(src), false)
		if res.Err == nil {
			t.Errorf("%q: no error", src)
		}
	}
	if len(ts.events) != events {
		t.Errorf("compile errors made %d events", len(ts.events)-events)
	}
	if got := FormatCompileError(ts.Exec("<stdin>", []byte("spawnn(1)"), false).Err); !strings.Contains(got, "did you mean spawn?") {
		t.Errorf("spelling hint missing: %q", got)
	}
	if got := FormatCompileError(ts.Exec("<stdin>", []byte("yield"), false).Err); !strings.Contains(got, "gosched()") {
		t.Errorf("yield hint missing: %q", got)
	}

	// A failing statement keeps what it assigned before failing.
	res := ts.Exec("<stdin>", []byte("x = 2; y = 1 // 0"), false)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "division by zero") {
		t.Errorf("1 // 0: err %v", res.Err)
	}
	if got := ts.eval("x"); got != "2" {
		t.Errorf("x = %s after the failing statement, want 2", got)
	}
	ts.exec("ch = chan(1)")
	ts.exec("ch.close()")
	if res := ts.Exec("<stdin>", []byte("ch.send(1)"), false); res.Err == nil || !strings.Contains(res.Err.Error(), "send on closed channel") {
		t.Errorf("send on closed: %v", res.Err)
	}
	if got := ts.eval("1 + 1"); got != "2" {
		t.Errorf("after errors: 1 + 1 = %s", got)
	}
}

func TestSessionBlocking(t *testing.T) {
	ts := newTestSession(t, 2)
	ts.exec("ch = chan()")
	ts.exec("def worker(n):\n    work('1ms')\n    ch.send(n * 10)\n\n")
	ts.exec("t = spawn(worker, 4)")
	if got := ts.eval("ch.recv()"); got != "40" {
		t.Errorf("ch.recv() = %s, want 40", got)
	}
	if got := ts.Machine().Now(); got != 1_000_000 {
		t.Errorf("time %d after 1ms of work, want 1000000", got)
	}
	ts.exec("sleep('2ms')")
	if got := ts.eval("now()"); got != "3000000" {
		t.Errorf("now() = %s", got)
	}
	if got := ts.eval("t.state"); got != `"dead"` {
		t.Errorf("worker state %s", got)
	}
}

func TestSessionStep(t *testing.T) {
	ts := newTestSession(t, 2)
	ts.exec("def worker():\n    work('1ms')\n\n")
	ts.exec("for i in range(3):\n    spawn(worker)\n\n")
	ts.events = nil
	want := [][]string{{"G0 MSpinning"}, {"G0 RunqSteal"}, {"G17 GoStart"}, {"G17 GoWork"}}
	for i, w := range want {
		ts.events = nil
		if stop := ts.Step(1); stop != Reached || !ts.Paused() {
			t.Fatalf("step %d: %v, paused %v", i+1, stop, ts.Paused())
		}
		if !slices.Equal(ts.events, w) {
			t.Fatalf("step %d: events %q, want %q", i+1, ts.events, w)
		}
	}
	if stop := ts.Run(); stop != Idle {
		t.Fatalf("run: %v", stop)
	}
	if ts.Paused() {
		t.Errorf("paused after :run")
	}
	if got := ts.Machine().Counters()[3]; got.Value != 4 {
		t.Errorf("%s = %d, want 4", got.Name, got.Value)
	}
	if stop := ts.Step(1); stop != Idle {
		t.Errorf("step with nothing to run: %v", stop)
	}
	// A statement after a paused step finishes the action first.
	ts.exec("spawn(worker)")
	ts.Step(1)
	if !ts.Paused() {
		t.Fatal("not paused")
	}
	if got := ts.eval("1"); got != "1" {
		t.Errorf("statement after a paused step: %s", got)
	}
	prev, res := ts.GOMAXPROCS(3)
	if prev != 2 || res.Err != nil || ts.Machine().GOMAXPROCS() != 3 {
		t.Errorf("GOMAXPROCS(3): prev %d, err %v, now %d", prev, res.Err, ts.Machine().GOMAXPROCS())
	}
}

// state is what must survive an undo: the scheduler's counters and state
// and the session's globals.
func (ts *testSession) state() string {
	var b strings.Builder
	for _, c := range ts.Machine().Counters() {
		fmt.Fprintf(&b, "%s=%d ", c.Name, c.Value)
	}
	fmt.Fprintf(&b, "\n%+v\n", *ts.Machine().Snapshot())
	for _, name := range ts.Globals().Keys() {
		if _, ok := builtins[name]; !ok {
			fmt.Fprintf(&b, "%s=%s ", name, ts.Globals()[name])
		}
	}
	return b.String()
}

func TestSessionDeadlockIsUndone(t *testing.T) {
	ts := newTestSession(t, 2)
	ts.exec("ch = chan()")
	ts.exec("log = []")
	ts.exec("def worker():\n    work('1ms')\n    log.append(now())\n    ch.send(1)\n\n")
	ts.exec("spawn(worker)")
	ts.Step(3)
	ts.exec("ch.recv()")
	ts.exec("spawn(worker); spawn(worker)")
	before := ts.state()

	res := ts.Exec("<stdin>", []byte("x = 1\nch.recv(); ch.recv(); ch.recv()"), true)
	if res.Stop != Undone {
		t.Fatalf("deadlock: stop %v, err %v", res.Stop, res.Err)
	}
	errs := ts.errs.String()
	for _, want := range []string{
		"fatal error: all goroutines are asleep - deadlock!",
		"goroutine 1 [chan receive]:\n  <stdin>:2:",
		"the statement is undone",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if after := ts.state(); after != before {
		t.Errorf("world after undo:\n%s\nwant:\n%s", after, before)
	}
	if got := ts.eval("len(log)"); got != "1" {
		t.Errorf("len(log) = %s after the undo, want 1", got)
	}
	if _, ok := ts.Globals()["x"]; ok {
		t.Errorf("x of the undone statement survived")
	}
}

func TestSessionGoroutinePanic(t *testing.T) {
	ts := newTestSession(t, 1)
	ts.exec("def bad():\n    return 1 // 0\n\n")
	ts.exec("spawn(bad)")
	if stop := ts.Run(); stop != Idle {
		t.Fatalf("run: %v", stop)
	}
	errs := ts.errs.String()
	for _, want := range []string{"panic: floored division by zero", "goroutine 2 [running]:", "in bad", "created by <expr> in goroutine 1", "the session goes on"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if got := ts.eval("2 + 2"); got != "4" {
		t.Errorf("after a panic: %s", got)
	}
}

// interruptSoon interrupts ts after d of wall time, for a statement that
// runs forever.
func interruptSoon(s *Session, d time.Duration) *time.Timer {
	return time.AfterFunc(d, s.Interrupt)
}

func TestSessionInterruptBusyLoop(t *testing.T) {
	ts := newTestSession(t, 1)
	ts.exec("n = 0")
	tm := interruptSoon(ts.Session, 50*time.Millisecond)
	defer tm.Stop()
	res := ts.Exec("<stdin>", []byte("while True:\n    n += 1\n\n"), false)
	if res.Stop != Interrupted || res.Err == nil || !strings.Contains(res.Err.Error(), "cancelled") {
		t.Fatalf("busy loop: stop %v, err %v", res.Stop, res.Err)
	}
	// The world goes on, with what the loop did.
	if got := ts.eval("n > 0"); got != "True" {
		t.Errorf("n > 0: %s", got)
	}
	if got := ts.eval("1 + 1"); got != "2" {
		t.Errorf("after the interrupt: %s", got)
	}
	// An undo replays the interrupted statement the same way.
	before := ts.state()
	if res := ts.Exec("<stdin>", []byte("chan().recv()"), false); res.Stop != Undone {
		t.Fatalf("deadlock: %v", res.Stop)
	}
	if after := ts.state(); after != before {
		t.Errorf("world after undo:\n%s\nwant:\n%s", after, before)
	}
}

func TestSessionInterruptBlocked(t *testing.T) {
	ts := newTestSession(t, 1)
	ts.exec("def spin():\n    while True:\n        pass\n\n")
	ts.exec("spawn(spin)")
	ts.exec("x = 1")
	tm := interruptSoon(ts.Session, 50*time.Millisecond)
	defer tm.Stop()
	res := ts.Exec("<stdin>", []byte("x = 2; chan().recv()"), false)
	if res.Stop != Undone {
		t.Fatalf("blocked: stop %v, err %v", res.Stop, res.Err)
	}
	if !strings.Contains(ts.errs.String(), "interrupted while goroutine 1 was blocked (chan receive)") {
		t.Errorf("stderr: %s", ts.errs.String())
	}
	if got := ts.eval("x"); got != "1" {
		t.Errorf("x = %s, want 1", got)
	}
	// :run never ends with a spinning goroutine; an interrupt stops it.
	tm2 := interruptSoon(ts.Session, 50*time.Millisecond)
	defer tm2.Stop()
	if stop := ts.Run(); stop != Interrupted {
		t.Errorf("run: %v", stop)
	}
}

func TestSessionChunk(t *testing.T) {
	ts := newTestSession(t, 1)
	res := ts.Exec("lib.star", []byte("def double(x):\n    return 2 * x\ny = double(4)\ny\n"), true)
	if res.Err != nil || res.Value != nil {
		t.Fatalf("chunk: %v %v", res.Err, res.Value)
	}
	if got := ts.eval("double(y)"); got != "16" {
		t.Errorf("double(y) = %s", got)
	}
	res = ts.Exec("lib.star", []byte("1 // 0\n"), true)
	var ee *starlark.EvalError
	if e, ok := res.Err.(*starlark.EvalError); !ok || !strings.Contains(e.Backtrace(), "lib.star:1:3") {
		t.Errorf("error in a chunk: %v (%T)", res.Err, ee)
	}
}

func TestSessionReset(t *testing.T) {
	ts := newTestSession(t, 2)
	ts.exec("x = 1")
	ts.exec("spawn(lambda: work('1ms'))")
	ts.Run()
	ts.Reset(7)
	if ts.Seed() != 7 || ts.Machine().Now() != 0 {
		t.Errorf("after reset: seed %d, time %d", ts.Seed(), ts.Machine().Now())
	}
	if res := ts.Exec("<stdin>", []byte("x"), false); res.Err == nil {
		t.Errorf("x survived the reset")
	}
}

func TestSessionReadyOfMainWaitingForInput(t *testing.T) {
	// ready() of G1 while it waits for input wakes it, and it waits again.
	ts := newTestSession(t, 1)
	ts.exec("me = current()")
	ts.exec("spawn(lambda: ready(me, 5))")
	if stop := ts.Run(); stop != Idle {
		t.Fatalf("run: %v; stderr:\n%s", stop, ts.errs.String())
	}
	if got := ts.eval("1 + 1"); got != "2" {
		t.Errorf("after ready(G1): %s", got)
	}
	if st := ts.Main().WaitReason(); st != WaitReasonInput {
		t.Errorf("G1 waits for %q", st)
	}
}

// TestSessionStepViews: after every Step(1) the world is where the event
// just printed left it: the goroutine it names is in the state the event
// says, and the scheduler's invariants hold but for a G taken off a queue
// and not yet running (a world paused halfway through the event's
// function, as right after entersyscall's GoSyscallBegin or goexit0's
// GoDestroy, showed the G still running).
func TestSessionStepViews(t *testing.T) {
	ts := newTestSession(t, 2)
	var last *runtime.Event
	ts.Session.opts.OnEvent = func(ev *runtime.Event) { e := *ev; last = &e }
	ts.exec(`def worker(ch):
    syscall("30us")
    gosched()
    work("50us")
    spawn(lambda: ch.recv())
    sleep("10us")
    ch.send(1)

`)
	ts.exec("ch = chan()\nfor i in range(3):\n    spawn(worker, ch)\n\n")
	status := func(goid int64) runtime.Status {
		for _, g := range ts.Machine().Goroutines() {
			if g.ID() == goid {
				return g.Status()
			}
		}
		return runtime.Gdead
	}
	want := map[runtime.EventKind]func(ev *runtime.Event) (int64, []runtime.Status){
		runtime.EvGoCreate:       func(ev *runtime.Event) (int64, []runtime.Status) { return ev.G2, []runtime.Status{runtime.Grunnable} },
		runtime.EvGoStart:        func(ev *runtime.Event) (int64, []runtime.Status) { return ev.G, []runtime.Status{runtime.Grunning} },
		runtime.EvGoBlock:        func(ev *runtime.Event) (int64, []runtime.Status) { return ev.G, []runtime.Status{runtime.Gwaiting} },
		runtime.EvGoUnblock:      func(ev *runtime.Event) (int64, []runtime.Status) { return ev.G2, []runtime.Status{runtime.Grunnable} },
		runtime.EvGoSched:        func(ev *runtime.Event) (int64, []runtime.Status) { return ev.G, []runtime.Status{runtime.Grunnable} },
		runtime.EvGoSyscallBegin: func(ev *runtime.Event) (int64, []runtime.Status) { return ev.G, []runtime.Status{runtime.Gsyscall} },
		runtime.EvGoSyscallEnd: func(ev *runtime.Event) (int64, []runtime.Status) {
			return ev.G, []runtime.Status{runtime.Grunning, runtime.Grunnable}
		},
		runtime.EvGoDestroy: func(ev *runtime.Event) (int64, []runtime.Status) { return ev.G, []runtime.Status{runtime.Gdead} },
	}
	seen := map[runtime.EventKind]bool{}
	for i := 0; i < 400; i++ {
		last = nil
		stop := ts.Step(1)
		if stop == Idle {
			break
		}
		if last == nil {
			t.Fatalf("step %d: no event", i)
		}
		// A G taken off a queue is on none until it runs: the REPL
		// shows it "about to run". A P that sysmon retakes (ProcSteal)
		// is idle and on no list until handoffp gives it to an M or
		// puts it on the idle list, as between Go's takeP and handoffp.
		if err := ts.Machine().CheckInvariants(); err != nil && last.Kind != runtime.EvRunqSteal && last.Kind != runtime.EvGlobalRunqGet && last.Kind != runtime.EvProcSteal {
			t.Errorf("after %v: %v", last.Kind, err)
		}
		if f := want[last.Kind]; f != nil {
			seen[last.Kind] = true
			goid, states := f(last)
			if got := status(goid); !slices.Contains(states, got) {
				t.Errorf("after %v of G%d (G2 %d): G%d is %s, want %v", last.Kind, last.G, last.G2, goid, got, states)
			}
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("no %v stepped over", k)
		}
	}
}
