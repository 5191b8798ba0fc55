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

// TestViewsFoldStartup: the views' text trace folds the start-up as
// `schedlab run --trace` does, and their count of events is the trace's
// event lines, not the folded ones, so that a stepper's step k is the
// trace's k-th event line;
// with --trace-startup they show every event of the start-up, one line
// each, and count them all.
func TestViewsFoldStartup(t *testing.T) {
	src, err := os.ReadFile("../../examples/hello.star")
	if err != nil {
		t.Fatal(err)
	}
	folded := RunViews("hello.star", src, []string{"--procs=2"}, Want{}, nil, nil)
	tr := string(folded.Trace)
	if folded.Code != 0 || !strings.Contains(tr, "\n# start-up: 34 events folded ") || strings.Contains(tr, " fn=runtime.") {
		t.Fatalf("status %d, trace:\n%s", folded.Code, tr)
	}
	if n := tracetest.TextEvents(folded.Trace); n != folded.Events+34 {
		t.Errorf("the folded trace stands for %d events, the run counted %d besides the 34 folded", n, folded.Events)
	}
	whole := RunViews("hello.star", src, []string{"--procs=2", "--trace-startup"}, Want{}, nil, nil)
	tr = string(whole.Trace)
	if whole.Code != 0 || strings.Contains(tr, "# start-up") || !strings.Contains(tr, " fn=runtime.forcegchelper ") {
		t.Fatalf("status %d, trace:\n%s", whole.Code, tr)
	}
	if n := tracetest.TextEvents(whole.Trace); n != whole.Events || whole.Events != folded.Events+34 {
		t.Errorf("the whole trace has %d event lines, the run %d events, want the folded run's %d and 34", n, whole.Events, folded.Events)
	}
}
