package lang

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/testbuild"
	"github.com/schedlab/schedlab/runtime"
)

// TestFaithful runs every testdata/faithful/NAME.star on one P, preemption
// off, with the default costs profile and with the zero one, and compares
// its stdout byte for byte with NAME.want: what the Go twin NAME.go prints
// under the real runtime; its stderr must be empty, as the twin's is.
// Unless -short is given or no go command is on PATH, it also runs the
// twin, with
//
//	GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 go run NAME.go
//
// and checks that NAME.want still says what Go does. The twin is run every
// time; its binary is built once per set of sources (testbuild.Build).
// These Go programs gather their lines in a strings.Builder and print it
// once at the end (testdata/faithful/README.md), so the twins print free
// (PrintFree, their directive's --print=free).
func TestFaithful(t *testing.T) { testFaithful(t, "testdata/faithful", PrintFree) }

// TestGoByExample does what TestFaithful does for examples/gobyexample:
// every concurrency chapter of Go by Example, written with the builtins,
// next to its Go program and what that program printed. Those programs
// print with fmt.Println as they go, so a line is the write(2) it is in
// Go wherever the profile charges one (PrintAuto, the command's default).
func TestGoByExample(t *testing.T) { testFaithful(t, "../examples/gobyexample", PrintAuto) }

// A faithfulRun is one way a twin runs.
type faithfulRun struct {
	name        string
	costs       *runtime.Costs
	runtimeMain bool
}

// faithfulRuns are the ways a twin runs: on the default profile and the
// zero one, each with runtime.main's start-up (--startup=go, the
// command's default) and without it (--startup=bare): Go 1.26 starts those
// goroutines at GOMAXPROCS=1 too, and a single-P twin must match either way.
func faithfulRuns() []faithfulRun {
	var runs []faithfulRun
	for _, costs := range []*runtime.Costs{runtime.DefaultCosts(), runtime.ZeroCosts()} {
		for _, startup := range []string{"go", "bare"} {
			runs = append(runs, faithfulRun{"costs=" + costs.Name + "/startup=" + startup, costs, startup == "go"})
		}
	}
	return runs
}

// testFaithful checks every NAME.star of dir against NAME.want, its lines
// printed as mode says, and unless -short, NAME.go under the real
// runtime against NAME.want.
func testFaithful(t *testing.T, dir string, mode PrintMode) {
	stars, err := filepath.Glob(filepath.Join(dir, "*.star"))
	if err != nil {
		t.Fatal(err)
	}
	if len(stars) == 0 {
		t.Fatalf("no %s/*.star", dir)
	}
	_, goErr := exec.LookPath("go")
	for _, star := range stars {
		base := strings.TrimSuffix(star, ".star")
		name := filepath.Base(base)
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(base + ".want")
			if err != nil {
				t.Fatalf("%s has no .want: %v", star, err)
			}
			for _, run := range faithfulRuns() {
				t.Run("schedlab/"+run.name, func(t *testing.T) {
					var stdout, stderr bytes.Buffer
					res := RunFile(star, nil, Options{Procs: 1, Costs: run.costs, RuntimeMain: run.runtimeMain, Print: mode, Stdout: &stdout, Stderr: &stderr})
					if res.ExitCode != 0 {
						t.Errorf("%s: exit status %d; stderr:\n%s", star, res.ExitCode, stderr.String())
					} else if stderr.Len() != 0 {
						// The Go program writes nothing on stderr (checked
						// below): a goroutine still alive when main returns
						// is left silently, as Go leaves it.
						t.Errorf("%s: stderr is not empty, as Go's is:\n%s", star, stderr.String())
					}
					if got := stdout.String(); got != string(want) {
						t.Errorf("%s: stdout differs from %s.want:\n%s", star, name, lineDiff(string(want), got))
					}
				})
			}
			t.Run("go", func(t *testing.T) {
				if testing.Short() {
					t.Skip("-short: not running the Go twin")
				}
				if goErr != nil {
					t.Skip("no go command on PATH")
				}
				if _, err := os.Stat(base + ".go"); err != nil {
					t.Fatalf("%s has no Go twin: %v", star, err)
				}
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				// Built once per set of sources (testbuild.Build).
				exe, err := testbuild.Build(filepath.Dir(base), name, []string{"GOFLAGS="}, nil, filepath.Base(base)+".go")
				if err != nil {
					t.Fatal(err)
				}
				// The real runtime is not a pure function of the program:
				// sysmon still preempts at function calls after 10ms of wall
				// time and timers fire late on a loaded host. So the twin
				// gets a few tries; one run that prints the .want is enough
				// to show the order is the runtime's.
				const tries = 5
				var diffs []string
				for range tries {
					cmd := exec.CommandContext(ctx, exe)
					cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "GODEBUG=asyncpreemptoff=1")
					var stdout, stderr bytes.Buffer
					cmd.Stdout, cmd.Stderr = &stdout, &stderr
					if err := cmd.Run(); err != nil {
						t.Fatalf("%s: %v\n%s", name, err, stderr.String())
					}
					if stderr.Len() != 0 {
						t.Fatalf("%s.go wrote on stderr:\n%s", name, stderr.String())
					}
					got := stdout.String()
					if got == string(want) {
						return
					}
					diffs = append(diffs, lineDiff(string(want), got))
				}
				t.Errorf("%s.go under the real runtime differs from %s.want in all %d runs; the first:\n%s", name, name, tries, diffs[0])
			})
		})
	}
}

// lineDiff shows where got departs from want, line by line.
func lineDiff(want, got string) string {
	wl := strings.Split(want, "\n")
	gl := strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		mark := " "
		if w != g {
			mark = "!"
		}
		fmt.Fprintf(&b, "%s %3d  want %-40q got %q\n", mark, i+1, w, g)
	}
	return b.String()
}
