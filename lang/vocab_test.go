package lang

import "testing"

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
				"hint: Go's ch <- 1 is ch.send(1), and <-ch is ch.recv(); write a < -1 with a space for the comparison\n",
		},
		{
			name: "send arrow, a call sent",
			src:  "chans = [chan(1)]\nc = chans[0]\nc <- len(chans)\n",
			code: 1,
			stderr: "main.star:3:3: Go's send statement is not Starlark: this is the comparison c < -v\n" +
				"hint: Go's c <- v is c.send(v), and <-ch is ch.recv(); write a < -1 with a space for the comparison\n",
		},
		{
			name:   "a comparison with a negative number is fine",
			src:    "x = 1\nprint(x < -1, x < - 1)\n",
			stdout: "False False\n",
		},
		{
			name: "receive arrow",
			src:  "ch = chan(1)\nv = <-ch\n",
			code: 1,
			stderr: "main.star:2:5: got '<', want primary expression\n" +
				"hint: Go's <-ch is ch.recv() (or v, ok = ch.recv_ok()), and ch <- v is ch.send(v)\n",
		},
		{
			name: "go statement",
			src:  "def f():\n    pass\ngo f()\n",
			code: 1,
			stderr: "main.star:3:5: got identifier, want newline\n" +
				"hint: Go's go f(x) is spawn(f, x)\n",
		},
		{
			name: "defer",
			src:  "def f():\n    defer g()\n",
			code: 1,
			stderr: "main.star:2:12: got identifier, want newline\n" +
				"hint: Starlark has no defer; make the call where the function returns\n",
		},
		{
			name: "short variable declaration of a typed channel",
			src:  "ch := make(chan int)\n",
			code: 1,
			stderr: "main.star:1:5: got ':', want newline\n" +
				"hint: Starlark has no :=; assign with = (x = chan())\n" +
				"hint: channels are untyped: make(chan T, n) is chan(n)\n",
		},
		{
			name: "func",
			src:  "func f() {\n}\n",
			code: 1,
			stderr: "main.star:1:7: got identifier, want newline\n" +
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
			stderr: "main.star:1:1: undefined: time (Go's time.Sleep(d) is sleep(d); time.After, NewTimer, NewTicker, Tick, AfterFunc, Now are after, timer, ticker, tick, after_func, now)\n" +
				"main.star:2:6: undefined: sync (Go's sync.Mutex, RWMutex, WaitGroup, Once, NewCond are mutex(), rwmutex(), waitgroup(), once(), cond(mu))\n",
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
