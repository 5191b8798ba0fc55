package main

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/testbuild"
)

// badTimeout is how long one bad input may take. A case that runs longer
// hangs, and fails: bad input must end quickly, with a message.
const badTimeout = 2 * time.Second

// A badCase is one bad script or command line: what the command must
// print on stderr (each regexp must match, with ^ and $ at line ends) and
// stdout, and its exit status.
type badCase struct {
	name   string
	args   []string // the command line after "schedlab"
	code   int
	stderr []string
	stdout string
}

// run is the command line `schedlab run flags... script`.
func run(script string, flags ...string) []string {
	return append(append([]string{"run"}, flags...), script)
}

// badCases are the bad inputs, scripts from testdata/bad and command
// lines. The scripts run from testdata/bad, so positions are relative to
// it. A panic's position is that of the call that failed.
var badCases = []badCase{
	// Scripts that do not compile or load: file:line:col, exit 1.
	{"syntax error", run("syntax_error.star"), 1, []string{`^syntax_error.star:1:5: got '=', want primary expression$`}, ""},
	{"yield", run("yield.star"), 1, []string{`^yield.star:3:9: got yield, want primary expression$`, `^hint: yield is reserved in Starlark; call gosched\(\) to yield the processor$`}, ""},
	{"undefined name", run("undefined.star"), 1, []string{`^undefined.star:3:1: undefined: spawnn \(did you mean spawn\?\)$`}, ""},
	{"unterminated string", run("unterminated_string.star"), 1, []string{`^unterminated_string.star:1:7: unexpected newline in string$`}, ""},
	{"missing indent", run("bad_indent.star"), 1, []string{`^bad_indent.star:2:7: got return, want indent$`}, ""},
	{"inconsistent dedent", run("inconsistent_dedent.star"), 1, []string{`^inconsistent_dedent.star:3:5: unindent does not match any outer indentation level$`}, ""},
	{"deep nesting", run("deep_nesting.star"), 1, []string{`^deep_nesting.star:1:\d+: excessive nesting$`}, ""},
	{"no host access", run("no_host_access.star"), 1, []string{`^no_host_access.star:1:5: undefined: open`}, ""},
	{"load escapes the tree", run("load/escape.star"), 1, []string{`^load/escape.star:1:6: cannot load ../secret.star: the path leaves the script's directory tree$`}, ""},
	{"load absolute", run("load/absolute.star"), 1, []string{`^load/absolute.star:1:6: cannot load /etc/passwd: absolute paths are not allowed`}, ""},
	{"load itself", run("load/self.star"), 1, []string{`^load/self.star:1:6: cannot load self.star: cycle in load graph: load/self.star -> load/self.star$`}, ""},
	{"load cycle", run("load/cycle_a.star"), 1, []string{`^load/cycle_b.star:1:6: cannot load cycle_a.star: cycle in load graph: load/cycle_a.star -> load/cycle_b.star -> load/cycle_a.star$`}, ""},
	{"load missing", run("load/missing.star"), 1, []string{`^load/missing.star:1:6: cannot load nope.star: open load/nope.star: no such file or directory$`}, ""},
	{"load directory", run("load/directory.star"), 1, []string{`^load/directory.star:1:6: cannot load sub: open load/sub: is a directory$`}, ""},
	{"load undefined name", run("load/undefined_symbol.star"), 2, []string{`^panic: load: name nope not found in module sub/lib.star$`, `^  load/undefined_symbol.star:1:1: in <toplevel>$`}, ""},

	// Go habits: Go's or Starlark's error at file:line:col, then a hint
	// with the Starlark way; a syntax error shows its line and a caret.
	{"a global assigned in a function", run("shared_counter.star"), 2, []string{`^panic: local variable counter referenced before assignment$`, `^hint: counter is assigned in this function .*counter = \[0\] and counter\[0\] \+= 1 .*counter = atomic_int\(\) and counter.add\(1\)$`, `^  shared_counter.star:4:5: in inc$`}, ""},
	{"global statement", run("global_statement.star"), 1, []string{`^global_statement.star:4:5: got global, want primary expression$`, `^    global counter$`, `^    \^$`, `^hint: Starlark has no global statement`}, ""},
	{"send of an expression", run("send_expression.star"), 1, []string{`^send_expression.star:3:13: Go's send statement is not Starlark: this is the comparison results < -j \* 2$`, `^hint: Go's results <- j \* 2 is results.send\(j \* 2\)`}, ""},
	{"for { over lines", run("for_brace.star"), 1, []string{`^for_brace.star:3:2: got '}', want ':'$`, `^hint: Go's for \{ \.\.\. \} is while True:$`}, ""},
	{"range of a channel", run("range_chan.star"), 2, []string{`^panic: range: for parameter 1: got chan, want int$`, `^hint: Go's for v := range ch is for v in ch:`, `^  range_chan.star:3:15: in <toplevel>$`}, ""},
	{"spawn of a call", run("spawn_call.star"), 2, []string{`^panic: spawn: for parameter fn: got NoneType, want callable$`, `^hint: Go's go f\(x\) is spawn\(f, x\)`}, "worker 1\n"},
	{"a width in %", run("percent_width.star"), 2, []string{`^panic: unknown conversion %5$`, `^hint: .*sprintf\("%5.2f", x\) takes Go's verbs$`}, ""},
	{"sleep(1), once", run("sleep_one.star"), 0, []string{`\Asleep_one.star:1:6: warning: sleep\(1\) is 1ns: a bare int is nanoseconds; write sleep\("1ms"\) for milliseconds, or sleep\("1ns"\) to mean it \(said once a run\)\n\z`}, "slept\n"},

	// Files that are not scripts.
	{"missing file", run("nope.star"), 1, []string{`^schedlab run: open nope.star: no such file or directory$`}, ""},
	{"directory", run("load"), 1, []string{`^schedlab run: open load: is a directory$`}, ""},
	{"binary junk", run("$JUNK"), 1, []string{`junk.star:\d+:\d+: `}, ""},
	{"NUL byte", run("nul_byte.star"), 1, []string{`^nul_byte.star:2:1: invalid NUL character$`}, ""},
	{"empty file", run("empty.star"), 0, nil, ""},
	{"only comments", run("only_comments.star"), 0, nil, ""},

	// Wrong arguments: Go's panic, the goroutine, exit 2.
	{"wrong argument type", run("wrong_type.star"), 2, []string{`^panic: chan: for parameter cap: got string, want int$`, `^goroutine 1 \[running\]:$`, `^  wrong_type.star:1:10: in <toplevel>$`}, ""},
	{"wrong argument count", run("wrong_count.star"), 2, []string{`^panic: gosched: got 1 arguments, want at most 0$`, `^  wrong_count.star:1:8: in <toplevel>$`}, ""},
	{"unknown keyword", run("unknown_kwarg.star"), 2, []string{`^panic: chan: unexpected keyword argument "size"$`, `^  unknown_kwarg.star:1:10: in <toplevel>$`}, ""},
	{"spawn of a non-callable", run("spawn_noncallable.star"), 2, []string{`^panic: spawn: for parameter fn: got int, want callable$`, `^  spawn_noncallable.star:1:6: in <toplevel>$`}, ""},
	{"spawn of nothing", run("spawn_nothing.star"), 2, []string{`^panic: spawn: missing argument for fn$`, `^  spawn_nothing.star:1:6: in <toplevel>$`}, ""},
	{"select of a non-case", run("select_bad_case.star"), 2, []string{`^panic: select: argument 1: got int, want a case made by ch.on_recv\(\) or ch.on_send\(v\), or None$`, `^  select_bad_case.star:1:7: in <toplevel>$`}, ""},
	{"select default of a string", run("select_bad_default.star"), 2, []string{`^panic: select: for parameter "default": got string, want bool$`}, ""},
	{"ready of a non-task", run("ready_nontask.star"), 2, []string{`^panic: ready: for parameter task: got int, want task$`, `^  ready_nontask.star:1:6: in <toplevel>$`}, ""},

	// Misuse of channels, tasks and sync: Go's texts.
	{"send on closed channel", run("send_on_closed.star"), 2, []string{`^panic: send on closed channel$`, `^  send_on_closed.star:3:8: in <toplevel>$`}, ""},
	{"close of closed channel", run("close_of_closed.star"), 2, []string{`^panic: close of closed channel$`, `^  close_of_closed.star:3:9: in <toplevel>$`}, ""},
	{"ready of a runnable goroutine", run("ready_runnable.star"), 2, []string{`^panic: ready of goroutine 7, which is not parked \(it is runnable\)$`, `^  ready_runnable.star:2:6: in <toplevel>$`}, ""},
	{"ready of a dead goroutine", run("ready_dead.star"), 2, []string{`^panic: ready of goroutine 7, which is not parked \(it is dead\)$`, `^  ready_dead.star:3:6: in <toplevel>$`}, "hi\n"},
	{"ready of a blocked goroutine", run("ready_blocked.star"), 2, []string{`^panic: ready of goroutine 7, which is blocked on chan receive, not parked by park\(\)$`}, ""},
	{"ready of itself", run("ready_self.star"), 2, []string{`^panic: ready of goroutine 1, which is not parked \(it is running\)$`}, ""},
	{"unlock of unlocked mutex", run("unlock_unlocked.star"), 2, []string{`^fatal error: sync: unlock of unlocked mutex$`, `^  unlock_unlocked.star:2:10: in <toplevel>$`}, ""},
	{"negative waitgroup", run("negative_waitgroup.star"), 2, []string{`^panic: sync: negative WaitGroup counter$`}, ""},
	{"append during iteration", run("mutate_during_iteration.star"), 2, []string{`^panic: append: cannot append to list during iteration$`, `^goroutine 7 \[running\]:$`, `^  mutate_during_iteration.star:3:13: in adder$`}, ""},
	{"park with no one to ready", run("deadlock_park.star"), 2, []string{`^fatal error: all goroutines are asleep - deadlock!$`, `^goroutine 1 \[parked \(leaked\)\]:$`, `^  deadlock_park.star:1:5: in <toplevel>$`}, ""},
	{"select with no cases", run("deadlock_select.star"), 2, []string{`^fatal error: all goroutines are asleep - deadlock!$`, `^goroutine 1 \[select \(no cases\) \(leaked\)\]:$`}, ""},

	// Durations.
	{"negative duration", run("negative_duration.star"), 2, []string{`^panic: work: negative duration -1ns$`, `^  negative_duration.star:1:5: in <toplevel>$`}, ""},
	{"negative duration string", run("negative_work.star"), 2, []string{`^panic: work: negative duration -5ms$`}, ""},
	{"malformed duration", run("malformed_duration.star"), 2, []string{`^panic: sleep: for parameter d: invalid duration "1 ms" \(want ns as an int, or a Go duration such as "1.5ms"\)$`}, ""},
	{"float duration", run("float_duration.star"), 2, []string{`^panic: work: for parameter d: got float, want int \(ns\), duration string or time.duration$`}, ""},
	{"duration out of range", run("huge_duration.star"), 2, []string{`^panic: sleep: for parameter d: duration 1180591620717411303424 out of range$`}, ""},

	// gomaxprocs: n < 1 asks, as runtime.GOMAXPROCS does; the limit is 1024.
	{"gomaxprocs(0) asks", run("gomaxprocs_zero.star"), 0, nil, "1 1 3\n"},
	{"gomaxprocs(-1) asks", run("gomaxprocs_negative.star"), 0, nil, "1\n"},
	{"gomaxprocs(100000)", run("gomaxprocs_huge.star"), 2, []string{`^panic: gomaxprocs: 100000 is more than the limit of 1024$`, `^  gomaxprocs_huge.star:1:11: in <toplevel>$`}, ""},
	{"gomaxprocs(1 << 80)", run("gomaxprocs_bigint.star"), 2, []string{`^panic: gomaxprocs: for parameter n: 1208925819614629174706176 out of range`}, ""},
	{"gomaxprocs of a string", run("gomaxprocs_string.star"), 2, []string{`^panic: gomaxprocs: for parameter n: got string, want int$`}, ""},

	// Recursion is bounded by a depth limit; sizes are bounded.
	{"unbounded recursion", run("recursion.star"), 2, []string{`^fatal error: stack overflow \(more than 10000 nested calls\)$`, `^  recursion.star:2:13: in f$`, `^  \.\.\.\d+ frames elided\.\.\.$`, `^  recursion.star:3:2: in <toplevel>$`}, ""},
	{"mutual recursion in a goroutine", run("mutual_recursion.star"), 2, []string{`^fatal error: stack overflow \(more than 10000 nested calls\)$`, `^goroutine 7 \[running\]:$`}, ""},
	{"huge shift", run("huge_shift.star"), 2, []string{`^panic: shift count too large: 100000$`, `^  huge_shift.star:1:7: in <toplevel>$`}, ""},
	{"huge string", run("huge_string.star"), 2, []string{`^panic: repeat count 1099511627776 too large$`}, ""},
	{"huge list", run("huge_list.star"), 2, []string{`^panic: repeat count 1099511627776 too large$`}, ""},
	{"huge channel", run("huge_chan.star"), 2, []string{`^panic: makechan: size out of range$`}, ""},
	{"negative channel size", run("chan_negative.star"), 2, []string{`^panic: makechan: size out of range$`}, ""},
	{"big integers that fit", run("huge_int_ok.star"), 0, nil, "154128\n"},
	{"assert", run("assert_fails.star"), 2, []string{`^panic: one is not two$`}, ""},
	{"division by zero", run("division_by_zero.star"), 2, []string{`^panic: floored division by zero$`, `^  division_by_zero.star:2:14: in f$`}, ""},

	// Scripts that never end, ended by a limit: a diagnosis, the dump, exit 2.
	{"tight loop, step limit", run("spin.star", "--max-steps=100000"), 2, []string{`^schedlab: step limit of 100000 reached \(--max-steps=100000\)$`, `^goroutine 1 \[running\]:$`}, ""},
	{"tight loop, wall-clock limit", run("spin.star", "--timeout=200ms"), 2, []string{`^schedlab: wall-clock timeout of 200ms reached \(--timeout=200ms\)$`, `^goroutine 1 \[running\]:$`}, ""},
	// With preemption off sysmon asks for the P after 10ms of the P's
	// clock, and the run ends 10M steps later: under the default profile
	// (a step of 99ps) that is 110M steps, seconds of the host's time, so
	// the case counts the slice in steps (the zero profile) instead.
	{"tight loop, preemption off", run("spin.star", "--preempt=off", "--costs=zero"), 2, []string{`^schedlab: goroutine 1 ran 10000000 steps without a scheduling point; the cooperative scheduler is wedged; run with --preempt=on$`, `^goroutine 1 \[running\]:$`}, ""},
	{"spawning forever", run("spawn_forever.star", "--max-goroutines=1000"), 2, []string{`^schedlab: goroutine limit reached: 1000 goroutines alive \(--max-goroutines=1000\)$`}, ""},
	{"sleeping forever, virtual time limit", run("sleep_forever.star", "--max-time=10h"), 2, []string{`^schedlab: virtual time limit of 10h0m0s reached$`, `^goroutine 1 \[sleep\]:$`}, ""},
	{"sleeping forever, wall-clock limit", run("sleep_forever.star", "--timeout=200ms"), 2, []string{`^schedlab: wall-clock timeout of 200ms reached`}, ""},

	// Flags and directives out of range: the flag, a usage line, exit 2.
	{"procs 0", run("empty.star", "--procs=0"), 2, []string{`^schedlab run: invalid value "0" for flag -procs: out of range, want 1 to 1024$`, `^usage: schedlab run`}, ""},
	{"procs 2000", run("empty.star", "--procs=2000"), 2, []string{`out of range, want 1 to 1024$`}, ""},
	{"procs huge", run("empty.star", "--procs=99999999999999999999"), 2, []string{`invalid value "99999999999999999999" for flag -procs`}, ""},
	{"procs not an integer", run("empty.star", "--procs=1.5"), 2, []string{`invalid value "1.5" for flag -procs: want an integer from 1 to 1024$`}, ""},
	{"seed out of range", run("empty.star", "--seed=18446744073709551616"), 2, []string{`invalid value "18446744073709551616" for flag -seed`}, ""},
	{"max-steps negative", run("empty.star", "--max-steps=-1"), 2, []string{`invalid value "-1" for flag -max-steps`}, ""},
	{"max-goroutines negative", run("empty.star", "--max-goroutines=-5"), 2, []string{`invalid value "-5" for flag -max-goroutines: out of range`}, ""},
	{"max-time negative", run("empty.star", "--max-time=-1s"), 2, []string{`invalid value "-1s" for flag -max-time: negative duration$`}, ""},
	{"max-time overflows", run("empty.star", "--max-time=1e400h"), 2, []string{`invalid value "1e400h" for flag -max-time`}, ""},
	{"timeout malformed", run("empty.star", "--timeout=abc"), 2, []string{`invalid value "abc" for flag -timeout`}, ""},
	{"preempt maybe", run("empty.star", "--preempt=maybe"), 2, []string{`invalid value "maybe" for flag -preempt: want on or off$`}, ""},
	{"unknown flag", run("empty.star", "--bogus"), 2, []string{`^schedlab run: flag provided but not defined: -bogus$`}, ""},
	{"flag without value", []string{"run", "empty.star", "--procs"}, 2, []string{`^schedlab run: flag needs an argument: -procs$`}, ""},
	{"no script", []string{"run"}, 2, []string{`^schedlab run: no script named$`}, ""},
	{"two scripts", []string{"run", "empty.star", "empty.star"}, 2, []string{`^schedlab run: want one script, got 2: empty.star empty.star$`}, ""},
	{"unknown command", []string{"frobnicate"}, 2, []string{`^schedlab: unknown command "frobnicate"$`}, ""},
	{"directive out of range", run("bad_directive.star"), 2, []string{`^bad_directive.star:1: schedlab directive: invalid value "5000" for flag -procs: out of range, want 1 to 1024$`}, ""},
	{"directive writes a file", run("directive_file.star"), 2, []string{`^directive_file.star:1: schedlab directive: -timeline writes a file; give it on the command line$`}, ""},
	{"output file in a missing directory", run("empty.star", "--timeline=missing/dir/x.html"), 1, []string{`^schedlab run: -timeline: open missing/dir/x.html: no such file or directory$`}, ""},
}

