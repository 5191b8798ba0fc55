package lang

// Starlark-level benchmarks (issue 7, docs/performance.md): each runs a
// script through RunFile, the way `schedlab run` does, with two extra
// predeclared names:
//
//   - N, the benchmark's b.N, so that one op is one of what the script
//     repeats (a gosched, a builtin call, a goroutine's life);
//   - reset_timer(), which calls b.ResetTimer from inside the run, so that
//     compiling the script and spawning the goroutines is not timed.
//
// bench/compare runs the same scripts' peers (Python generators and
// asyncio, Lua coroutines) and prints the ratios against the issue's
// targets.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/internal/cputime"
	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace"
)

// A cpuClock reports the CPU time per op as the metric cpu-ns/op, beside
// the wall time of ns/op. On a shared machine, wall time also counts the
// time the benchmark waited for a CPU that another process held; CPU time
// does not. The Python and Lua peers in bench/ report CPU time too.
type cpuClock struct{ start time.Duration }

func (c *cpuClock) reset() { c.start = cputime.Process() }

func (c *cpuClock) report(b *testing.B) {
	if b.N < 1 {
		return // inside b.Loop, whose ops the script does not count
	}
	b.ReportMetric(float64(cputime.Process()-c.start)/float64(b.N), "cpu-ns/op")
}

// benchRun runs src with N = b.N and reset_timer predeclared, plus extra,
// and fails b unless main returns. It reports cpu-ns/op from the last
// reset_timer (or from the start) to the end of the run.
func benchRun(b *testing.B, src string, opts Options, extra starlark.StringDict) *Result {
	b.Helper()
	var clock cpuClock
	clock.reset()
	pre := starlark.StringDict{
		"N": starlark.MakeInt(b.N),
		"reset_timer": starlark.NewBuiltin("reset_timer", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			b.ResetTimer()
			clock.reset()
			return starlark.None, nil
		}),
	}
	for k, v := range extra {
		pre[k] = v
	}
	opts.Predeclared = pre
	var stderr bytes.Buffer
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	opts.Stderr = &stderr
	res := RunFile("bench.star", []byte(src), opts)
	if res.ExitCode != 0 {
		b.Fatalf("exit %d; stderr:\n%s", res.ExitCode, stderr.String())
	}
	clock.report(b)
	return res
}

// benchOptions are the command's defaults (`schedlab run` with no flags):
// one P, preemption on, the default costs profile.
func benchOptions() Options {
	return Options{Procs: 1, Preempt: true, Costs: runtime.DefaultCosts()}
}

// goschedSrc is the round robin that bench/ repeats with Python generators,
// asyncio and Lua coroutines: G goroutines share N gosched calls; each
// goroutine's loop is `for _ in range(n): gosched()`. One op is one
// gosched: a trip through the global run queue and a switch to the next
// goroutine.
const goschedSrc = `
wg = waitgroup()

def worker(n):
    for _ in range(n):
        gosched()
    wg.done()

wg.add(G)
for i in range(G):
    spawn(worker, N // G + (1 if i < N % G else 0))
reset_timer()
wg.wait()
`

// BenchmarkGosched is the Starlark gosched() round trip among 1,000 (and
// 100,000) goroutines, with tracing off (issue 7: at most 2.3x a Python
// generator round robin, at least 5x faster than asyncio sleep(0);
// bench/python_gen.py, bench/python_asyncio.py).
func BenchmarkGosched(b *testing.B) {
	for _, g := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			b.ReportAllocs()
			benchRun(b, goschedSrc, benchOptions(), starlark.StringDict{"G": starlark.MakeInt(g)})
		})
	}
}

