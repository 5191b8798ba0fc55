package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary stand in for the schedlab command in the
// scripts of testdata/script.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"schedlab": main,
	})
}

// TestScripts runs the command-line tests in testdata/script/*.txtar.
// $EXAMPLES is the repository's examples directory, for scripts that run
// an example as it is; $GOKER is bench/goker, the GoKer kernels' ports. With -update, a cmp whose second file is in the
// archive rewrites that file (read the diff before committing it).
func TestScripts(t *testing.T) {
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	goker, err := filepath.Abs("../../bench/goker")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			env.Setenv("GOKER", goker)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status": status,
		},
		RequireExplicitExec: true,
		UpdateScripts:       *update, // cmp's files in the archive, for a diff to read
	})
}

// status is the script command `status N prog args...`: it runs prog as
// exec does and fails unless prog exits with status N.
func status(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N prog [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: bad exit status %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("status: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}
