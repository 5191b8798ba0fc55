package lang

import (
	"bytes"
	"strings"
	"testing"
)

// TestGoVocabulary checks the exact output and stderr of the Go vocabulary
// builtins where a chunk's regexp would say too little: fmt's formatting on
// stdout, the load-time hints for Go syntax, and the wait reasons and
// creators in dumps.
func TestGoVocabulary(t *testing.T) {
	for _, tc := range []struct {
		name   string
		src    string
		code   int
		stdout string
		stderr string
	}{
		{
			name:   "println",
			src:    `println(True, None, [1, "a"], {"b": 2, "a": 1}, 1.5, 3.0, "s", (1,))` + "\n" + `println()` + "\n",
			stdout: "true <nil> [1 a] map[a:1 b:2] 1.5 3 s [1]\n\n",
		},
		{
			name:   "printf adds no newline",
			src:    `printf("a%d", 1)` + "\n" + `printf("b\n")` + "\n" + `print("c")` + "\n",
			stdout: "a1b\nc\n",
		},
		{
			name:   "print stays Starlark's",
			src:    `print(True, None, [1, "a"])` + "\n",
			stdout: "True None [1, \"a\"]\n",
		},
		{
			name: "send arrow",
			src:  "ch = chan(1)\nch <- 1\n",
			code: 1,
			stderr: "main.star:2:4: Go's send statement is not Starlark: this is the comparison ch < -1\n" +
				"    ch <- 1\n" +
				"       ^\n" +
				"hint: Go's ch <- 1 is ch.send(1), and <-ch is ch.recv(); write a < -1 with a space for the comparison\n",
		},
		{
			name: "send arrow, a call sent",
			src:  "chans = [chan(1)]\nc = chans[0]\nc <- len(chans)\n",
			code: 1,
			stderr: "main.star:3:3: Go's send statement is not Starlark: this is the comparison c < -len(chans)\n" +
				"    c <- len(chans)\n" +
				"      ^\n" +
				"hint: Go's c <- len(chans) is c.send(len(chans)), and <-ch is ch.recv(); write a < -1 with a space for the comparison\n",
		},
		{
			name:   "a comparison with a negative number is fine",
			src:    "x = 1\nprint(x < -1, x < - 1)\n",
			stdout: "False False\n",
		},
		{
			name: "send arrow, an expression sent",
			src:  "results = chan(1)\nj = 2\nresults <- j * 2\n",
			code: 1,
			stderr: "main.star:3:9: Go's send statement is not Starlark: this is the comparison results < -j * 2\n" +
				"    results <- j * 2\n" +
				"            ^\n" +
				"hint: Go's results <- j * 2 is results.send(j * 2), and <-ch is ch.recv(); write a < -1 with a space for the comparison\n",
		},
		{
			name: "send arrow, a sum sent, in a function",
			src:  "def f(ch, x):\n    ch <- x + 1\n",
			code: 1,
			stderr: "main.star:2:8: Go's send statement is not Starlark: this is the comparison ch < -x + 1\n" +
				"    ch <- x + 1\n" +
				"       ^\n" +
				"hint: Go's ch <- x + 1 is ch.send(x + 1), and <-ch is ch.recv(); write a < -1 with a space for the comparison\n",
		},
		{
			name:   "a comparison with a negative sum is fine",
			src:    "x = 1\nprint(x < -x + 1, x < - x * 2)\n",
			stdout: "False False\n",
		},
		{
			name: "for { over several lines",
			src:  "for {\n    x = 1\n}\n",
			code: 1,
			stderr: "main.star:2:8: got '=', want ':'\n" +
				"    x = 1\n" +
				"       ^\n" +
				"hint: Go's for { ... } is while True:\n",
		},
		{
			name: "no hint from an earlier statement",
			src:  "s = \":=\"\ny = = 1\n",
			code: 1,
			stderr: "main.star:2:5: got '=', want primary expression\n" +
				"    y = = 1\n" +
				"        ^\n",
		},
		{
			name: "global statement",
			src:  "counter = 0\ndef inc():\n    global counter\n    counter += 1\n",
			code: 1,
			stderr: "main.star:3:5: got global, want primary expression\n" +
				"    global counter\n" +
				"    ^\n" +
				"hint: Starlark has no global statement: a function may read a global but not assign it; share a mutable value instead, counter = [0] and counter[0] += 1 (which races as Go's counter++ does), or counter = atomic_int() and counter.add(1)\n",
		},
		{
			name: "a global assigned in a function",
			src:  "counter = 0\ndef inc():\n    counter += 1\ninc()\n",
			code: 2,
			stderr: "panic: local variable counter referenced before assignment\n" +
				"hint: counter is assigned in this function (x += 1 assigns too), so it is a local variable here; Starlark has no global statement: share a mutable value instead, counter = [0] and counter[0] += 1 (which races as Go's counter++ does), or counter = atomic_int() and counter.add(1)\n" +
				"\ngoroutine 1 [running]:\n  main.star:3:5: in inc\n  main.star:4:4: in <toplevel>\n",
		},
		{
			name:   "the shared counter of the docs",
			src:    "counter = [0]\ndef inc():\n    counter[0] += 1\ninc()\nprint(counter[0])\n",
			stdout: "1\n",
		},
		{
			name: "range of a channel",
			src:  "ch = chan(1)\nch.close()\nfor v in range(ch):\n    pass\n",
			code: 2,
			stderr: "panic: range: for parameter 1: got chan, want int\n" +
				"hint: Go's for v := range ch is for v in ch: (it receives until ch is closed)\n" +
				"\ngoroutine 1 [running]:\n  main.star:3:15: in <toplevel>\n",
		},
		{
			name:   "spawn of a call",
			src:    "def worker(n):\n    print(n)\nspawn(worker(1))\n",
			code:   2,
			stdout: "1\n",
			stderr: "panic: spawn: for parameter fn: got NoneType, want callable\n" +
				"hint: Go's go f(x) is spawn(f, x): spawn(f(x)) calls f first, here, and passes on what it returned, None\n" +
				"\ngoroutine 1 [running]:\n  main.star:3:6: in <toplevel>\n",
		},
		{
			name: "a width in %",
			src:  "x = 1.5\nprint(\"%5.2f\" % x)\n",
			code: 2,
			stderr: "panic: unknown conversion %5\n" +
				"hint: Starlark's % takes no flags, width or precision (%d %s %r %x %e %f %g %c %%); sprintf(\"%5.2f\", x) takes Go's verbs\n" +
				"\ngoroutine 1 [running]:\n  main.star:2:15: in <toplevel>\n",
		},
		{
			name:   "sprintf takes the width",
			src:    "x = 1.5\nprint(sprintf(\"%5.2f\", x))\n",
			stdout: " 1.50\n",
		},
		{
			name: "a syntax error shows its line, tabs kept before the caret",
			src:  "def f():\n\tx =\t= 1\n",
			code: 1,
			stderr: "main.star:2:6: got '=', want primary expression\n" +
				"    x =\t= 1\n" +
				"       \t^\n",
		},
		{
			name: "receive arrow",
			src:  "ch = chan(1)\nv = <-ch\n",
			code: 1,
			stderr: "main.star:2:5: got '<', want primary expression\n" +
				"    v = <-ch\n" +
				"        ^\n" +
				"hint: Go's <-ch is ch.recv() (or v, ok = ch.recv_ok()), and ch <- v is ch.send(v)\n",
		},
		{
			name: "go statement",
			src:  "def f():\n    pass\ngo f()\n",
			code: 1,
			stderr: "main.star:3:5: got identifier, want newline\n" +
				"    go f()\n" +
				"        ^\n" +
				"hint: Go's go f(x) is spawn(f, x)\n",
		},
		{
			name: "defer",
			src:  "def f():\n    defer g()\n",
			code: 1,
			stderr: "main.star:2:12: got identifier, want newline\n" +
				"    defer g()\n" +
				"           ^\n" +
				"hint: Starlark has no defer; make the call where the function returns\n",
		},
		{
			name: "short variable declaration of a typed channel",
			src:  "ch := make(chan int)\n",
			code: 1,
			stderr: "main.star:1:5: got ':', want newline\n" +
				"    ch := make(chan int)\n" +
				"        ^\n" +
				"hint: Starlark has no :=; assign with = (x = chan())\n" +
				"hint: channels are untyped: make(chan T, n) is chan(n)\n",
		},
		{
			name: "func",
			src:  "func f() {\n}\n",
			code: 1,
			stderr: "main.star:1:7: got identifier, want newline\n" +
				"    func f() {\n" +
				"          ^\n" +
				"hint: Go's func is def f(x): (or lambda x: ...)\n",
		},
		{
			name: "a keyword after *cases",
			src:  "c = chan(1)\ncases = [c.on_recv()]\nselect(*cases, default=True)\n",
			code: 1,
			stderr: "main.star:3:16: keyword argument may not follow *args\n" +
				"hint: pass the cases as a list, select(cases, default=True), or put the keyword first, select(default=True, *cases)\n",
		},
		{
			name: "Go package names",
			src:  "time.Sleep(1)\nwg = sync.WaitGroup()\n",
			code: 1,
			stderr: "main.star:1:6: time has no .Sleep (Go's time.Sleep(d) is sleep(d); time.After, NewTimer, NewTicker, Tick, AfterFunc, Now are after, timer, ticker, tick, after_func, now)\n" +
				"main.star:2:6: undefined: sync (Go's sync.Mutex, RWMutex, WaitGroup, Once, NewCond are mutex(), rwmutex(), waitgroup(), once(), cond(mu))\n",
		},
		{
			name:   "a module's field in Go's case",
			src:    "print(time.Now(), math.Sqrt(2))\ndef f(time):\n    return time.Sleep\n",
			code:   1,
			stderr: "main.star:1:12: time has no .Now (did you mean .now?)\nmain.star:1:24: math has no .Sqrt (did you mean .sqrt?)\n",
		},
		{
			name:   "a Go method name",
			src:    "waitgroup().Go(print)\n",
			code:   2,
			stderr: "panic: waitgroup has no .Go field or method (did you mean .go?)\n\ngoroutine 1 [running]:\n  main.star:1:12: in <toplevel>\n",
		},
		{
			name: "creators in dumps",
			src: `def blocked():
    nil_chan().recv()

wg = waitgroup()
wg.go(blocked)
after_func("1ms", blocked)
sleep("2ms")
wg.wait()
`,
			code: 2,
			stderr: `fatal error: all goroutines are asleep - deadlock!

goroutine 1 [sync.WaitGroup.Wait]:
  main.star:8:8: in <toplevel>

goroutine 2 [chan receive (nil chan) (leaked)]:
  main.star:2:20: in blocked
created by sync.(*WaitGroup).Go in goroutine 1
  main.star:5:6

goroutine 3 [chan receive (nil chan) (leaked)]:
  main.star:2:20: in blocked
created by time.goFunc in goroutine 1
  main.star:6:11
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCase(t, map[string]string{"main.star": tc.src}, Options{Procs: 1})
			if code != tc.code || stdout != tc.stdout || stderr != tc.stderr {
				t.Errorf("got exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// TestSmallDurationWarning checks the warning about a bare int below 1000
// given as a duration: once a run, at the first such call, to Warnings
// only; never for a duration string, 0 or 1000, nor for a computed int
// (rand.expo("1ms") is often a few µs): only for a literal.
func TestSmallDurationWarning(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"sleep", "sleep(1)\nwork(5)\n", `main.star:1:6: warning: sleep(1) is 1ns: a bare int is nanoseconds; write sleep("1ms") for milliseconds, or sleep("1ns") to mean it (said once a run)` + "\n"},
		{"work in a goroutine", "def f():\n    work(d=999)\nspawn(f)\nsleep(\"1ms\")\n", `main.star:2:9: warning: work(999) is 999ns: a bare int is nanoseconds; write work("999ms") for milliseconds, or work("999ns") to mean it (said once a run)` + "\n"},
		{"syscall", "syscall(10)\n", `main.star:1:8: warning: syscall(10) is 10ns: a bare int is nanoseconds; write syscall("10ms") for milliseconds, or syscall("10ns") to mean it (said once a run)` + "\n"},
		{"timer", "t = timer(2)\nt.c.recv()\n", `main.star:1:10: warning: timer(2) is 2ns: a bare int is nanoseconds; write timer("2ms") for milliseconds, or timer("2ns") to mean it (said once a run)` + "\n"},
		{"ticker", "t = ticker(3)\nt.stop()\n", `main.star:1:11: warning: ticker(3) is 3ns: a bare int is nanoseconds; write ticker("3ms") for milliseconds, or ticker("3ns") to mean it (said once a run)` + "\n"},
		{"after", "after(4).recv()\n", `main.star:1:6: warning: after(4) is 4ns: a bare int is nanoseconds; write after("4ms") for milliseconds, or after("4ns") to mean it (said once a run)` + "\n"},
		{"tick", "tick(5).recv()\n", `main.star:1:5: warning: tick(5) is 5ns: a bare int is nanoseconds; write tick("5ms") for milliseconds, or tick("5ns") to mean it (said once a run)` + "\n"},
		{"after_func", "after_func(6, print, \"x\")\nsleep(\"1us\")\n", `main.star:1:11: warning: after_func(6) is 6ns: a bare int is nanoseconds; write after_func("6ms") for milliseconds, or after_func("6ns") to mean it (said once a run)` + "\n"},
		{"spelled", "sleep(\"1ns\")\nwork(\"5ns\")\nsleep(0)\nwork(1000)\nsleep(\"1ms\")\n", ""},
		{"computed: a draw or a variable, not a literal", "x = 5\nwork(x)\nwork(rand.intn(3) + 1)\nsleep(x * 2)\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warnings bytes.Buffer
			_, _, stderr := runCase(t, map[string]string{"main.star": tc.src}, Options{Procs: 1, Warnings: &warnings})
			got := warnings.String()
			if i := strings.Index(got, "main.star:"); i > 0 {
				got = got[i:] // the temporary directory's path
			}
			if got != tc.want {
				t.Errorf("warnings:\n%s\nwant:\n%s", got, tc.want)
			}
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			_, _, stderr = runCase(t, map[string]string{"main.star": tc.src}, Options{Procs: 1})
			if stderr != "" {
				t.Errorf("without Warnings, stderr: %s", stderr)
			}
		})
	}
}