// BenchmarkGoschedTracer is BenchmarkGosched among 1,000 goroutines with
// no Tracer in Options (tracer=nil, the default run) and with one that
// does nothing (tracer=noop): what the event stream costs once a trace is
// on, before any writer.
func BenchmarkGoschedTracer(b *testing.B) {
	for _, tr := range []struct {
		name   string
		tracer runtime.Tracer
	}{{"nil", nil}, {"noop", runtime.TracerFunc(func(*runtime.Event) {})}} {
		b.Run("tracer="+tr.name, func(b *testing.B) {
			opts := benchOptions()
			opts.Tracer = tr.tracer
			b.ReportAllocs()
			benchRun(b, goschedSrc, opts, starlark.StringDict{"G": starlark.MakeInt(1000)})
		})
	}
}

// errStopped ends a worker of BenchmarkGoschedFloor whose coroutine is
// stopped.
var errStopped = errors.New("stopped")

// BenchmarkGoschedFloor is the floor under BenchmarkGosched: the same
// Starlark worker functions, each on its own Starlark thread in its own
// iter.Pull coroutine, resumed in round robin by a Go loop, with a
// gosched() builtin that only yields the coroutine. No engine, no
// bookkeeping: the interpreter's loop and call, plus the bare switch (the
// issue's "Starlark yield over iter.Pull", ~250 ns).
func BenchmarkGoschedFloor(b *testing.B) {
	const g = 1000
	prog := `
def worker(n):
    for _ in range(n):
        gosched()
`
	ys := make([]func(struct{}) bool, g) // each coroutine's yield
	cur := 0                             // the coroutine running now
	pre := starlark.StringDict{
		"gosched": starlark.NewBuiltin("gosched", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			if !ys[cur](struct{}{}) {
				return nil, errStopped
			}
			return starlark.None, nil
		}),
	}
	globals, err := starlark.ExecFileOptions(FileOptions(), &starlark.Thread{}, "floor.star", prog, pre)
	if err != nil {
		b.Fatal(err)
	}
	worker := globals["worker"]
	// Each worker has more rounds than its share of b.N, so that all are
	// alive for all b.N resumes; stop unwinds them at the end.
	n := starlark.MakeInt(b.N/g + 2)
	nexts := make([]func() (struct{}, bool), g)
	stops := make([]func(), g)
	for i := range nexts {
		nexts[i], stops[i] = iter.Pull(func(y func(struct{}) bool) {
			ys[i] = y
			_, err := starlark.Call(&starlark.Thread{}, worker, starlark.Tuple{n}, nil)
			if err != nil && !errors.Is(err, errStopped) {
				panic(err)
			}
		})
		cur = i
		nexts[i]() // to its first gosched, outside the timed loop
	}
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	cur = 0
	b.ReportAllocs()
	b.ResetTimer()
	var clock cpuClock
	clock.reset()
	for range b.N {
		nexts[cur]()
		if cur++; cur == g {
			cur = 0
		}
	}
	clock.report(b)
}

