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
// -update all of them.
func exampleCases(t *testing.T) []Case {
	t.Helper()
	cases, err := Cases([]string{examplesDir}, goldenDir, *update)
	if err != nil {
		t.Fatal(err)
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

// hostRuns is how many times TestDeterministic and TestHostIndependent
// run each example in each setting.
const hostRuns = 20

// TestDeterministic runs every example hostRuns times in this process and
// wants the same bytes each time.
func TestDeterministic(t *testing.T) {
	runs := hostRuns
	for _, c := range exampleCases(t) {
		t.Run(exampleName(c), func(t *testing.T) {
			first := Output(c.Script)
			for i := 1; i < runs; i++ {
				if got := Output(c.Script); !bytes.Equal(got, first) {
					t.Fatalf("run %d of %s differs from run 1:\n%s", i+1, c.Script, Diff("run 1", first, "run", got))
				}
			}
		})
	}
}

// TestHostIndependent builds the schedlab command and runs every example
// hostRuns times (3 with -short) with `schedlab run --trace` from the
// examples directory, under host GOMAXPROCS 1 and 8 and, unless -short,
// built with -race (under GOMAXPROCS 8, where the race detector has
// threads to watch), several runs at once. Each run must print its golden
// text byte for byte: the simulation does not depend on how many threads
// the host gives it, on the load of the host, nor on the race detector.
func TestHostIndependent(t *testing.T) {
	cases := exampleCases(t)
	if *update {
		t.Skip("golden files are being updated")
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build schedlab with")
	}
	type build struct {
		name  string
		flags []string
		procs []string
	}
	builds := []build{{"plain", nil, []string{"1", "8"}}}
	runs := hostRuns
	if testing.Short() {
		runs = 3
	} else {
		builds = append(builds, build{"race", []string{"-race"}, []string{"8"}})
	}
	for _, b := range builds {
		t.Run(b.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "schedlab")
			args := append([]string{"build", "-o", bin}, b.flags...)
			cmd := exec.Command(gocmd, append(args, "./cmd/schedlab")...)
			cmd.Dir = ".."
			if out, err := cmd.CombinedOutput(); err != nil {
				if slices.Contains(b.flags, "-race") {
					t.Skipf("cannot build with -race here: %v\n%s", err, out)
				}
				t.Fatalf("go build: %v\n%s", err, out)
			}
			for _, procs := range b.procs {
				for _, c := range cases {
					want, err := os.ReadFile(c.Golden)
					if err != nil {
						t.Fatal(err)
					}
					outs := make([][]byte, runs)
					var wg sync.WaitGroup
					for i := range runs {
						wg.Go(func() { outs[i] = runCommand(t, bin, c.Script, "GOMAXPROCS="+procs) })
					}
					wg.Wait()
					for i, got := range outs {
						if !bytes.Equal(got, want) {
							t.Errorf("run %d of %d: GOMAXPROCS=%s schedlab run --trace %s differs from %s:\n%s",
								i+1, runs, procs, c.Script, c.Golden, Diff(c.Golden, want, "output", got))
							break
						}
					}
				}
			}
		})
	}
}

// runCommand runs `bin run --trace script` in the script's directory with
// env added to the environment, and returns its golden text. It may be
// called from any goroutine.
func runCommand(t *testing.T, bin, script string, env ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, "run", "--trace", filepath.Base(script))
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
	return Format(stdout.Bytes(), stderr.Bytes(), code)
}

func exampleName(c Case) string {
	return strings.TrimSuffix(filepath.Base(c.Script), ScriptExt)
}
