package lang

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

var dumpHeader = regexp.MustCompile(`(?m)^goroutine (\d+) \[(.*)\]:$`)

// leakedIn returns the ids of the goroutines a report shows as leaked, and
// of all those it shows.
func leakedIn(stderr string) (leaked, all []int64) {
	for _, m := range dumpHeader.FindAllStringSubmatch(stderr, -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		all = append(all, id)
		if strings.HasSuffix(m[2], " (leaked)") {
			leaked = append(leaked, id)
		}
	}
	return leaked, all
}

// TestLeaks: goroutines blocked on what nothing that can still run can
// reach are marked leaked at the end of the run; look-alikes are not.
func TestLeaks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		src    string
		leaked []int64 // ids marked leaked
		alive  []int64 // ids in the report
		code   int
		header string // a line the report must have
	}{
		// Real leaks.
		{
			name: "send nobody receives",
			src: `def fetch(result):
    sleep("10ms")
    result.send("data")
def fetch_with_timeout():
    result = chan()
    spawn(fetch, result)
    i, v, ok = select(result.on_recv(), after("5ms").on_recv())
    return i
fetch_with_timeout()
sleep("20ms")
`,
			leaked: []int64{2}, alive: []int64{2},
			header: "goroutine 2 [chan send (leaked)]:",
		},
		{
			name:   "channel made for the spawn only",
			src:    "def consumer(ch):\n    for v in ch:\n        pass\nspawn(consumer, chan())\nsleep(1)\n",
			leaked: []int64{2}, alive: []int64{2},
			header: "goroutine 2 [chan receive (leaked)]:",
		},
		{
			name: "mutex held by nobody reachable",
			src: `def f():
    mu = mutex()
    mu.lock()
    spawn(mu.lock)
    gosched()
f()
`,
			leaked: []int64{2}, alive: []int64{2},
			header: "goroutine 2 [sync.Mutex.Lock (leaked)]:",
		},
		{
			name: "waitgroup nobody will finish",
			src: `def f():
    wg = waitgroup()
    wg.add(1)
    spawn(wg.wait)
    gosched()
f()
`,
			leaked: []int64{2}, alive: []int64{2},
			header: "goroutine 2 [sync.WaitGroup.Wait (leaked)]:",
		},
		{
			name:   "select with no cases",
			src:    "spawn(select)\ngosched()\n",
			leaked: []int64{2}, alive: []int64{2},
			header: "goroutine 2 [select (no cases) (leaked)]:",
		},
		{
			name:   "parked, and nobody holds the task",
			src:    "spawn(park, 'forgotten')\ngosched()\n",
			leaked: []int64{2}, alive: []int64{2},
			header: "goroutine 2 [forgotten (leaked)]:",
		},
		{
			name: "a cycle of two blocked goroutines",
			src: `def a(mine, theirs):
    mine.recv()
    theirs.send(1)
def f():
    x, y = chan(), chan()
    spawn(a, x, y)
    spawn(a, y, x)
f()
sleep(1)
`,
			leaked: []int64{2, 3}, alive: []int64{2, 3},
		},
		{
			name: "select over two unreachable channels",
			src: `def w(a, b):
    select(a.on_recv(), b.on_send(1))
spawn(w, chan(), chan(1 - 1))
sleep(1)
`,
			leaked: []int64{2}, alive: []int64{2},
			header: "goroutine 2 [select (leaked)]:",
		},
		{
			name: "the reachable one stays, the unreachable one leaks",
			src: `keep = chan()
def f():
    spawn(keep.recv)
    spawn(chan().recv)
f()
sleep(1)
`,
			leaked: []int64{3}, alive: []int64{2, 3},
			header: "schedlab: main returned with 2 goroutines still alive (1 leaked):",
		},
		{
			name: "deadlock: the goroutine on a global channel is not leaked",
			src: `a = chan()
def w():
    c = chan()
    c.recv()
spawn(w)
a.recv()
`,
			leaked: []int64{2}, alive: []int64{1, 2}, code: 2,
			header: "goroutine 1 [chan receive]:",
		},
		{
			name: "deadlock inside a function: every goroutine leaked",
			src: `def main():
    c = chan()
    spawn(c.recv)
    c2 = chan()
    c2.recv()
main()
`,
			leaked: []int64{1, 2}, alive: []int64{1, 2}, code: 2,
			header: "goroutine 1 [chan receive (leaked)]:",
		},

		// Look-alikes that are not leaks.
		{
			name:  "channel held by a global",
			src:   "ch = chan()\nspawn(ch.recv)\nsleep(1)\n",
			alive: []int64{2},
		},
		{
			name: "channel held by a sleeping goroutine that will send later",
			src: `def sender(ch):
    sleep("1s")
    ch.send(1)
def f():
    ch = chan()
    spawn(ch.recv)
    spawn(sender, ch)
f()
sleep(1)
`,
			alive: []int64{2, 3},
		},
		{
			name: "channel captured by a closure of a sleeping goroutine",
			src: `def holder():
    ch = chan()
    spawn(lambda: ch.recv())
    sleep("1s")
    ch.send(1)
spawn(holder)
sleep(1)
`,
			alive: []int64{2, 3},
		},
		{
			name: "channel held by a goroutine that has not started",
			src: `def sender(ch):
    ch.send(1)
def f():
    ch = chan()
    spawn(ch.recv)
    sleep(1)
    spawn(sender, ch)
f()
`,
			alive: []int64{2, 3},
		},
		{
			name: "channel held in a keyword argument of a goroutine that has not started",
			src: `def sender(ch=None):
    ch.send(1)
def f():
    ch = chan()
    spawn(ch.recv)
    sleep(1)
    spawn(sender, ch=ch)
f()
`,
			alive: []int64{2, 3},
		},
		{
			name: "channel sent inside another channel's buffer",
			src: `box = chan(1)
def f():
    ch = chan()
    spawn(ch.recv)
    box.send([ch])
f()
sleep(1)
`,
			alive: []int64{2},
		},
		{
			name: "channel in containers held by a global",
			src: `g = [None]
def f():
    a, b, c, d = chan(), chan(), chan(), chan()
    for x in [a, b, c, d]:
        spawn(x.recv)
    g[0] = ({"k": [a]}, set([b]), (c,), {d: 1})
f()
sleep(1)
`,
			alive: []int64{2, 3, 4, 5},
		},
		{
			name: "channel as a default and a bound method held by a sleeper",
			src: `def f():
    a, b = chan(), chan()
    spawn(a.recv)
    spawn(b.recv)
    def later(ch=a):
        ch.send(1)
    spawn(sleeper, later, b.send)
def sleeper(fn, send):
    sleep("1s")
    fn()
    send(1)
f()
sleep(1)
`,
			alive: []int64{2, 3, 4},
		},
		{
			name: "a select case held by a sleeper",
			src: `def sleeper(case):
    sleep("1s")
    select(case)
def f():
    ch = chan()
    spawn(ch.recv)
    spawn(sleeper, ch.on_send(1))
f()
sleep(1)
`,
			alive: []int64{2, 3},
		},
		{
			name: "chain: a runnable goroutine reaches one whose frame reaches the next",
			src: `def first(c1):
    c1.recv()
def second(c2, c1):
    c2.recv()
    c1.send(1)
def f():
    c1, c2 = chan(), chan()
    spawn(first, c1)
    spawn(second, c2, c1)
    sleep(1)
    spawn(c2.send, 0)
f()
`,
			alive: []int64{2, 3, 4},
		},
		{
			name:  "parked, with the task kept in a global",
			src:   "tasks = [spawn(park)]\ngosched()\n",
			alive: []int64{2},
		},
		{
			name:  "parked with a reason that looks like select",
			src:   "tasks = [spawn(park, 'select (no cases)')]\ngosched()\n",
			alive: []int64{2},
		},
		{
			name:  "mutex held by a global",
			src:   "mu = mutex()\nmu.lock()\nspawn(mu.lock)\ngosched()\n",
			alive: []int64{2},
		},
		{
			name:  "waiting on a timer that has not fired",
			src:   "spawn(lambda: after('1s').recv())\nspawn(lambda: select(after('2s').on_recv()))\nsleep(1)\n",
			alive: []int64{2, 3},
		},
		{
			name: "waiting on a timer that fired and was taken",
			src: `def f():
    t = after(5)
    spawn(t.recv)
    spawn(t.recv)
    sleep(10)
f()
`,
			leaked: []int64{2}, alive: []int64{2}, // G3 was first in line
		},
		{
			name:  "a sleeping goroutine is never leaked",
			src:   "spawn(sleep, '1s')\ngosched()\n",
			alive: []int64{2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, res := runSrc(t, tc.src, Options{Alive: true})
			if res.ExitCode != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", res.ExitCode, tc.code, stderr)
			}
			leaked, alive := leakedIn(stderr)
			if !slices.Equal(leaked, tc.leaked) || !slices.Equal(alive, tc.alive) {
				t.Errorf("leaked %v of %v, want %v of %v; stderr:\n%s", leaked, alive, tc.leaked, tc.alive, stderr)
			}
			if tc.header != "" && !strings.Contains(stderr, tc.header+"\n") {
				t.Errorf("no line %q in stderr:\n%s", tc.header, stderr)
			}
		})
	}
}