// BenchmarkTraceText is BenchmarkGosched/goroutines=1000 writing the text
// trace (`schedlab run --trace`) to a file: the trace writer's throughput
// in a real run (issue 7: at least 2 million events/s).
func BenchmarkTraceText(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "trace.txt"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	tw := trace.NewText(f, trace.Header{Settings: []trace.KV{{Key: "procs", Value: "1"}}})
	var events int64
	opts := benchOptions()
	opts.Tracer = runtime.TracerFunc(func(ev *runtime.Event) {
		events++
		tw.Event(ev)
	})
	b.ReportAllocs()
	benchRun(b, goschedSrc, opts, starlark.StringDict{"G": starlark.MakeInt(1000)})
	if err := tw.Flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// builtinBench are the per-call benchmarks of the builtins: each script
// repeats one call N times in main. loop (an empty loop) and len (a
// builtin of Starlark's own) are the baselines the others are read
// against: the overhead of a builtin is its ns/op minus loop's.
var builtinBench = []struct{ name, src string }{
	{"loop", "for _ in range(N):\n    pass\n"},
	{"len", "x = [1]\nfor _ in range(N):\n    len(x)\n"},
	// str of a string is the string: the cost of a call of a universe
	// builtin that parks the run (overrun.go), read against len's.
	{"str", "x = \"s\"\nfor _ in range(N):\n    str(x)\n"},
	{"now", "for _ in range(N):\n    now()\n"},
	{"current", "for _ in range(N):\n    current()\n"},
	// One op is a send and a receive on a buffered channel: neither blocks.
	{"chan_send_recv", "c = chan(1)\nfor _ in range(N):\n    c.send(1)\n    c.recv()\n"},
	// One op is a gosched with nothing else runnable: main goes to the
	// global queue and is taken straight back.
	{"gosched_alone", "for _ in range(N):\n    gosched()\n"},
	// One op is a goroutine's life: spawn, run (a no-op), exit; main
	// yields every 64 spawns so that they run (and their Gs and
	// coroutines are reused).
	{"spawn_noop", `
def nop():
    pass

for i in range(N):
    spawn(nop)
    if i % 64 == 63:
        gosched()
`},
	// One op is an uncontended lock and unlock.
	{"mutex", "mu = mutex()\nfor _ in range(N):\n    mu.lock()\n    mu.unlock()\n"},
	// One op is a wg.add(1) and a wg.done() that wakes no one.
	{"waitgroup", "wg = waitgroup()\nfor _ in range(N):\n    wg.add(1)\n    wg.done()\n"},
	// One op is a sleep of 1µs with nothing else to run: a timer, the P
	// idle until it fires, and back.
	{"sleep", "for _ in range(N):\n    sleep(\"1us\")\n"},
	// One op is two parks and two readies: main readies a goroutine
	// parked in park(), which readies main in turn and parks again. The
	// two share one time slice (runnext inherits it), so every 10ms of
	// virtual time sysmon preempts whichever runs: when that is the
	// waiter, between its ready and its park, main yields until it is
	// parked, since a ready of a runnable goroutine is an error.
	{"park_ready", `
main_task = current()

def waiter():
    for _ in range(N):
        park("waiting")
        ready(main_task)

t = spawn(waiter)
gosched()
for i in range(N):
    if t.state != "waiting":
        gosched()
    ready(t, i)
    park()
`},
	// One op is a select of two receive cases, one of them ready (a
	// buffered send first): selectgo's first pass finds it.
	{"select_ready", "c = chan(1)\nd = chan()\nfor _ in range(N):\n    c.send(1)\n    select(c.on_recv(), d.on_recv())\n"},
	// One op is a ping-pong of an unbuffered channel: main sends, the
	// other goroutine receives and sends back: two blocking handoffs.
	{"chan_pingpong", `
ping = chan()
pong = chan()

def echo():
    for v in ping:
        pong.send(v)

spawn(echo)
for i in range(N):
    ping.send(i)
    pong.recv()
ping.close()
`},
}

func BenchmarkBuiltin(b *testing.B) {
	for _, bb := range builtinBench {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			benchRun(b, "reset_timer()\n"+bb.src, benchOptions(), nil)
		})
	}
}

// memSample is the host memory at one point of a run.
type memSample struct {
	sys, inuse, stack, rss uint64
}

// sampleMem collects garbage and reads the Go runtime's view (Sys: all
// memory obtained from the OS; inuse: heap and stack spans in use) and the
// process's resident set size.
func sampleMem() memSample {
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return memSample{sys: ms.Sys, inuse: ms.HeapInuse + ms.StackInuse, stack: ms.StackInuse, rss: rss()}
}

// rss returns the resident set size of the process from /proc/self/statm,
// or 0 where there is none.
func rss() uint64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// measureBuiltin returns a builtin measure() that stores a memSample in *s.
func measureBuiltin(s *memSample) *starlark.Builtin {
	return starlark.NewBuiltin("measure", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		*s = sampleMem()
		return starlark.None, nil
	})
}

// parkedSrc parks P goroutines on a receive from one channel, lets them all
// block (sleep moves main behind them), measures, and returns with them
// still blocked.
const parkedSrc = `
c = chan()

def parked():
    c.recv()

for _ in range(P):
    spawn(parked)
sleep(1)
measure()
`

