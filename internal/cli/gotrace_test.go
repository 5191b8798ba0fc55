package cli

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/tracetest"
)

// examples returns the example scripts of the repository.
func examples(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"../../examples/*.star", "../../examples/*/*.star"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	return files
}

// runGoTrace runs script as `schedlab run --go-trace FILE --trace
// --trace-format=json` with extra flags, and returns the Go trace and the
// run's events.
func runGoTrace(t *testing.T, script string, extra ...string) ([]byte, []runtime.Event) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "run.trace")
	args := append([]string{"--go-trace", file, "--trace", "--trace-format=json"}, extra...)
	var stdout, stderr bytes.Buffer
	code := Run(append(args, script), &stdout, &stderr)
	if code == 1 {
		t.Fatalf("%s: exit %d: %s", script, code, stderr.String())
	}
	_, evs, err := tracetest.ReadJSON(stdout.Bytes())
	if err != nil {
		t.Fatalf("%s: JSON lines: %v", script, err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return data, evs
}

// TestGoTraceExamples writes every example as a Go execution trace and
// reads it with golang.org/x/exp/trace, which validates every transition
// as go tool trace does: each goroutine must go through the states of the
// run, in its order. Each example runs as its header sets it, again on
// 4 Ps (the playground's second run), where syscalls lose and take back
// their Ps in more ways, and with runtime.main's start-up on 2 Ps, where
// the runtime's goroutines park and the locked M0 hands its P off.
func TestGoTraceExamples(t *testing.T) {
	for _, script := range examples(t) {
		for _, extra := range [][]string{nil, {"--procs", "4", "--seed", "7"}, {"--procs", "2", "--startup", "go"}} {
			t.Run(strings.TrimSuffix(filepath.Base(script), ".star")+strings.Join(extra, ""), func(t *testing.T) {
				data, evs := runGoTrace(t, script, extra...)
				if err := tracetest.CheckGoTrace(data, evs); err != nil {
					t.Errorf("%s %v: %v", script, extra, err)
				}
			})
		}
	}
}

// TestGoTraceGenerations cuts every example's trace into generations of a
// few events each: every generation opens with the status of each P and
// live G, which the reader checks against what it knows; also with
// runtime.main's start-up, whose system goroutines and locked M0 are in
// those statuses.
func TestGoTraceGenerations(t *testing.T) {
	old := goTraceGenerationEvents
	goTraceGenerationEvents = 7
	defer func() { goTraceGenerationEvents = old }()
	for _, script := range examples(t) {
		for _, extra := range [][]string{nil, {"--startup", "go"}} {
			t.Run(strings.TrimSuffix(filepath.Base(script), ".star")+strings.Join(extra, ""), func(t *testing.T) {
				data, evs := runGoTrace(t, script, extra...)
				if err := tracetest.CheckGoTrace(data, evs); err != nil {
					t.Errorf("%s %v: %v", script, extra, err)
				}
			})
		}
	}
}

// TestGoTraceGCGenerations cuts the Go trace of runs with GC cycles
// (many cycles on 2 Ps, under --gc-cycle=mark and stw) into generations
// of 50 events: generations begin in the middle of a cycle (GCActive), of
// a mark assist and of a worker's marking, and the reader still finds every state and every GC
// range of the run.
func TestGoTraceGCGenerations(t *testing.T) {
	old := goTraceGenerationEvents
	goTraceGenerationEvents = 50
	defer func() { goTraceGenerationEvents = old }()
	script := filepath.Join(t.TempDir(), "gc.star")
	src := "def busy(n):\n    for i in range(n):\n        alloc(\"256KiB\")\n        work(\"50us\")\nretain(\"3MiB\")\nfor i in range(3):\n    spawn(busy, 100)\nbusy(100)\n"
	if err := os.WriteFile(script, []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, cycle := range []string{"mark", "stw"} {
		data, evs := runGoTrace(t, script, "--procs", "2", "--gc-cycle", cycle)
		if err := tracetest.CheckGoTrace(data, evs); err != nil {
			t.Errorf("--gc-cycle=%s: %v", cycle, err)
		}
		if err := tracetest.CheckGoTraceGC(data, evs, 20); err != nil {
			t.Errorf("--gc-cycle=%s: %v", cycle, err)
		}
	}
}

// TestGoToolTrace opens a simulated run with the go command's own trace
// tool: -d=parsed must parse it, and -pprof=sched must give a profile that
// names the script's functions and file.
func TestGoToolTrace(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	if testing.Short() {
		t.Skip("runs go tool trace")
	}
	file := filepath.Join(t.TempDir(), "s.trace")
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"--go-trace", file, "../../examples/stealing.star"}, &stdout, &stderr); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr.String())
	}
	out, err := exec.Command(goCmd, "tool", "trace", "-d=parsed", file).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool trace -d=parsed: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("GoCreate")) && !bytes.Contains(out, []byte("NotExist->Runnable")) {
		t.Errorf("go tool trace -d=parsed shows no goroutine creation:\n%.2000s", out)
	}
	for prof, names := range map[string][]string{
		"sched": {"job", "stealing.star"},  // G1 waits to run after job's wg.done()
		"sync":  {"main", "stealing.star"}, // G1 blocked in wg.wait()
	} {
		cmd := exec.Command(goCmd, "tool", "trace", "-pprof="+prof, file)
		var perr bytes.Buffer
		cmd.Stderr = &perr
		p, err := cmd.Output()
		if err != nil {
			t.Fatalf("go tool trace -pprof=%s: %v\n%s", prof, err, perr.String())
		}
		zr, err := gzip.NewReader(bytes.NewReader(p))
		if err != nil {
			t.Fatalf("go tool trace -pprof=%s: not a gzipped profile (%d bytes): %v", prof, len(p), err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range names {
			if !bytes.Contains(raw, []byte(s)) {
				t.Errorf("go tool trace -pprof=%s: the profile does not name %q", prof, s)
			}
		}
	}
}

// TestGoTraceDeterministic writes the same run twice: the same bytes.
func TestGoTraceDeterministic(t *testing.T) {
	a, _ := runGoTrace(t, "../../examples/stealing.star")
	b, _ := runGoTrace(t, "../../examples/stealing.star")
	if !bytes.Equal(a, b) {
		t.Errorf("two runs of stealing.star wrote different Go traces (%d and %d bytes)", len(a), len(b))
	}
}

// TestGoTraceNotInDirective: a script cannot make its run write a file.
func TestGoTraceNotInDirective(t *testing.T) {
	_, err := settingsFor("x.star", []byte("# schedlab: --go-trace=x.trace\nprint(1)\n"), []string{"x.star"})
	if err == nil || !strings.Contains(err.Error(), "-go-trace writes a file; give it on the command line") {
		t.Errorf("directive --go-trace: %v, want it refused", err)
	}
}

// BenchmarkGoTrace measures what --go-trace adds to a run: the same run of
// examples/prodcons.star without it and with it (Starlark backtraces on
// every stop, block and wake-up). Compare the two with benchstat.
func BenchmarkGoTrace(b *testing.B) {
	file := filepath.Join(b.TempDir(), "run.trace")
	for _, bench := range []struct {
		name string
		args []string
	}{
		{"plain", nil},
		{"go-trace", []string{"--go-trace", file}},
	} {
		b.Run(bench.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if code := Run(append(bench.args, "../../examples/prodcons.star"), io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