// TestLeakCapturedLocal: a local captured by a closure is a cell in its
// frame, which the walk must see through (cellValue).
func TestLeakCapturedLocal(t *testing.T) {
	called := false
	var fn *starlark.Function
	src := `def f():
    ch = chan()
    g = lambda: ch
    probe()
f()
`
	_, stderr, res := runSrc(t, src, Options{Predeclared: starlark.StringDict{
		"probe": starlark.NewBuiltin("probe", func(thread *starlark.Thread, b *starlark.Builtin, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			called = true
			fr := thread.DebugFrame(1)
			fn = fr.Callable().(*starlark.Function)
			found := false
			for j := range fr.NumLocals() {
				bind, v := fr.Local(j)
				if bind.Name == "ch" {
					x, ok := cellValue(v)
					if _, isChan := x.(*Channel); !ok || !isChan {
						t.Errorf("local ch is %T %v; cellValue gives %v, %v", v, v, x, ok)
					}
					found = true
				}
			}
			if !found {
				t.Error("no local ch")
			}
			return starlark.None, nil
		}),
	}})
	if res.ExitCode != 0 || !called || fn == nil {
		t.Fatalf("exit %d; stderr:\n%s", res.ExitCode, stderr)
	}
	if _, ok := cellValue(starlark.String("x")); ok {
		t.Error("cellValue of a string succeeded")
	}
}

