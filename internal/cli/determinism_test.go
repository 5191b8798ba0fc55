package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// TestCheckDeterminismExamples: every example is deterministic, and says
// how many events it compared.
func TestCheckDeterminismExamples(t *testing.T) {
	scripts, _ := filepath.Glob("../../examples/*.star")
	if len(scripts) == 0 {
		t.Skip("no examples")
	}
	ok := regexp.MustCompile(`^deterministic: [1-9]\d* events, identical\n$`)
	for _, script := range scripts {
		var stdout, stderr bytes.Buffer
		code := Run([]string{"--check-determinism", script}, &stdout, &stderr)
		if code != 0 || !ok.MatchString(stdout.String()) || stderr.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", script, code, stdout.String(), stderr.String())
		}
	}
}

// TestCheckDeterminismReports: a difference in the events, on stderr or in
// the exit status is reported with exit status 1; a script that does not
// load is its error, exit 1.
func TestCheckDeterminismReports(t *testing.T) {
	defer func(f func(Host, *lang.Program, *Settings, *recorder, runtime.Tracer, func(*runtime.Machine)) (*lang.Result, string)) {
		checkRun = f
	}(checkRun)
	ev := func(seq uint64, kind runtime.EventKind, g int64, reason string) runtime.Event {
		return runtime.Event{Seq: seq, Time: int64(seq) * 1000, P: 0, M: 0, G: g, P2: -1, Kind: kind, Reason: reason}
	}
	runs := [][]runtime.Event{
		{ev(1, runtime.EvProcStart, 0, ""), ev(2, runtime.EvGoStart, 1, ""), ev(3, runtime.EvGoBlock, 1, "chan receive")},
		{ev(1, runtime.EvProcStart, 0, ""), ev(2, runtime.EvGoStart, 1, ""), ev(3, runtime.EvGoBlock, 1, "sleep")},
	}
	stderrs := []string{"", ""}
	codes := []int{0, 0}
	n := 0
	prog, err := lang.Compile("x.star", []byte("pass\n"), lang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun = func(_ Host, _ *lang.Program, _ *Settings, rec *recorder, _ runtime.Tracer, _ func(*runtime.Machine)) (*lang.Result, string) {
		i := n % 2
		n++
		for _, e := range runs[i] {
			rec.Event(&e)
		}
		return &lang.Result{ExitCode: codes[i], Run: &runtime.Result{}}, stderrs[i]
	}
	check := func(wantCode int, want ...string) {
		t.Helper()
		var stdout bytes.Buffer
		code := checkDeterminism(Host{}, prog, NewSettings(), &stdout, &bytes.Buffer{})
		if code != wantCode {
			t.Errorf("exit %d, want %d; stdout:\n%s", code, wantCode, stdout.String())
		}
		for _, w := range want {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("stdout:\n%s\nwant %q in it", stdout.String(), w)
			}
		}
	}
	check(1, "not deterministic: event 3 of 3 differs\n",
		"  run 1: 3.000µs P0  M0  G1    GoBlock        reason=\"chan receive\"\n",
		"  run 2: 3.000µs P0  M0  G1    GoBlock        reason=sleep\n")

	runs[1] = runs[1][:2]
	check(1, "not deterministic: event 3 of 3 differs\n", "  run 2: (the run had ended after 2 events)\n")

	runs[1] = runs[0]
	stderrs[1] = "panic: x\n"
	check(1, "not deterministic: the 3 events agree, what the runs wrote on stderr differs\n", `  run 2: "panic: x"`)

	stderrs[1] = ""
	codes[1] = 2
	check(1, "the exit status was 0 then 2\n")

	codes[1] = 0
	check(0, "deterministic: 3 events, identical\n")

	checkRun = runForCheck
	var stdout, stderr bytes.Buffer
	bad := filepath.Join(t.TempDir(), "x.star")
	if err := os.WriteFile(bad, []byte("x = = 1\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if code := Run([]string{"--check-determinism", bad}, &stdout, &stderr); code != 1 || stderr.String() != bad+":1:5: got '=', want primary expression\n    x = = 1\n        ^\n" {
		t.Errorf("syntax error: exit %d, stderr %q", code, stderr.String())
	}
}
