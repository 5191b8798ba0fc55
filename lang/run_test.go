package lang

import (
	"bytes"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/schedlab/schedlab/runtime"
)

// runSrc runs src as x.star with opts and returns stdout, stderr and the result.
func runSrc(t *testing.T, src string, opts Options) (string, string, *Result) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	opts.Stdout, opts.Stderr = &stdout, &stderr
	res := RunFile("x.star", []byte(src), opts)
	return stdout.String(), stderr.String(), res
}

// eventLog is a Tracer that keeps the events it is given as text.
type eventLog struct{ b strings.Builder }

func (l *eventLog) Event(ev *runtime.Event) {
	fmt.Fprintf(&l.b, "%d P%d G%d %v", ev.Time, ev.P, ev.G, ev.Kind)
	if ev.G2 != 0 {
		fmt.Fprintf(&l.b, " G%d", ev.G2)
	}
	if ev.Reason != "" {
		fmt.Fprintf(&l.b, " %q", ev.Reason)
	}
	l.b.WriteByte('\n')
}

func TestPrint(t *testing.T) {
	src := `print("hello", 1, [2], None)
print("a", "b", sep="-")
print()
print("ends with a newline\n")
spawn(lambda: print("from", current()))
sleep(1)
`
	want := "hello 1 [2] None\na-b\n\nends with a newline\n\nfrom <task G2 lambda>\n"

	stdout, stderr, res := runSrc(t, src, Options{})
	if res.ExitCode != 0 || stdout != want {
		t.Errorf("print: exit %d, stdout %q, want %q; stderr:\n%s", res.ExitCode, stdout, want, stderr)
	}

	// With a tracer, each print is also an EvPrint event.
	var log eventLog
	stdout, _, _ = runSrc(t, src, Options{Tracer: &log})
	if stdout != want {
		t.Errorf("print with a tracer: stdout %q, want %q", stdout, want)
	}
	for _, line := range []string{
		`0 P0 G1 Print "hello 1 [2] None"`,
		`0 P0 G1 Print "ends with a newline\n\n"`,
		`0 P0 G2 Print "from <task G2 lambda>"`,
	} {
		if !strings.Contains(log.b.String(), line+"\n") {
			t.Errorf("trace has no line %s:\n%s", line, log.b.String())
		}
	}

	// With PrintsInTrace, only the event.
	log = eventLog{}
	stdout, _, _ = runSrc(t, src, Options{Tracer: &log, PrintsInTrace: true})
	if stdout != "" {
		t.Errorf("PrintsInTrace: stdout %q, want none", stdout)
	}
	if !strings.Contains(log.b.String(), `Print "a-b"`) {
		t.Errorf("PrintsInTrace: no print event in the trace:\n%s", log.b.String())
	}
}

// TestPreemption: two goroutines that never block share one P only when
// preemption is on. Each reports its progress every 100 turns. With it
// off, sysmon's request waits for a call, and the loop has none that is
// one (list.append is Starlark's own): each goroutine is preempted only
// at done.send, after its loop.
func TestPreemption(t *testing.T) {
	src := `log = []
done = chan()
def spin(name):
    for i in range(1000):
        if i % 100 == 0:
            log.append(name)
    done.send(name)
spawn(spin, "a")
spawn(spin, "b")
done.recv()
done.recv()
print("".join(log))
print(stats()["preemptions"] > 0)
`
	// Without preemption: b (runnext) then a, each to the end.
	stdout, stderr, res := runSrc(t, src, Options{SliceSteps: 2000})
	if want := "bbbbbbbbbbaaaaaaaaaa\nTrue\n"; res.ExitCode != 0 || stdout != want {
		t.Errorf("preempt off: stdout %q, want %q; stderr:\n%s", stdout, want, stderr)
	}
	// With it, they take turns through the global queue.
	stdout, stderr, res = runSrc(t, src, Options{Preempt: true, SliceSteps: 2000})
	if res.ExitCode != 0 || !strings.Contains(stdout, "ba") || !strings.Contains(stdout, "ab") || !strings.HasSuffix(stdout, "True\n") {
		t.Errorf("preempt on: stdout %q, want interleaved a and b, and preemptions; stderr:\n%s", stdout, stderr)
	}
	// The same run is the same every time.
	again, _, _ := runSrc(t, src, Options{Preempt: true, SliceSteps: 2000})
	if again != stdout {
		t.Errorf("preempt on is not deterministic: %q then %q", stdout, again)
	}
}