// TestFindLeaksDoesNotMark: FindLeaks only reports; MarkLeaks marks, and
// extra roots keep a goroutine alive.
func TestFindLeaksDoesNotMark(t *testing.T) {
	var m *runtime.Machine
	var kept starlark.Value
	src := `def f():
    ch = chan()
    spawn(ch.recv)
    keep(ch)
f()
spawn(chan().recv)
sleep(1)
`
	opts := Options{
		OnStart: func(mm *runtime.Machine) { m = mm },
		Predeclared: starlark.StringDict{
			"keep": starlark.NewBuiltin("keep", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				kept = args[0]
				return starlark.None, nil
			}),
		},
	}
	// Run the script by hand so that the Machine is not closed yet.
	r := newRun(opts)
	mod, err := r.compileMain("x.star", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m = runtime.NewMachine(runtime.Config{Procs: 1})
	r.m = m
	defer m.Close()
	main := r.newGoroutine("main", nil)
	m.Start(main.main(func() error {
		g, err := mod.prog.Init(main.thread, r.names)
		mod.globals, mod.err, mod.state = g, err, moduleLoaded
		return err
	}))
	if res := m.Run(); res.Outcome != runtime.Exited {
		t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
	}
	ids := func(gs []*runtime.G) []int64 {
		var s []int64
		for _, g := range gs {
			s = append(s, g.ID())
		}
		return s
	}
	if got := ids(FindLeaks(m)); !slices.Equal(got, []int64{2, 3}) {
		t.Errorf("FindLeaks = %v, want [2 3]", got)
	}
	if got := ids(FindLeaks(m, starlark.StringDict{"kept": kept})); !slices.Equal(got, []int64{3}) {
		t.Errorf("FindLeaks with ch as a root = %v, want [3]", got)
	}
	for _, g := range m.Goroutines() {
		if g.Status() != runtime.Gwaiting {
			t.Errorf("G%d is %v after FindLeaks, want waiting", g.ID(), g.Status())
		}
	}
	if got := ids(MarkLeaks(m, starlark.StringDict{"kept": kept})); !slices.Equal(got, []int64{3}) {
		t.Errorf("MarkLeaks = %v, want [3]", got)
	}
	for _, g := range m.Goroutines() {
		want := runtime.Gwaiting
		if g.ID() == 3 {
			want = runtime.Gleaked
		}
		if g.Status() != want {
			t.Errorf("G%d is %v, want %v", g.ID(), g.Status(), want)
		}
	}
	if err := m.CheckInvariants(); err != nil {
		t.Error(err)
	}
	if got := FindLeaks(runtime.NewMachine(runtime.Config{})); got != nil {
		t.Errorf("FindLeaks of a Machine without goroutines = %v", got)
	}
}

