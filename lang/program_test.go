package lang

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// runBoth runs filename with RunFile and as a compiled Program (twice),
// and fails unless all three print the same bytes and end the same way.
func runBoth(t *testing.T, filename string, opts Options) {
	t.Helper()
	run := func(f func(Options) *Result) (string, string, int) {
		var stdout, stderr bytes.Buffer
		o := opts
		o.Stdout, o.Stderr = &stdout, &stderr
		res := f(o)
		return stdout.String(), stderr.String(), res.ExitCode
	}
	out, errOut, code := run(func(o Options) *Result { return RunFile(filename, nil, o) })
	prog, err := Compile(filename, nil, opts)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	for i := range 2 {
		out2, errOut2, code2 := run(prog.Run)
		if out2 != out || errOut2 != errOut || code2 != code {
			t.Errorf("%s, Program.Run #%d: exit %d, stdout %q, stderr %q; RunFile: exit %d, stdout %q, stderr %q",
				filename, i+1, code2, out2, errOut2, code, out, errOut)
		}
	}
}

// A compiled Program runs as RunFile runs its source: every example, and
// a script whose module is loaded and initialised again in each run.
func TestProgramRunIsRunFile(t *testing.T) {
	examples, err := filepath.Glob("../examples/*.star")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, ex := range examples {
		runBoth(t, ex, Options{Procs: 2, Seed: 3, Preempt: true})
	}

	dir := t.TempDir()
	files := map[string]string{
		"main.star":     "load('lib/init.star', 'k')\nprint(k + 1)\n",
		"lib/init.star": "print('loading init')\nk = 41\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runBoth(t, filepath.Join(dir, "main.star"), Options{})
	// Each run initialises the module afresh.
	prog, err := Compile(filepath.Join(dir, "main.star"), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		var stdout bytes.Buffer
		prog.Run(Options{Stdout: &stdout})
		if want := "loading init\n42\n"; stdout.String() != want {
			t.Errorf("stdout %q, want %q", stdout.String(), want)
		}
	}
}

// A Program runs from several goroutines at once, each run as it runs
// alone (go test -race checks that they share nothing mutable).
func TestProgramConcurrentRuns(t *testing.T) {
	prog, err := Compile("../examples/stealing.star", nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	run := func() string {
		var stdout bytes.Buffer
		prog.Run(Options{Procs: 4, Seed: 7, Preempt: true, Stdout: &stdout})
		return stdout.String()
	}
	want := run()
	var wg sync.WaitGroup
	got := make([]string, 4)
	for i := range got {
		wg.Go(func() { got[i] = run() })
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Errorf("concurrent run %d printed %q, want %q", i, g, want)
		}
	}
}

// Compile reports what RunFile reports for a script that does not load.
func TestCompileError(t *testing.T) {
	_, err := Compile("x.star", []byte("x = \n"), Options{})
	if err == nil {
		t.Fatal("no error")
	}
	var stderr bytes.Buffer
	RunFile("x.star", []byte("x = \n"), Options{Stderr: &stderr})
	if got := FormatCompileError(err); got != stderr.String() {
		t.Errorf("Compile's error formats as %q, RunFile reports %q", got, stderr.String())
	}
}
