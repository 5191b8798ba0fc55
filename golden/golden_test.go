package golden

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/testbuild"
)

var update = flag.Bool("update", false, "update golden files")

// The examples and their golden files as seen from this directory: the
// test does what `schedlab test -golden golden examples` does from the
// root of the repository.
const (
	examplesDir = "../examples"
	goldenDir   = "."
)

// exampleCases returns the examples that have a golden file, or with
// -update also the top-level examples that have none yet. The scripts of
// examples' subdirectories (gobyexample/, checked against their Go
// programs' output by their own test) get no golden file made for them.
func exampleCases(t *testing.T) []Case {
	t.Helper()
	all, err := Cases([]string{examplesDir}, goldenDir, *update)
	if err != nil {
		t.Fatal(err)
	}
	var cases []Case
	for _, c := range all {
		if _, err := os.Stat(c.Golden); err != nil && filepath.Dir(c.Script) != filepath.Clean(examplesDir) {
			continue
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Skip("no examples with golden files yet")
	}
	return cases
}

// TestExamples checks every example against its golden file, with the
// same code as `schedlab test`. Run `go test ./golden -update` to rewrite
// the golden files that differ (and read the diff before committing).
func TestExamples(t *testing.T) {
	for _, c := range exampleCases(t) {
		t.Run(exampleName(c), func(t *testing.T) {
			switch r := c.Check(*update); r.Status {
			case Pass:
			case Updated:
				t.Logf("updated %s", c.Golden)
			case Created:
				t.Logf("created %s", c.Golden)
			case Fail:
				t.Errorf("output of %s differs from %s (go test ./golden -update rewrites it):\n%s", c.Script, c.Golden, r.Diff)
			case NoGolden:
				t.Errorf("%s: no golden file %s", c.Script, c.Golden)
			case Error:
				t.Error(r.Err)
			}
		})
	}
}

// TestEveryExampleHasGolden checks that no example goes untested for want
// of a golden file, and that no golden file outlives its example.
func TestEveryExampleHasGolden(t *testing.T) {
	scripts, _ := filepath.Glob(filepath.Join(examplesDir, "*"+ScriptExt))
	goldens, _ := filepath.Glob(filepath.Join(goldenDir, "*"+GoldenExt))
	if len(scripts) == 0 || len(goldens) == 0 && !*update {
		t.Skip("no examples or no golden files yet")
	}
	var names []string
	for _, s := range scripts {
		name := strings.TrimSuffix(filepath.Base(s), ScriptExt)
		names = append(names, name)
		if _, err := os.Stat(filepath.Join(goldenDir, name+GoldenExt)); err != nil && !*update {
			t.Errorf("%s has no golden file (go test ./golden -update creates it)", s)
		}
	}
	for _, g := range goldens {
		if name := strings.TrimSuffix(filepath.Base(g), GoldenExt); !slices.Contains(names, name) {
			t.Errorf("golden file %s has no example %s", g, filepath.Join(examplesDir, name+ScriptExt))
		}
	}
}

// hostRuns is how many times TestDeterministic runs each example.
const hostRuns = 20

// TestDeterministic runs every example hostRuns times in this process and
// wants the same bytes each time.
func TestDeterministic(t *testing.T) {
	runs := hostRuns
	for _, c := range exampleCases(t) {
		t.Run(exampleName(c), func(t *testing.T) {
			mode := scriptMode(t, c.Script)
			first := output(cli.Host{}, c.Script, mode)
			for i := 1; i < runs; i++ {
				if got := output(cli.Host{}, c.Script, mode); !bytes.Equal(got, first) {
					t.Fatalf("run %d of %s differs from run 1:\n%s", i+1, c.Script, Diff("run 1", first, "run", got))
				}
			}
		})
	}
}

// The runs of TestHostIndependent in each setting: hostProcs processes of
// `schedlab test` at once, each running every example hostPasses times
// (one pass with -short).
const (
	hostProcs  = 2
	hostPasses = 3
)

// A hostSetting is one way the host runs the command: a build of it and
// the GOMAXPROCS it gets.
type hostSetting struct {
	build      string // "plain" or "race"
	gomaxprocs string
}

// TestHostIndependent checks that every example prints its golden text
// byte for byte whatever the host does: under host GOMAXPROCS 1 and 8,
// built with -race (under GOMAXPROCS 8, where the race detector has
// threads to watch; not with -short), and while other runs load the
// host. In each setting it runs, all settings at once so that the runs
// compete for the host's CPUs:
//
//   - hostProcs processes of `schedlab test -golden . ../examples ...`
//     at once, each of which runs every example hostPasses times and
//     compares each run with its golden file, with the code of
//     `schedlab run --trace` (golden.Output);
//   - `schedlab run --trace` of every example in a fresh process of its
//     own, from the examples directory, as a person runs it.
//
// The command is built once per build and kept in the temporary
// directory under the hash of its sources (hostBinary, testbuild.Build),
// so that a second `go test` with the same sources does not build it
// again.
func TestHostIndependent(t *testing.T) {
	cases := exampleCases(t)
	if *update {
		t.Skip("golden files are being updated")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build schedlab with")
	}
	settings := []hostSetting{{"plain", "1"}, {"plain", "8"}}
	passes := hostPasses
	if testing.Short() {
		passes = 1
	} else {
		settings = append(settings, hostSetting{"race", "8"})
	}
	bins := map[string]string{}
	for _, s := range settings {
		if bins[s.build] != "" {
			continue
		}
		bin, err := hostBinary(s.build)
		if err != nil {
			if s.build == "race" {
				t.Logf("cannot build with -race here, skipping the race setting: %v", err)
				continue
			}
			t.Fatal(err)
		}
		bins[s.build] = bin
	}
	examples := make([]string, passes)
	for i := range examples {
		examples[i] = examplesDir
	}
	var wg sync.WaitGroup
	for _, s := range settings {
		bin := bins[s.build]
		if bin == "" {
			continue
		}
		env := "GOMAXPROCS=" + s.gomaxprocs
		name := s.build + " GOMAXPROCS=" + s.gomaxprocs
		for range hostProcs {
			wg.Go(func() {
				cmd := exec.Command(bin, append([]string{"test", "-golden", goldenDir}, examples...)...)
				cmd.Env = append(os.Environ(), env)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s: schedlab test -golden %s %s: %v\n%s", name, goldenDir, examplesDir, err, out)
				}
			})
		}
		for _, c := range cases {
			mode := scriptMode(t, c.Script)
			wg.Go(func() {
				want, err := os.ReadFile(c.Golden)
				if err != nil {
					t.Error(err)
					return
				}
				if got := runCommand(t, bin, c.Script, mode, env); !bytes.Equal(got, want) {
					t.Errorf("%s: schedlab run (mode %s) %s differs from %s:\n%s", name, mode, c.Script, c.Golden, Diff(c.Golden, want, "output", got))
				}
			})
		}
	}
	wg.Wait()
}

