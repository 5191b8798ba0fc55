package main

import (
	"slices"
	"strings"
	"testing"
)

// Two runs of a recording: the times by rank are differences between
// returns, and the runs are split by the state main.main began in.
func TestSummary(t *testing.T) {
	rec := `# header
3 0 1 2	| s0 t=196us on=P1 spin=1 idleP=0 idleM=1 Ms=4 goid=32 P0=running/M/tick3/rq0 P1=running/M/tick4/rq1,G17+next=G18 | spawns=20000,21000,51000
0 1 3 2	| s0 t=201us on=P0 spin=0 idleP=1 idleM=2 Ms=4 goid=32 P0=running/M/tick2/rq0+next=G6 P1=idle/-/tick5/rq0 | spawns=10000,10500,40500
`
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"2 runs;",
		"   1      2     10.0     10.0     10.0     10.0     10.0",
		"   2      2      0.5      0.5      0.5      0.5      0.5",
		"   3      2     30.0     30.0     30.0     30.0     30.0",
		"   1 [10000, 10000,",
		"main's P ring+next, other P running, spinning 1             1  50.0%   3 0 1 2 100%",
		"main's P next, other P idle, spinning 0                     1  50.0%   0 1 3 2 100%",
	} {
		// Compared with the spacing of columns squeezed.
		squeeze := func(s string) string { return strings.Join(strings.Fields(s), " ") }
		if !strings.Contains(squeeze(out.String()), squeeze(want)) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func TestParseErrors(t *testing.T) {
	for line, want := range map[string]string{
		"3 0 1 2": "no tab and |",
		"x\t| s0 t=1us on=P0 spin=1 P0=running/M/tick1/rq0 |":            "no spawns=",
		"x\t| s0 t=1us spin=1 P0=running/M/tick1/rq0 | spawns=1":         "not a start-up state",
		"x\t| s0 t=1us on=P0 spin=1 P0=running/M/tick1/rq0 | spawns=1,x": "spawns:",
	} {
		if _, err := parse(line); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parse(%q) = %v, want an error with %q", line, err, want)
		}
	}
}

// schedlab's runs of a twin are read as the probe reads Go's: four go
// statements a run, in the order they returned, after main.main began,
// and the state main.main began in.
func TestSimulate(t *testing.T) {
	runs, err := simulate("../../corpus/spawn_order.star", 20, []string{"--procs=2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 20 {
		t.Fatalf("%d runs, want 20", len(runs))
	}
	for i, r := range runs {
		if len(r.spawns) != 4 || r.spawns[0] < 0 || !slices.IsSorted(r.spawns) {
			t.Errorf("run %d: spawns %v, want 4 times from main.main on", i+1, r.spawns)
		}
		if !strings.HasPrefix(r.state, "main's P ") || !strings.Contains(r.state, "other P running") {
			t.Errorf("run %d: state %q, want main's P and the other P running", i+1, r.state)
		}
		if len(strings.Fields(r.outcome)) != 4 {
			t.Errorf("run %d: outcome %q, want four ids", i+1, r.outcome)
		}
	}
	if _, err := simulate("../../corpus/spawn_order.star", 1, []string{"--startup=bare"}); err == nil || !strings.Contains(err.Error(), "no start-up") {
		t.Errorf("a bare start: %v, want an error that it has no start-up", err)
	}
}