// TestSliceInherited: goroutines that hand the P to each other through
// runnext share one time slice (execute with inheritTime), so a ping-pong
// whose every turn is far below the slice is still preempted once the
// turns add up to it; a slice that began afresh at every hand-off would
// never run out.
func TestSliceInherited(t *testing.T) {
	src := `ping = chan()
pong = chan()
done = chan()
def a():
    for i in range(40):
        for j in range(50):
            pass
        ping.send(i)
        pong.recv()
    done.send(1)
def b():
    for i in range(40):
        ping.recv()
        for j in range(50):
            pass
        pong.send(i)
spawn(a)
spawn(b)
done.recv()
print(stats()["preemptions"])
`
	for _, tc := range []struct {
		slice     uint64
		preempted bool
	}{
		{3000, true}, // a turn is a few hundred steps; 80 of them share a slice
		{1_000_000, false},
	} {
		stdout, stderr, res := runSrc(t, src, Options{Preempt: true, SliceSteps: tc.slice})
		if res.ExitCode != 0 {
			t.Fatalf("slice %d: exit %d; stderr:\n%s", tc.slice, res.ExitCode, stderr)
		}
		if got := stdout != "0\n"; got != tc.preempted {
			t.Errorf("slice %d: %s preemptions, want preempted=%v", tc.slice, strings.TrimSpace(stdout), tc.preempted)
		}
	}
}

// TestDeterminism runs a busy script on 4 Ps twice with a tracer and
// compares everything.
func TestDeterminism(t *testing.T) {
	src := `wg = waitgroup()
mu = mutex()
total = [0]
res = chan(100)
def worker(i):
    for j in range(3):
        work("%dus" % (50 + 10 * i))
        mu.lock()
        total[0] += 1
        mu.unlock()
        if j == 1:
            syscall("30us")
        _, v, _ = select(res.on_send(i), after("10us").on_recv())
    wg.done()
for i in range(16):
    wg.add(1)
    spawn(worker, i)
wg.wait()
print(total[0], len(res), now())
`
	var outs []string
	for range 2 {
		var log eventLog
		stdout, stderr, res := runSrc(t, src, Options{Procs: 4, Seed: 42, Preempt: true, Tracer: &log})
		if res.ExitCode != 0 {
			t.Fatalf("exit %d; stderr:\n%s", res.ExitCode, stderr)
		}
		outs = append(outs, stdout+stderr+log.b.String())
	}
	if outs[0] != outs[1] {
		t.Errorf("two runs with the same seed differ")
	}
	if !strings.HasPrefix(outs[0], "48 ") {
		t.Errorf("stdout %q, want 48 increments", strings.SplitN(outs[0], "\n", 2)[0])
	}
}