// hostBinary returns the schedlab command built for TestHostIndependent
// ("plain", or "race" for -race), built once per set of sources
// (testbuild.Build).
func hostBinary(build string) (string, error) {
	name, flags := "schedlab", []string(nil)
	if build == "race" {
		name, flags = "schedlab-race", []string{"-race"}
	}
	return testbuild.Build("..", name, nil, flags, "./cmd/schedlab")
}

// scriptMode returns the golden mode of the script: its `# schedlab
// test:` directive's, or the trace.
func scriptMode(t *testing.T, script string) Mode {
	t.Helper()
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	mode, err := ScriptMode(script, src, ModeTrace)
	if err != nil {
		t.Fatal(err)
	}
	return mode
}

// runCommand runs `bin run --trace script` (`bin run script` in the output
// mode) in the script's directory with env added to the environment, and
// returns its golden text in mode. It may be called from any goroutine.
func runCommand(t *testing.T, bin, script string, mode Mode, env ...string) []byte {
	t.Helper()
	args := []string{"run", "--trace", filepath.Base(script)}
	if mode == ModeOutput {
		args = []string{"run", filepath.Base(script)}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Dir(script)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Errorf("%s: %v", bin, err) // not Fatalf: it runs on goroutines of its own
			return nil
		}
		code = ee.ExitCode()
	}
	out := stdout.Bytes()
	if mode == ModeEvents {
		out = dropTimes(out)
	}
	return Format(out, stderr.Bytes(), code)
}

func exampleName(c Case) string {
	return strings.TrimSuffix(filepath.Base(c.Script), ScriptExt)
}