// TestLeakDeepValue: a deeply nested value does not overflow the walk.
func TestLeakDeepValue(t *testing.T) {
	src := `def f():
    ch = chan()
    spawn(ch.recv)
    x = [ch]
    for i in range(200000):
        x = [x, (x,)]
    spawn(sleep, "1s", )
    return x
keep = f()
sleep(1)
`
	_, stderr, res := runSrc(t, src, Options{Alive: true})
	leaked, alive := leakedIn(stderr)
	if res.ExitCode != 0 || len(leaked) != 0 || !slices.Equal(alive, []int64{2, 3}) {
		t.Errorf("exit %d, leaked %v of %v; stderr:\n%s", res.ExitCode, leaked, alive, stderr)
	}
}

// TestWriteLeakDump: the dump of a run that goes on shows the leaks it
// finds without marking them.
func TestWriteLeakDump(t *testing.T) {
	r := newRun(Options{})
	mod, err := r.compileMain("x.star", []byte("keep = chan()\nspawn(keep.recv)\nspawn(chan().recv)\nsleep(1)\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := runtime.NewMachine(runtime.Config{})
	r.m = m
	defer m.Close()
	main := r.newGoroutine("main", nil)
	m.Start(main.main(func() error {
		g, err := mod.prog.Init(main.thread, r.names)
		mod.globals, mod.err, mod.state = g, err, moduleLoaded
		return err
	}))
	m.Run()
	var b strings.Builder
	WriteLeakDump(&b, m)
	want := "goroutine 2 [chan receive]:\n  <builtin>: in recv\ncreated by <toplevel> in goroutine 1\n  x.star:2:6\n\n" +
		"goroutine 3 [chan receive (leaked)]:\n  <builtin>: in recv\ncreated by <toplevel> in goroutine 1\n  x.star:3:6\n"
	if b.String() != want {
		t.Errorf("dump:\n%s\nwant:\n%s", b.String(), want)
	}
	for _, g := range m.Goroutines() {
		if g.Status() != runtime.Gwaiting {
			t.Errorf("G%d is %v, want waiting: WriteLeakDump marked it", g.ID(), g.Status())
		}
	}
}
