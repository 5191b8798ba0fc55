package repl

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

var update = flag.Bool("update", false, "update golden files")

// session runs the lines of in through a REPL without a terminal and
// returns what it printed, stdout and stderr together.
func session(t *testing.T, in string, opts Options) string {
	t.Helper()
	var out bytes.Buffer
	opts.Stdin = strings.NewReader(in)
	opts.Stdout, opts.Stderr = &out, &out
	if code := Run(opts); code != 0 {
		t.Errorf("exit status %d", code)
	}
	return out.String()
}

// goldenOptions reads the options of a golden session from its first
// line, "# repl: procs=2 seed=1 preempt=off script=x.star", also
// gc-cycle=mark and costs=default; the defaults are those of the
// command, but for the costs, which are the zero profile.
func goldenOptions(t *testing.T, src string) Options {
	opts := Options{Run: lang.Options{Procs: 1, Seed: 1, Preempt: true}}
	first, _, _ := strings.Cut(src, "\n")
	settings, ok := strings.CutPrefix(first, "# repl:")
	if !ok {
		return opts
	}
	for _, kv := range strings.Fields(settings) {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "procs":
			opts.Run.Procs, err = strconv.Atoi(v)
		case "seed":
			opts.Run.Seed, err = strconv.ParseUint(v, 10, 64)
		case "preempt":
			opts.Run.Preempt = v == "on"
		case "script":
			opts.Script = filepath.Join("testdata", v)
		case "gc-cycle":
			opts.Run.GCCycle, err = runtime.ParseGCCycle(v)
		case "costs":
			if v != "default" {
				t.Fatalf("setting %q: only the default profile", kv)
			}
			opts.Run.Costs = runtime.DefaultCosts()
		default:
			t.Fatalf("unknown setting %q", kv)
		}
		if err != nil {
			t.Fatalf("setting %q: %v", kv, err)
		}
	}
	return opts
}

// echoed matches the lines a transcript echoes: prompts and their input.
var echoed = regexp.MustCompile(`(?m)^(\[[^\]\n]*\] >>>|\s+\.\.\.)( .*)?\n`)

// TestGolden runs every session testdata/*.in and compares its transcript
// (prompts and input echoed, as on a terminal, without colour) with
// testdata/*.golden. Without echo the output must be the same, minus the
// echoed lines. go test -update rewrites the golden files that differ.
func TestGolden(t *testing.T) {
	ins, err := filepath.Glob("testdata/*.in")
	if err != nil || len(ins) == 0 {
		t.Fatalf("no sessions in testdata: %v", err)
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			opts := goldenOptions(t, string(b))
			opts.Echo = true
			got := session(t, string(b), opts)
			golden := strings.TrimSuffix(in, ".in") + ".golden"
			want, err := os.ReadFile(golden)
			if err != nil && !*update {
				t.Fatal(err)
			}
			if got != string(want) {
				if *update {
					if err := os.WriteFile(golden, []byte(got), 0o666); err != nil {
						t.Fatal(err)
					}
					t.Logf("updated %s", golden)
				} else {
					t.Errorf("%s differs from %s (go test -update rewrites it):\n%s", name, golden, diff(string(want), got))
				}
			}
			opts.Echo = false
			if plain, want := session(t, string(b), opts), echoed.ReplaceAllString(got, ""); plain != want {
				t.Errorf("%s without echo:\n%s", name, diff(want, plain))
			}
		})
	}
}

// diff returns a unified diff of want and got, through diff(1) if there
// is one, else both texts.
func diff(want, got string) string {
	dir, err := os.MkdirTemp("", "repl-diff")
	if err == nil {
		defer os.RemoveAll(dir)
		w, g := filepath.Join(dir, "want"), filepath.Join(dir, "got")
		os.WriteFile(w, []byte(want), 0o666)
		os.WriteFile(g, []byte(got), 0o666)
		if out, _ := exec.Command("diff", "-u", w, g).CombinedOutput(); len(out) > 0 {
			return string(out)
		}
	}
	return "want:\n" + want + "\ngot:\n" + got
}

// TestEveryCommandHasAGolden keeps a golden session per command.
func TestEveryCommandHasAGolden(t *testing.T) {
	var all strings.Builder
	ins, _ := filepath.Glob("testdata/*.in")
	for _, in := range ins {
		b, _ := os.ReadFile(in)
		all.Write(b)
	}
	for _, c := range commands {
		if !regexp.MustCompile(`(?m)^:` + c.name + `\b`).MatchString(all.String()) {
			t.Errorf("no golden session uses :%s", c.name)
		}
	}
}