// TestNoHostGoroutineLeak: goroutines left blocked or runnable when the run
// ends leave no host goroutine behind.
func TestNoHostGoroutineLeak(t *testing.T) {
	before := goruntime.NumGoroutine()
	for range 20 {
		runSrc(t, "ch = chan()\nfor i in range(50):\n    spawn(ch.recv)\n    spawn(park)\nsleep(1)\n", Options{})
		runSrc(t, "chan().recv()\n", Options{})
		runSrc(t, "def f():\n    1 // 0\nspawn(f)\nchan().recv()\n", Options{})
	}
	var after int
	for range 100 {
		if after = goruntime.NumGoroutine(); after <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d host goroutines before, %d after", before, after)
}

// TestIterationDump: a goroutine blocked in `for v in ch` shows the for
// statement in the dump.
func TestIterationDump(t *testing.T) {
	src := `def consumer(ch):
    for v in ch:
        pass
spawn(consumer, chan())
sleep(1)
`
	_, stderr, res := runSrc(t, src, Options{})
	want := "schedlab: main returned with 1 leaked goroutine (of 1 still alive; --alive lists them all):\n\ngoroutine 2 [chan receive (leaked)]:\n  x.star:2:5: in consumer\ncreated by <toplevel> in goroutine 1\n  x.star:4:6\n"
	if res.ExitCode != 0 || stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
}

// TestBuiltinsOutsideARun: the builtins need a goroutine's thread.
func TestBuiltinsOutsideARun(t *testing.T) {
	thread := new(starlark.Thread)
	_, err := starlark.Call(thread, Builtins()["gosched"], nil, nil)
	if err == nil || err.Error() != "gosched: called outside a schedlab goroutine" {
		t.Errorf("gosched outside a run: %v", err)
	}
	if len(Builtins()) != len(builtins)+5 {
		t.Errorf("Builtins() has %d names, want %d (the builtins, the rand module and the four standard ones)", len(Builtins()), len(builtins)+5)
	}
	_, err = starlark.Call(thread, Builtins()["time"].(*starlarkstruct.Module).Members["now"], nil, nil)
	if err == nil || err.Error() != "time.now: called outside a schedlab goroutine" {
		t.Errorf("time.now outside a run: %v", err)
	}
	_, err = starlark.Call(thread, Builtins()["rand"].(*starlarkstruct.Module).Members["expo"], starlark.Tuple{starlark.MakeInt(1)}, nil)
	if err == nil || err.Error() != "rand.expo: called outside a run" {
		t.Errorf("rand.expo outside a run: %v", err)
	}
}

// TestResult checks Result.Run and the exit status of each outcome.
func TestResult(t *testing.T) {
	for _, tc := range []struct {
		src     string
		code    int
		outcome runtime.Outcome
	}{
		{"x = 1\n", 0, runtime.Exited},
		{"chan().recv()\n", 2, runtime.Deadlock},
		{"1 // 0\n", 2, runtime.Panicked},
		{"while True:\n    pass\n", 2, runtime.Limit},
		{"x = (\n", 1, 0},
	} {
		_, stderr, res := runSrc(t, tc.src, Options{MaxSteps: 1000})
		if res.ExitCode != tc.code {
			t.Errorf("%q: exit %d, want %d; stderr:\n%s", tc.src, res.ExitCode, tc.code, stderr)
		}
		if tc.code == 1 {
			if res.Run != nil {
				t.Errorf("%q: Run = %+v, want nil", tc.src, res.Run)
			}
			continue
		}
		if res.Run == nil || res.Run.Outcome != tc.outcome {
			t.Errorf("%q: Run = %+v, want outcome %v", tc.src, res.Run, tc.outcome)
		}
	}
}

// TestPerturb: with preemption perturbations, builtin calls are safe
// points; a seed still replays exactly, and some seed changes the order.
func TestPerturb(t *testing.T) {
	src := `log = []
done = chan()
def w(name):
    for i in range(5):
        log.append(name)
        now()
    done.send(None)
spawn(w, "a")
spawn(w, "b")
done.recv()
done.recv()
print("".join(log))
`
	plain, _, _ := runSrc(t, src, Options{})
	if plain != "bbbbbaaaaa\n" {
		t.Fatalf("unperturbed: %q", plain)
	}
	differs := false
	for seed := uint64(1); seed <= 10; seed++ {
		opts := Options{Seed: seed, Preempt: true, Perturb: runtime.Perturb{PreemptProb: 0.3}}
		out1, stderr, res := runSrc(t, src, opts)
		out2, _, _ := runSrc(t, src, opts)
		if res.ExitCode != 0 || out1 != out2 {
			t.Fatalf("seed %d: exit %d, %q then %q; stderr:\n%s", seed, res.ExitCode, out1, out2, stderr)
		}
		differs = differs || out1 != plain
	}
	if !differs {
		t.Errorf("no seed perturbed the order")
	}
}

// TestOnStart: the hook sees the Machine before the run, and again after.
func TestOnStart(t *testing.T) {
	var m *runtime.Machine
	var before int64 = -1
	_, _, res := runSrc(t, "sleep('1ms')\n", Options{OnStart: func(mm *runtime.Machine) {
		m = mm
		before = mm.Now()
	}})
	if res.ExitCode != 0 || m == nil || before != 0 || res.Run.Time != 1000000 {
		t.Errorf("OnStart: machine %v, time before %d, result %+v", m, before, res.Run)
	}
}

// A goroutine that returned leaves its Starlark thread, with the frames
// its calls grew, to the next spawn (threadput, threadget); a task of a
// finished goroutine still shows a dead goroutine with no stack, and a
// reused thread starts with no steps counted against its new goroutine.
func TestThreadReuse(t *testing.T) {
	var threads []*starlark.Thread
	var steps []uint64
	record := starlark.NewBuiltin("record", func(thread *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		threads = append(threads, thread)
		steps = append(steps, thread.Steps)
		return starlark.None, nil
	})
	src := `
def f(n):
    for _ in range(n):
        pass
    record()

tasks = []
for i in range(3):
    tasks.append(spawn(f, 10))
    sleep("1ms")
for t in tasks:
    print(t.state)
`
	stdout, stderr, res := runSrc(t, src, Options{Procs: 1, Preempt: true, Predeclared: starlark.StringDict{"record": record}})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, stderr)
	}
	if want := "dead\ndead\ndead\n"; stdout != want {
		t.Errorf("task states:\n%s\nwant:\n%s", stdout, want)
	}
	if len(threads) != 3 || threads[1] != threads[0] || threads[2] != threads[0] {
		t.Errorf("threads %p: want one thread, reused by each spawn", threads)
	}
	for i := 1; i < len(steps); i++ {
		if steps[i] != steps[0] {
			t.Errorf("steps at record(): %v, want the same for the same loop: a reused thread's count starts again from 0", steps)
			break
		}
	}
}

