package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/trace/tracetest"
)

// TestFoldStartupWithSchedTrace: schedtrace lines due during the start-up
// go to stderr and flush the trace before them, but the held start-up
// stays folded: one line of it on the terminal, after those lines.
func TestFoldStartupWithSchedTrace(t *testing.T) {
	var out strings.Builder // stdout and stderr, as a terminal shows them
	if code := Run([]string{"--trace", "--procs=2", "--startup=go", "--schedtrace=10us", "../../examples/hello.star"}, &out, &out); code != 0 {
		t.Fatalf("status %d:\n%s", code, out.String())
	}
	got := out.String()
	fold := strings.Index(got, "\n# start-up: 34 events folded ")
	if fold < 0 || strings.Contains(got, "fn=runtime.") {
		t.Fatalf("the start-up is not folded into one line:\n%s", got)
	}
	if n := strings.Count(got[:fold], "\nSCHED "); n < 2 {
		t.Errorf("%d schedtrace lines before the fold, want those of the start-up's 184µs:\n%s", n, got)
	}
}

// TestViewsKeepStartup: the views of a run under --startup=go show every
// event of the start-up, one line each, so that a stepper's step k is the
// trace's k-th event line.
func TestViewsKeepStartup(t *testing.T) {
	src, err := os.ReadFile("../../examples/hello.star")
	if err != nil {
		t.Fatal(err)
	}
	v := RunViews("hello.star", src, []string{"--procs=2", "--startup=go"}, Want{}, nil, nil)
	tr := string(v.Trace)
	if v.Code != 0 || strings.Contains(tr, "# start-up") || !strings.Contains(tr, " fn=runtime.forcegchelper ") {
		t.Fatalf("status %d, trace:\n%s", v.Code, tr)
	}
	if n := tracetest.TextEvents(v.Trace); n != v.Events {
		t.Errorf("the trace has %d event lines, the run %d events", n, v.Events)
	}
}
