package lang

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.starlark.net/resolve"
	"go.starlark.net/syntax"

	"github.com/schedlab/schedlab/runtime"
)

// runCase writes files into a temporary directory, runs main.star from it
// with opts and returns the exit status, stdout and stderr, with the
// directory's path removed from both.
func runCase(t *testing.T, files map[string]string, opts Options) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	opts.Stdout, opts.Stderr = &stdout, &stderr
	res := RunFile(filepath.Join(dir, "main.star"), nil, opts)
	if res.ExitCode == ExitFailed && res.Run.Outcome == runtime.Canceled {
		t.Errorf("a limit reported as %v: %v", res.Run.Outcome, res.Run.Err)
	}
	clean := func(s string) string { return strings.ReplaceAll(s, dir+string(filepath.Separator), "") }
	return res.ExitCode, clean(stdout.String()), clean(stderr.String())
}

// TestErrors checks the exit status and the exact stderr of every way a
// run can fail.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  map[string]string
		opts   Options
		code   int
		stdout string
		stderr string
		prefix bool // stderr need only start with the text (a wall-clock timeout stops anywhere)
	}{
		{
			name:   "syntax error",
			files:  map[string]string{"main.star": "x = 1\nprint(x\n"},
			code:   1,
			stderr: "main.star:3:1: got end of file, want ')'\n",
		},
		{
			name:  "yield",
			files: map[string]string{"main.star": "def worker():\n    yield\n"},
			code:  1,
			stderr: "main.star:2:5: got yield, want primary expression\n" +
				"    yield\n" +
				"    ^\n" +
				"hint: yield is reserved in Starlark; call gosched() to yield the processor\n",
		},
		{
			name:  "resolve errors in the file's order",
			files: map[string]string{"main.star": "def f():\n    return undefined_a\n\nprint(undefined_b)\nx = undefined_c\n"},
			code:  1,
			stderr: "main.star:2:12: undefined: undefined_a\n" +
				"main.star:4:7: undefined: undefined_b\n" +
				"main.star:5:5: undefined: undefined_c\n",
		},
		{
			name:   "yield as a parameter",
			files:  map[string]string{"main.star": "def f(yield):\n    pass\n"},
			code:   1,
			stderr: "main.star:1:12: not an identifier\n    def f(yield):\n               ^\n" + yieldHint + "\n",
		},
		{
			name:  "yield in a string is no hint",
			files: map[string]string{"main.star": "x = 'yield' +\n"},
			code:  1,
			stderr: "main.star:1:14: got newline, want primary expression\n" +
				"    x = 'yield' +\n" +
				"                 ^\n",
		},
		{
			name:  "resolve errors",
			files: map[string]string{"main.star": "print(undefined)\nspawnn(f)\n"},
			code:  1,
			stderr: "main.star:1:7: undefined: undefined\n" +
				"main.star:2:1: undefined: spawnn (did you mean spawn?)\n" +
				"main.star:2:8: undefined: f\n",
		},
		{
			name:   "missing file",
			files:  map[string]string{"other.star": ""},
			code:   1,
			stderr: "schedlab: open main.star: no such file or directory\n",
		},
		{
			name:   "directory",
			files:  map[string]string{"main.star/x.star": ""},
			code:   1,
			stderr: "schedlab: open main.star: is a directory\n",
		},
		{
			name: "send on closed channel",
			files: map[string]string{"main.star": `def worker(ch):
    ch.close()
    helper(ch)

def helper(ch):
    ch.send(1)

ch = chan()
spawn(worker, ch)
ch.recv()
`},
			code: 2,
			stderr: `panic: send on closed channel

goroutine 2 [running]:
  main.star:6:12: in helper
  main.star:3:11: in worker
created by <toplevel> in goroutine 1
  main.star:9:6
`,
		},
		{
			name:  "error in main",
			files: map[string]string{"main.star": "print('before')\nx = 1 // 0\nprint('after')\n"},
			code:  2, stdout: "before\n",
			stderr: "panic: floored division by zero\n\ngoroutine 1 [running]:\n  main.star:2:7: in <toplevel>\n",
		},
		{
			name:   "assert",
			files:  map[string]string{"main.star": "def f():\n    assert(1 == 2, 'one is not two')\nf()\n"},
			code:   2,
			stderr: "panic: one is not two\n\ngoroutine 1 [running]:\n  main.star:2:11: in f\n  main.star:3:2: in <toplevel>\n",
		},
		{
			name:   "assert default message",
			files:  map[string]string{"main.star": "assert(False)\nassert(True)\n"},
			code:   2,
			stderr: "panic: assertion failed\n\ngoroutine 1 [running]:\n  main.star:1:7: in <toplevel>\n",
		},
		{
			name:   "unlock of unlocked mutex",
			files:  map[string]string{"main.star": "mu = mutex()\nmu.unlock()\n"},
			code:   2,
			stderr: "fatal error: sync: unlock of unlocked mutex\n\ngoroutine 1 [running]:\n  main.star:2:10: in <toplevel>\n",
		},
		{
			name:   "negative waitgroup",
			files:  map[string]string{"main.star": "waitgroup().add(-1)\n"},
			code:   2,
			stderr: "panic: sync: negative WaitGroup counter\n\ngoroutine 1 [running]:\n  main.star:1:16: in <toplevel>\n",
		},
		{
			name:   "negative allocation",
			files:  map[string]string{"main.star": "alloc(64)\nalloc(-5)\n"},
			code:   2,
			stderr: "panic: alloc: negative size -5\n\ngoroutine 1 [running]:\n  main.star:2:6: in <toplevel>\n",
		},
		{
			name:   "retain overflows the heap",
			files:  map[string]string{"main.star": "def f():\n    retain(1 << 62)\n    retain(1 << 62)\n\nf()\n"},
			code:   2,
			stderr: "panic: retain: the heap would overflow: 4611686018427387904 bytes on a heap of 4611686018427387904\n\ngoroutine 1 [running]:\n  main.star:3:11: in f\n  main.star:5:2: in <toplevel>\n",
		},
		{
			name:   "release of pointer-free memory as if it held pointers",
			files:  map[string]string{"main.star": "retain(\"1MiB\", pointers=False)\nrelease(\"1MiB\")\n"},
			code:   2,
			stderr: "panic: release: 1048576 bytes released, but only 0 retained with pointers (1048576 more are pointer-free); release(n, pointers=False) drops pointer-free memory\n\ngoroutine 1 [running]:\n  main.star:2:8: in <toplevel>\n",
		},
		{
			name:   "release of more pointer-free memory than retained",
			files:  map[string]string{"main.star": "retain(64, pointers=False)\nrelease(65, pointers=False)\n"},
			code:   2,
			stderr: "panic: release: 65 pointer-free bytes released, but only 64 retained pointer-free\n\ngoroutine 1 [running]:\n  main.star:2:8: in <toplevel>\n",
		},
		{
			name:   "pointers is not a bool",
			files:  map[string]string{"main.star": "alloc(64, pointers=\"no\")\n"},
			code:   2,
			stderr: "panic: alloc: for parameter \"pointers\": got string, want bool\n\ngoroutine 1 [running]:\n  main.star:1:6: in <toplevel>\n",
		},
		{
			name:   "gogc below -1",
			files:  map[string]string{"main.star": "gogc(-2)\n"},
			code:   2,
			stderr: "panic: gogc: percent -2 is below -1 (off)\n\ngoroutine 1 [running]:\n  main.star:1:5: in <toplevel>\n",
		},
		{
			name: "deadlock",
			files: map[string]string{"main.star": `a = chan()
b = chan()

def left():
    v = a.recv()
    b.send(v)

def napper():
    sleep("5ms")

spawn(napper)
spawn(left)
spawn(park, "forever")
b.recv()
`},
			code: 2,
			stderr: `fatal error: all goroutines are asleep - deadlock!

goroutine 1 [chan receive]:
  main.star:14:7: in <toplevel>

goroutine 3 [chan receive]:
  main.star:5:15: in left
created by <toplevel> in goroutine 1
  main.star:12:6

goroutine 4 [forever (leaked)]:
  <builtin>: in park
created by <toplevel> in goroutine 1
  main.star:13:6
`,
		},
		{
			name: "alive but not leaked: silent, as Go",
			files: map[string]string{"main.star": `def blocked(ch):
    ch.recv()

def never():
    pass

ch = chan()
spawn(blocked, ch)
sleep(1)
spawn(never)
print("main returns")
`},
			code:   0,
			stdout: "main returns\n",
		},
		{
			name: "leak summary",
			files: map[string]string{"main.star": `def blocked(ch):
    ch.recv()

def never():
    pass

ch = chan()
spawn(blocked, ch)
sleep(1)
spawn(never)
print("main returns")
`},
			opts:   Options{Alive: true},
			code:   0,
			stdout: "main returns\n",
			stderr: `schedlab: main returned with 2 goroutines still alive:

goroutine 2 [chan receive]:
  main.star:2:12: in blocked
created by <toplevel> in goroutine 1
  main.star:8:6

goroutine 3 [runnable]:
  main.star:4:1: in never
created by <toplevel> in goroutine 1
  main.star:10:6
`,
		},
		{
			name:  "max steps",
			files: map[string]string{"main.star": "def spin():\n    while True:\n        pass\nspin()\n"},
			opts:  Options{MaxSteps: 1000},
			code:  2,
			stderr: "schedlab: step limit of 1000 reached (--max-steps=1000)\n\n" +
				"goroutine 1 [running]:\n  main.star:1:1: in spin\n  main.star:4:5: in <toplevel>\n",
		},
		{
			name: "max steps over all goroutines",
			files: map[string]string{"main.star": `def spin():
    for i in range(300):
        gosched()
for i in range(4):
    spawn(spin)
sleep(1)
`},
			opts: Options{MaxSteps: 2000},
			code: 2,
		},
		{
			name: "wedged",
			files: map[string]string{"main.star": `def spin():
    i = 0
    while True:
        i += 1

spawn(spin)
sleep(1)
`},
			opts: Options{WedgeSteps: 100_000},
			code: 2,
			stderr: "schedlab: goroutine 2 ran 100000 steps without a scheduling point; the cooperative scheduler is wedged; run with --preempt=on\n\n" +
				"goroutine 1 [sleep]:\n  main.star:7:6: in <toplevel>\n\n" +
				"goroutine 2 [running]:\n  main.star:4:11: in spin\ncreated by <toplevel> in goroutine 1\n  main.star:6:6\n",
		},
		{
			name: "max goroutines",
			files: map[string]string{"main.star": `for i in range(10):
    spawn(park)
`},
			opts: Options{MaxGoroutines: 4},
			code: 2,
			stderr: "schedlab: goroutine limit reached: 4 goroutines alive (--max-goroutines=4)\n\n" +
				"goroutine 1 [running]:\n  main.star:2:10: in <toplevel>\n\n" +
				"goroutine 2 [runnable]:\n  <builtin>: in park\ncreated by <toplevel> in goroutine 1\n  main.star:2:10\n\n" +
				"goroutine 3 [runnable]:\n  <builtin>: in park\ncreated by <toplevel> in goroutine 1\n  main.star:2:10\n\n" +
				"goroutine 4 [runnable]:\n  <builtin>: in park\ncreated by <toplevel> in goroutine 1\n  main.star:2:10\n",
		},
		{
			name:   "max time",
			files:  map[string]string{"main.star": "while True:\n    sleep('1ms')\n"},
			opts:   Options{MaxTime: 5_500_000},
			code:   2,
			stderr: "schedlab: virtual time limit of 5.5ms reached\n\ngoroutine 1 [sleep]:\n  main.star:2:10: in <toplevel>\n",
		},
		{
			name:   "timeout",
			files:  map[string]string{"main.star": "def spin():\n    while True:\n        pass\nspin()\n"},
			opts:   Options{Timeout: 50 * time.Millisecond, Preempt: true},
			code:   2,
			stderr: "schedlab: wall-clock timeout of 50ms reached (--timeout=50ms)\n\ngoroutine 1 [running]:\n",
			prefix: true,
		},
		{
			name:   "timeout while sleeping",
			files:  map[string]string{"main.star": "while True:\n    sleep('1ms')\n"},
			opts:   Options{Timeout: 50 * time.Millisecond},
			code:   2,
			stderr: "schedlab: wall-clock timeout of 50ms reached (--timeout=50ms)\n\ngoroutine 1 [",
			prefix: true,
		},
		{
			name:   "load outside the tree",
			files:  map[string]string{"main.star": "load('../secret.star', 'x')\n", "../secret.star": "x = 1\n"},
			code:   1,
			stderr: "main.star:1:6: cannot load ../secret.star: the path leaves the script's directory tree\n",
		},
		{
			name: "used before its load",
			files: map[string]string{
				"main.star":  "print(now())\nload('clock.star', 'now')\n",
				"clock.star": "def now():\n    return 42\n",
			},
			code:   1,
			stderr: "main.star:1:7: now is used before the load at line 2 binds it, so here it is the builtin now: move the load above its first use (a load binds its names from where it stands)\n    print(now())\n          ^\n",
		},
		{
			name: "used in a function before its load",
			files: map[string]string{
				"main.star":  "def f():\n    return now()\nload('clock.star', 'now')\nprint(f())\n",
				"clock.star": "def now():\n    return 42\n",
			},
			code:   0,
			stdout: "42\n",
		},
		{
			name:   "load absolute",
			files:  map[string]string{"main.star": "load('/etc/passwd', 'x')\n"},
			code:   1,
			stderr: "main.star:1:6: cannot load /etc/passwd: absolute paths are not allowed; load() takes a path relative to the loading script\n",
		},
		{
			name:   "load escape from a subdirectory",
			files:  map[string]string{"main.star": "load('lib/a.star', 'x')\n", "lib/a.star": "load('../../b.star', 'x')\n"},
			code:   1,
			stderr: "lib/a.star:1:6: cannot load ../../b.star: the path leaves the script's directory tree\n",
		},
		{
			name: "load cycle",
			files: map[string]string{
				"main.star":  "load('lib/a.star', 'x')\n",
				"lib/a.star": "load('b.star', 'y')\nx = y\n",
				"lib/b.star": "load('a.star', 'x')\ny = x\n",
			},
			code:   1,
			stderr: "lib/b.star:1:6: cannot load a.star: cycle in load graph: lib/a.star -> lib/b.star -> lib/a.star\n",
		},
		{
			name:   "load missing",
			files:  map[string]string{"main.star": "\nload('nope.star', 'x')\n"},
			code:   1,
			stderr: "main.star:2:6: cannot load nope.star: open nope.star: no such file or directory\n",
		},
		{
			name:  "load syntax error",
			files: map[string]string{"main.star": "load('lib.star', 'x')\n", "lib.star": "x = = 1\n"},
			code:  1,
			stderr: "lib.star:1:5: got '=', want primary expression\n" +
				"    x = = 1\n" +
				"        ^\n",
		},
		{
			name: "error in a loaded module",
			files: map[string]string{
				"main.star": "load('lib.star', 'x')\n",
				"lib.star":  "def f():\n    return {}['k']\nx = f()\n",
			},
			code: 2,
			stderr: "panic: cannot load lib.star: key \"k\" not in dict\n\n" +
				"goroutine 1 [running]:\n  lib.star:2:14: in f\n  lib.star:3:6: in <toplevel>\n  main.star:1:1: in <toplevel>\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCase(t, tc.files, tc.opts)
			if code != tc.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if stdout != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.stdout)
			}
			if tc.stderr != "" && stderr != tc.stderr && !(tc.prefix && strings.HasPrefix(stderr, tc.stderr)) {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, tc.stderr)
			}
		})
	}
}