// BenchmarkParkedMemory reports the host memory held per parked Starlark
// goroutine with 100,000 of them blocked on a channel receive (issue 7:
// 100,000 in at most 1.2 GB RSS, i.e. 12,000 bytes each). The figures are
// deltas from before the run within this test process, which may reuse
// memory freed by earlier benchmarks; bench/compare measures the same
// script as a separate `schedlab run` process (its peak RSS).
func BenchmarkParkedMemory(b *testing.B) {
	const n = 100000
	for b.Loop() {
		before := sampleMem()
		var after memSample
		benchRun(b, parkedSrc, benchOptions(), starlark.StringDict{
			"P":       starlark.MakeInt(n),
			"measure": measureBuiltin(&after),
		})
		b.ReportMetric(float64(after.sys-before.sys)/n, "sys-B/goroutine")
		b.ReportMetric(float64(after.inuse-before.inuse)/n, "inuse-B/goroutine")
		b.ReportMetric(float64(after.stack-before.stack)/n, "stack-B/goroutine")
		b.ReportMetric(float64(after.rss-before.rss)/n, "rss-B/goroutine")
	}
}

// BenchmarkMillionGoroutines runs 1,000,000 short-lived goroutines (spawn,
// run a no-op, exit) in one script, main yielding every 100 spawns (issue
// 7: at most 5 s and 300 MB peak). One op is the whole run; the peak is
// the growth of the Go runtime's Sys, which never shrinks, from before
// the run to its end. bench/compare runs it as a `schedlab run` process
// and reports the process's peak RSS.
func BenchmarkMillionGoroutines(b *testing.B) {
	const n = 1000000
	for b.Loop() {
		before := sampleMem()
		var after memSample
		benchRun(b, millionSrc, benchOptions(), starlark.StringDict{
			"M":       starlark.MakeInt(n),
			"measure": measureBuiltin(&after),
		})
		b.ReportMetric(float64(after.sys-before.sys)/(1<<20), "sys-MB")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/goroutine")
}

// millionSrc is the script of BenchmarkMillionGoroutines and of
// bench/scripts/million.star.
const millionSrc = `
def nop():
    pass

for i in range(M):
    spawn(nop)
    if i % 100 == 99:
        gosched()
measure()
`

// BenchmarkServer is bench/netspeed/server.star: a goroutine-per-connection
// echo server and 64 closed-loop clients from outside the process (issue
// 27). One op is one request: the client's send, the arrival, a netpoll
// that readies the handler, its read and write, the reply's arrival.
func BenchmarkServer(b *testing.B) {
	benchRun(b, serverSrc, benchOptions(), nil)
}

// serverSrc is the script of BenchmarkServer, with N requests.
const serverSrc = `
l = listen(":8080")

def handle(c):
    while True:
        req = c.read()
        if req == None:
            break
        c.write(req.id)
    c.close()

def serve():
    while True:
        spawn(handle, l.accept())

spawn(serve)
reset_timer()
t = traffic(":8080", think=0, conns=64, n=N)
t.wait()
if t.answered != N:
    fail("answered %d of %d" % (t.answered, N))
`

// stepLoopSrc is a loop of plain statements; one op is one turn.
const stepLoopSrc = `
x = [0]

def loop(n):
    for i in range(n):
        x[0] = x[0] + 1

reset_timer()
loop(N)
`

// BenchmarkStepKinds is a loop of plain statements under the default
// profile with its step kinds left out (pooled: every step step_ps) and
// as it is, charging a step by its kind (kinds): what finding the kind of
// the line at each account costs (stepkind.go).
func BenchmarkStepKinds(b *testing.B) {
	for _, kinds := range []bool{false, true} {
		name := "kinds"
		opts := benchOptions()
		if !kinds {
			name = "pooled"
			opts.Costs = pooledSteps(opts.Costs)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			benchRun(b, stepLoopSrc, opts, nil)
		})
	}
}