// stdoutMatches reports whether stdout is what want asks for: "*" is
// anything, "*text*" anything with text in it (text may be a regexp),
// "re:expr" a match of the regexp expr, anything else exactly want.
func stdoutMatches(stdout, want string) bool {
	switch {
	case want == "*":
		return true
	case len(want) > 2 && strings.HasPrefix(want, "*") && strings.HasSuffix(want, "*"):
		return regexp.MustCompile(want[1 : len(want)-1]).MatchString(stdout)
	case strings.HasPrefix(want, "re:"):
		return regexp.MustCompile(want[3:]).MatchString(stdout)
	}
	return stdout == want
}

// goStackTrace matches what a Go stack trace has and a schedlab report
// never has: tab-indented frames, .go files, runtime functions.
var goStackTrace = regexp.MustCompile(`(?m)^\t|\.go:\d+|^goroutine \d+ \[running\]:\n(main|runtime|github\.com)|panic\(|internal error`)

// TestBadInput runs every bad input with the built command: each must end
// within badTimeout with its exit status and message, and none may show
// a Go stack trace.
func TestBadInput(t *testing.T) {
	if len(badCases) < 40 || len(moreBadCases) < 50 {
		t.Fatalf("%d and %d bad inputs, want at least 40 and 50", len(badCases), len(moreBadCases))
	}
	bin := buildSchedlab(t)
	dir, err := filepath.Abs(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	junk := writeJunk(t)
	scratch := writeScratch(t, bin)
	for _, tc := range append(badCases, moreBadCases...) {
		t.Run(tc.name, func(t *testing.T) {
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				a = strings.ReplaceAll(a, "$JUNK", junk)
				args[i] = strings.ReplaceAll(a, "$SCRATCH", scratch)
			}
			if strings.Contains(strings.Join(args, " "), "fifo") && !haveFIFO(scratch) {
				t.Skip("no FIFO here (mkfifo failed)")
			}
			code, stdout, stderr, err := runBinInput(bin, dir, args, badStdin[tc.name])
			if err != nil {
				t.Fatalf("schedlab %s: %v", strings.Join(args, " "), err)
			}
			if code != tc.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			for _, re := range tc.stderr {
				if !regexp.MustCompile("(?m)" + re).MatchString(stderr) {
					t.Errorf("stderr does not match %s:\n%s", re, stderr)
				}
			}
			if tc.code != 0 && stderr == "" && tc.stdout == "" {
				t.Errorf("exit status %d and nothing on stderr", code)
			}
			if tc.code == 0 && len(tc.stderr) == 0 && stderr != "" {
				t.Errorf("stderr:\n%s\nwant none", stderr)
			}
			if !stdoutMatches(stdout, tc.stdout) {
				t.Errorf("stdout %q, want %q", stdout, tc.stdout)
			}
			if loc := goStackTrace.FindStringIndex(stderr); loc != nil {
				t.Errorf("stderr shows a Go stack trace at %q:\n%s", stderr[loc[0]:loc[1]], stderr)
			}
		})
	}
}