func TestCompletion(t *testing.T) {
	var out bytes.Buffer
	r := &repl{out: &out, errw: &out, pal: newPalette(false)}
	r.sess.Store(lang.NewSession(lang.SessionOptions{Options: lang.Options{Procs: 1, Seed: 1, Preempt: true}}))
	defer r.session().Close()
	for _, src := range []string{"ch = chan(1)", "def worker():\n    pass\n", "t = spawn(worker)", "workers = []"} {
		if res := r.session().Exec("<stdin>", []byte(src), false); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	c := &completer{r: r}
	for _, tc := range []struct {
		line string
		want []string
		n    int
	}{
		{"spa", []string{"wn"}, 3},
		{"x = wor", []string{"k", "ker", "kers"}, 3},
		{"ch.re", []string{"cv", "cv_ok"}, 2},
		{"print(t.wa", []string{"it_reason"}, 2},
		{"t.", []string{"id", "name", "state", "wait_reason"}, 0},
		{":st", []string{"ats", "ep"}, 3},
		{"  :r", []string{"eset", "un", "unq"}, 2},
		{"nosuch.x", nil, 1},
		{"12", nil, 2},
		{"gomax", []string{"procs"}, 5},
		{"whi", []string{"le"}, 3},
	} {
		cands, n := c.Do([]rune(tc.line), len([]rune(tc.line)))
		var got []string
		for _, s := range cands {
			got = append(got, string(s))
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") || n != tc.n {
			t.Errorf("complete %q = %q, %d; want %q, %d", tc.line, got, n, tc.want, tc.n)
		}
	}
}

func TestClosestCommand(t *testing.T) {
	for _, tc := range []struct{ typed, want string }{
		{"stpe", "step"},
		{"stp", "step"},
		{"rnuq", "runq"},
		{"quti", "quit"},
		{"q", "quit"},
		{"tr", "trace"},
		{"hepl", "help"},
		{"frobnicate", ""},
	} {
		if got := closestCommand(tc.typed); got != tc.want {
			t.Errorf("closestCommand(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}

func TestHistoryFile(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if got := HistoryFile(); got != "/state/schedlab/history" {
		t.Errorf("with XDG_STATE_HOME: %q", got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/gopher")
	if got := HistoryFile(); got != "/home/gopher/.schedlab_history" {
		t.Errorf("without XDG_STATE_HOME: %q", got)
	}
}

func TestColorOff(t *testing.T) {
	// Without a terminal nothing is coloured, whatever is printed.
	out := session(t, ":trace on\nspawn(lambda: work(1))\n:ps\n:runq\n:run\n", Options{Run: lang.Options{Procs: 2, Seed: 1, Preempt: true}, Color: false})
	if strings.Contains(out, "\x1b[") {
		t.Errorf("escape sequences in plain output:\n%q", out)
	}
	// With colour, states and events are.
	out = session(t, ":trace on\nspawn(lambda: work(1))\n:ps\n", Options{Run: lang.Options{Procs: 2, Seed: 1, Preempt: true}, Color: true})
	for _, want := range []string{"\x1b[32mGoStart\x1b[0m", "[\x1b[33mrunnable\x1b[0m]:", "[\x1b[34mrepl input\x1b[0m]:"} {
		if !strings.Contains(out, want) {
			t.Errorf("coloured output lacks %q:\n%q", want, out)
		}
	}
}

// A statement that takes the process above MaxMemory is interrupted as by
// Ctrl-C, with the limit named; the world and its other globals stay, and
// the next statements run.
func TestMaxMemoryInterruptsStatement(t *testing.T) {
	in := "y = 7\n" +
		"x = []\nfor i in range(100000000):\n    x.append([i, i, i, i, i, i, i, i])\n\n" +
		"print(len(x) > 0, y)\nx = None\nprint('still here')\n"
	out := session(t, in, Options{Run: lang.Options{Procs: 1, Seed: 1, Preempt: true, MaxMemory: 64 << 20}})
	for _, want := range []string{
		"schedlab: memory limit of 64MiB reached (--max-memory=64MiB): interrupted; what the globals hold stays",
		"schedlab: interrupted\n\ngoroutine 1 [running]:\n",
		"True 7\nstill here\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// TestStepShowsItsChange: what :step prints last is what the views show.
// After a GoSyscallBegin the G is in its syscall in :ps, its P in
// _Psyscall in :runq and its M in a syscall in :ms (a world paused halfway
// through entersyscall showed the G running and the P its M's).
func TestStepShowsItsChange(t *testing.T) {
	out := session(t, "spawn(lambda: syscall(\"1ms\"))\n:step\n:step\n:ps\n:runq\n:ms\n",
		Options{Run: lang.Options{Procs: 1, Seed: 1, Preempt: true}})
	for _, want := range []string{
		"G2    GoSyscallBegin dur=1ms\n",
		"goroutine 2 [syscall]:",
		"P0  syscall  -  schedtick=",
		"M0  (P0)  curg=G2  syscall\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}
