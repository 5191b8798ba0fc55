package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// TestTwinsPrintSyscall runs every Go by Example twin
// (examples/gobyexample: a Starlark script beside what its Go program
// prints under the real runtime with one P, which lang's TestGoByExample
// checks) with each printed line the write(2) it is in Go
// (--print=syscall), on the default profile, whose sysmon ticks are as
// late as Go's (sysmon_late): every twin must print its .want. Those Go
// programs print with fmt.Println as they go, so each line is a system
// call there too; with sysmon ticking every 20µs (the default before
// sysmon_late), closing_channels, waitgroups and worker_pools do not
// match: sysmon retakes the only P during a write (docs/faithfulness.md,
// "sysmon's tick"). lang/testdata/faithful's twins are not run so: their
// Go programs gather every line in a strings.Builder and print it once at
// the end (its README), which --print=free models.
func TestTwinsPrintSyscall(t *testing.T) {
	costs := runtime.DefaultCosts()
	stars, err := filepath.Glob("../../examples/gobyexample/*.star")
	if err != nil {
		t.Fatal(err)
	}
	if len(stars) < 18 {
		t.Fatalf("%d twins, want the 18 of examples/gobyexample", len(stars))
	}
	for _, star := range stars {
		want, err := os.ReadFile(strings.TrimSuffix(star, ".star") + ".want")
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		res := lang.RunFile(star, nil, lang.Options{Procs: 1, Costs: costs, RuntimeMain: true, Print: lang.PrintSyscall, Stdout: &stdout, Stderr: &stderr})
		if res.ExitCode != 0 || stdout.String() != string(want) {
			t.Errorf("%s: exit %d, stdout\n%s\nwant\n%s\nstderr:\n%s", star, res.ExitCode, stdout.String(), want, stderr.String())
		}
	}
}