// TestPrintSyscall: under PrintSyscall, and under PrintAuto with a
// profile that charges a write, each printed line (print, println,
// printf) is a write(2) of the profile's write cost, between entersyscall
// and exitsyscall; under PrintFree, and under PrintAuto with a profile
// that charges none, printing takes no time and makes no system call.
// Broken if the write were charged under PrintFree, if PrintAuto did not
// follow the profile, or if println or printf skipped it.
func TestPrintSyscall(t *testing.T) {
	const src = `t0 = now()
print("a")
println("b")
printf("c%d\n", 1)
print(now() - t0)
`
	writes := runtime.ZeroCosts()
	writes.Dists[runtime.CostWrite] = runtime.Const(1500)
	for _, tc := range []struct {
		print    PrintMode
		costs    *runtime.Costs
		want     string
		syscalls int
	}{
		{PrintFree, writes, "a\nb\nc1\n0\n", 0},
		{PrintSyscall, writes, "a\nb\nc1\n4500\n", 4},
		{PrintAuto, writes, "a\nb\nc1\n4500\n", 4},
		{PrintAuto, nil, "a\nb\nc1\n0\n", 0},
		{PrintAuto, runtime.ZeroCosts(), "a\nb\nc1\n0\n", 0},
		{PrintSyscall, runtime.ZeroCosts(), "a\nb\nc1\n0\n", 4},
	} {
		var log eventLog
		stdout, stderr, res := runSrc(t, src, Options{Costs: tc.costs, Print: tc.print, Tracer: &log})
		if res.ExitCode != 0 || stdout != tc.want {
			t.Errorf("Print %d, write %v: exit %d, stdout %q, want %q; stderr:\n%s", tc.print, tc.costs != nil && tc.costs == writes, res.ExitCode, stdout, tc.want, stderr)
		}
		if n := strings.Count(log.b.String(), " GoSyscallBegin"); n != tc.syscalls {
			t.Errorf("Print %d, write %v: %d syscalls, want %d:\n%s", tc.print, tc.costs != nil && tc.costs == writes, n, tc.syscalls, log.b.String())
		}
	}
}

// A goroutine is allocated at every spawn: it must stay within the 256-byte
// size class (the next is 288), as docs/performance.md ("Lean goroutines")
// counts it.
func TestGoroutineSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(goroutine{}); n > 256 {
		t.Errorf("lang's goroutine is %d bytes: past the 256-byte size class, each spawn allocates 288", n)
	}
}