// buildSchedlab returns the command, built once per set of sources
// (testbuild.Build).
func buildSchedlab(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build schedlab with")
	}
	bin, err := testbuild.Build(".", "schedlab", nil, nil, ".")
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// runBin runs bin with args in dir, and returns its exit status, stdout
// and stderr. It kills a run that takes longer than badTimeout and
// returns an error: the input hung the command.
func runBin(bin, dir string, args []string) (int, string, string, error) {
	return runBinEnv(bin, dir, args, nil)
}

// runBinEnv is runBin with env added to the environment.
func runBinEnv(bin, dir string, args, env []string) (int, string, string, error) {
	return runBinFull(bin, dir, args, env, "")
}

// runBinInput is runBin with stdin.
func runBinInput(bin, dir string, args []string, stdin string) (int, string, string, error) {
	return runBinFull(bin, dir, args, nil, stdin)
}

// runBinFull is runBin with env added to the environment and stdin.
func runBinFull(bin, dir string, args, env []string, stdin string) (int, string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), badTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return 0, stdout.String(), stderr.String(), errors.New("hung: still running after " + badTimeout.String())
	}
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return 0, "", "", err
		}
		code = ee.ExitCode()
	}
	return code, stdout.String(), stderr.String(), nil
}

// writeJunk writes a script of random bytes (NULs, invalid UTF-8, control
// characters), the same every time, and returns its path.
func writeJunk(t *testing.T) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(6, 6))
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	p := filepath.Join(t.TempDir(), "junk.star")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGoStackTraceRegexp: the check of TestBadInput sees a Go stack trace
// and does not see a schedlab report.
func TestGoStackTraceRegexp(t *testing.T) {
	goTrace := "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n\t/tmp/x/main.go:5 +0x1d\nexit status 2\n"
	report := "panic: send on closed channel\n\ngoroutine 2 [running]:\n  x.star:6:12: in helper\ncreated by <toplevel> in goroutine 1\n  x.star:9:6\n"
	if !goStackTrace.MatchString(goTrace) {
		t.Error("a Go stack trace goes unnoticed")
	}
	if goStackTrace.MatchString(report) {
		t.Error("a schedlab report is taken for a Go stack trace")
	}
}