// TestLoadSymlinkEscape: a symbolic link inside the tree that leads out of
// it is refused like "..".
func TestLoadSymlinkEscape(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.star"), []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "secret.star"), filepath.Join(dir, "link.star")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	var stderr bytes.Buffer
	res := RunFile(filepath.Join(dir, "main.star"), []byte("load('link.star', 'x')\n"), Options{Stderr: &stderr})
	want := filepath.Join(dir, "main.star") + ":1:6: cannot load link.star: the path leaves the script's directory tree through a symbolic link\n"
	if res.ExitCode != 1 || stderr.String() != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", res.ExitCode, stderr.String(), want)
	}
}

// TestInternalError: a bug of schedlab is exit status 3 and says so.
func TestInternalError(t *testing.T) {
	m := runtime.NewMachine(runtime.Config{})
	defer m.Close()
	for _, tc := range []struct {
		res  runtime.Result
		want string
	}{
		{runtime.Result{Outcome: runtime.Internal, Err: &runtime.InternalError{Msg: "casgstatus: bad"}}, "schedlab: internal error: casgstatus: bad\n"},
		{runtime.Result{Outcome: runtime.Panicked, Err: &runtime.TaskPanic{Value: "nil map", Stack: []byte("goroutine 9 [running]:\n")}}, "schedlab: internal error: nil map\n\ngoroutine 9 [running]:\n"},
		{runtime.Result{Outcome: runtime.Idle}, "schedlab: internal error: the run ended with outcome idle\n"},
	} {
		var b bytes.Buffer
		if code := WriteOutcome(&b, m, &tc.res); code != ExitInternal || b.String() != tc.want {
			t.Errorf("%v: exit %d, stderr %q, want 3 and %q", tc.res.Err, code, b.String(), tc.want)
		}
	}
}

// TestCompileErrorsSorted checks that FormatCompileError lists resolve
// errors by file, line and column, whatever order they come in.
func TestCompileErrorsSorted(t *testing.T) {
	a, b := "a.star", "b.star"
	at := func(file *string, line, col int32) syntax.Position { return syntax.MakePosition(file, line, col) }
	errs := resolve.ErrorList{
		{Pos: at(&b, 1, 5), Msg: "undefined: b1"},
		{Pos: at(&a, 3, 2), Msg: "undefined: a3"},
		{Pos: at(&a, 1, 9), Msg: "undefined: a1b"},
		{Pos: at(&a, 1, 4), Msg: "undefined: a1a"},
	}
	got := FormatCompileError(errs)
	want := "a.star:1:4: undefined: a1a\n" +
		"a.star:1:9: undefined: a1b\n" +
		"a.star:3:2: undefined: a3\n" +
		"b.star:1:5: undefined: b1\n"
	if got != want {
		t.Errorf("FormatCompileError =\n%s\nwant\n%s", got, want)
	}
}
