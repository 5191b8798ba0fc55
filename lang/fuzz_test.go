package lang

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/runtime"
)

// FuzzScript runs arbitrary source as a script under small limits. Whatever
// the source, the run must end (the limits see to it) with one of the
// outcomes a user can meet, never an internal error or a Go panic, never
// with a Go stack trace on stderr, and leave no host goroutine behind; and
// a run that no wall-clock limit cut short must print the same bytes when
// run again.
//
// The seed corpus is every example, every script of lang/testdata and of
// the bad-input corpus, and testdata/fuzz/FuzzScript.
func FuzzScript(f *testing.F) {
	for _, pattern := range []string{"../examples/*.star", "testdata/*.star", "testdata/faithful/*.star", "../cmd/schedlab/testdata/bad/*.star"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src, uint8(1), uint64(1), true)
		}
	}
	for _, src := range []string{
		"ch = chan()\nspawn(ch.send, 1)\nprint(ch.recv())\n",
		"def spin():\n    while True:\n        pass\nspawn(spin)\ngosched()\nprint('ok')\n",
		"mu = mutex()\nwg = waitgroup()\nfor i in range(8):\n    wg.add(1)\n    spawn(lambda: [mu.lock(), work(10), mu.unlock(), wg.done()])\nwg.wait()\n",
		"t = spawn(park)\ngosched()\nready(t, 5)\nsleep(1)\n",
		"print(select(after(5).on_recv(), chan().on_recv()))\n",
	} {
		f.Add([]byte(src), uint8(2), uint64(7), false)
	}
	dir := f.TempDir() // load() finds nothing here
	f.Fuzz(func(t *testing.T, src []byte, procs uint8, seed uint64, preempt bool) {
		checkScriptRun(t, dir, src, procs, seed, preempt)
	})
}

// fuzzOptions are the small limits of a fuzzed run.
func fuzzOptions(procs uint8, seed uint64, preempt bool) Options {
	return Options{
		Procs:         1 + int(procs%4),
		Seed:          seed,
		Preempt:       preempt,
		MaxSteps:      200_000,
		MaxGoroutines: 200,
		MaxTime:       int64(10 * time.Second),
		Timeout:       2 * time.Second,
		SliceSteps:    2_000,
		WedgeSteps:    50_000,
	}
}

// goTrace matches what a Go stack trace has and a schedlab report never
// has: tab-indented frames and .go files.
var goTrace = regexp.MustCompile(`(?m)^\t|\.go:\d+`)

// checkScriptRun runs src twice and checks what FuzzScript promises.
func checkScriptRun(t *testing.T, dir string, src []byte, procs uint8, seed uint64, preempt bool) {
	baseline := goruntime.NumGoroutine()
	run := func() (string, *Result) {
		var out bytes.Buffer
		opts := fuzzOptions(procs, seed, preempt)
		opts.Stdout, opts.Stderr = &out, &out
		res := RunFile(filepath.Join(dir, "fuzz.star"), src, opts)
		return out.String(), res
	}
	out, res := run()
	if res.ExitCode == ExitInternal {
		t.Fatalf("internal error:\n%s", out)
	}
	if res.Run != nil {
		switch res.Run.Outcome {
		case runtime.Exited, runtime.Panicked, runtime.Deadlock, runtime.Limit:
		default:
			t.Fatalf("outcome %v: %v\n%s", res.Run.Outcome, res.Run.Err, out)
		}
	}
	if loc := goTrace.FindStringIndex(out); loc != nil && !printed(src, out[loc[0]:loc[1]]) {
		t.Fatalf("a Go stack trace at %q:\n%s", out[loc[0]:loc[1]], out)
	}
	if !wallLimited(res) {
		again, res2 := run()
		if again != out && !wallLimited(res2) {
			t.Fatalf("two runs differ:\n%s\n---\n%s", out, again)
		}
	}
	var n int
	for range 200 {
		if n = goruntime.NumGoroutine(); n <= baseline {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%d host goroutines before the run, %d after", baseline, n)
}

// wallLimited reports whether the run was cut short by the wall clock,
// which stops it wherever it is.
func wallLimited(res *Result) bool {
	var le *runtime.LimitError
	return res.Run != nil && errors.As(res.Run.Err, &le) && le.What == "wall time"
}

// printed reports whether text could have come from the script itself (a
// print of a tab or of ".go:1").
func printed(src []byte, text string) bool {
	return bytes.Contains(src, []byte(`\t`)) || bytes.Contains(src, []byte("\t")) ||
		strings.Contains(text, ".go:") && bytes.Contains(src, []byte(".go"))
}
