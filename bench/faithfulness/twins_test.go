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

// TestTwinsPrintSyscall runs every single-P twin (lang/testdata/faithful,
// examples/gobyexample: a Starlark script beside what its Go program
// prints under the real runtime, which lang's TestFaithful checks) with
// each printed line the write(2) it is in Go (--print=syscall), on
// profiles/sysmon-late.json, the default with sysmon's ticks as late as
// Go's: every twin must print its .want. On the default profile, whose
// sysmon ticks every 20µs, 14 of them do not: sysmon retakes the only P
// during a write (docs/faithfulness.md, "sysmon's tick").
func TestTwinsPrintSyscall(t *testing.T) {
	data, err := os.ReadFile("profiles/sysmon-late.json")
	if err != nil {
		t.Fatal(err)
	}
	costs, err := runtime.ParseCosts("profiles/sysmon-late.json", data)
	if err != nil {
		t.Fatal(err)
	}
	var stars []string
	for _, dir := range []string{"../../lang/testdata/faithful", "../../examples/gobyexample"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.star"))
		if err != nil {
			t.Fatal(err)
		}
		stars = append(stars, m...)
	}
	if len(stars) < 40 {
		t.Fatalf("%d twins, want the 51 of lang/testdata/faithful and examples/gobyexample", len(stars))
	}
	for _, star := range stars {
		want, err := os.ReadFile(strings.TrimSuffix(star, ".star") + ".want")
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		res := lang.RunFile(star, nil, lang.Options{Procs: 1, Costs: costs, RuntimeMain: true, PrintSyscall: true, Stdout: &stdout, Stderr: &stderr})
		if res.ExitCode != 0 || stdout.String() != string(want) {
			t.Errorf("%s: exit %d, stdout\n%s\nwant\n%s\nstderr:\n%s", star, res.ExitCode, stdout.String(), want, stderr.String())
		}
	}
}
