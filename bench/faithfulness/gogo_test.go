package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRec writes a recording as record.sh does, with a header.
func writeRec(t *testing.T, dir, run, name, machine, load, body string) {
	t.Helper()
	d := filepath.Join(dir, "recordings", run)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	text := "# program: " + name + ".go  GOMAXPROCS=2  runs: 10\n" +
		"# machine: 2 CPUs, " + machine + ", Linux 6\n" +
		"# started: 2026-12-06T00:00:00Z  load before: " + load + " 0.10 0.05  after: 1.00 0.20 0.10\n" + body
	if err := os.WriteFile(filepath.Join(d, name+"-p2.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGoGo compares two sets of recordings: pooled within a set, the TVD
// between the sets, each set's floor between its first two recordings, and
// where each was made.
func TestGoGo(t *testing.T) {
	dir := t.TempDir()
	xeon := "Intel(R) Xeon(R) Processor @ 2.10GHz"
	writeRec(t, dir, "a1", "prog", xeon, "0.50", "8\tx\n2\ty\n")
	writeRec(t, dir, "a2", "prog", xeon, "0.60", "6\tx\n4\ty\n")
	writeRec(t, dir, "b1", "prog", "AMD EPYC", "2.00", "10\ty\n")
	var out bytes.Buffer
	if err := writeGoGo(&out, dir, []entry{{Name: "prog", Procs: []int{2}}}, []string{"a1", "a2"}, []string{"b1"}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	// A pools 14 x and 6 y: x is its mode at 70%; B is all y, so the TVD
	// is 0.7. A's floor is |0.8-0.6| = 0.2; B has one recording.
	for _, want := range []string{
		"| prog | 2 | Xeon, load 0.50/0.60 | AMD EPYC, load 2.00 | `x` | 70.0% / 0 | 0.700 | 0.200 | - |",
		"1 pairs · mean TVD a1+a2 against b1: 0.700 · mean floor 0.200 and 0.000",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the comparison lacks %q; it is\n%s", want, got)
		}
	}
	if err := writeGoGo(&out, dir, []entry{{Name: "other", Procs: []int{2}}}, []string{"a1"}, []string{"b1"}); err == nil {
		t.Error("a pair with no recording compared without an error")
	}
}

// TestFloorOf: the floor is the largest distance between two sessions,
// not the first two's.
func TestFloorOf(t *testing.T) {
	a := dist(map[string]int{"x": 10})
	b := dist(map[string]int{"x": 9, "y": 1})
	c := dist(map[string]int{"x": 5, "y": 5})
	if got := floorOf([]*Dist{a, b, c}); got != 0.5 {
		t.Errorf("floorOf(a, b, c) = %v, want 0.5 (a against c)", got)
	}
	if got := floorOf([]*Dist{a}); got != 0 {
		t.Errorf("floorOf(a) = %v, want 0", got)
	}
}

// TestGroupsText: the report's footer names every recording pooled, as
// before for single directories, and which sessions Go~Go compares.
func TestGroupsText(t *testing.T) {
	for _, c := range []struct {
		groups [][]string
		want   string
	}{
		{[][]string{{"run1"}, {"run2"}}, "run1+run2 pooled"},
		{[][]string{{"run1", "run2"}, {"q1", "q2"}}, "run1+run2+q1+q2 pooled; Go~Go: run1+run2 against q1+q2"},
		{[][]string{{"q1", "q2"}}, "q1+q2 pooled"},
		{[][]string{{"run1", "run2"}, {"q1", "q2"}, {"d3"}}, "run1+run2+q1+q2+d3 pooled; Go~Go: the largest of run1+run2, q1+q2, d3 against each other"},
		{[][]string{{"a"}, {"b"}, {"c"}}, "a+b+c pooled; Go~Go: the largest of a, b, c against each other"},
	} {
		if got := groupsText(c.groups); got != c.want {
			t.Errorf("groupsText(%q) = %q, want %q", c.groups, got, c.want)
		}
	}
}

// TestReportAgainstFloor: each pair's TVD is read against its floor: the
// mean of what lies above it, and how many pairs lie within it (or within
// 0.10 where the floor is smaller).
func TestReportAgainstFloor(t *testing.T) {
	dist := func(counts map[string]int) *Dist {
		d := newDist()
		for o, n := range counts {
			d.add(o, n)
		}
		return d
	}
	rows := []row{
		// TVD 0.3 against a floor of 0.4: within, nothing above.
		{Name: "a", Procs: 2, Go: dist(map[string]int{"x": 5, "y": 5}), Sim: dist(map[string]int{"x": 8, "y": 2}), GoNoise: 0.4, Default: "x"},
		// TVD 0.5 against a floor of 0.1: 0.4 above.
		{Name: "b", Procs: 2, Go: dist(map[string]int{"x": 10}), Sim: dist(map[string]int{"x": 5, "y": 5}), GoNoise: 0.1, Default: "x"},
	}
	cfg := &config{minFreq: 0.01, perturb: "timing", startup: "go", print: "free", costs: "default", recs: [][]string{{"s1a", "s1b"}, {"s2a", "s2b"}}}
	var out bytes.Buffer
	writeReport(&out, cfg, rows)
	want := "against the floor: mean TVD above Go~Go 0.200 · within Go~Go (or 0.10) 1/2"
	if !strings.Contains(out.String(), want) {
		t.Errorf("the report lacks %q; it is\n%s", want, out.String())
	}
	cfg.recs = cfg.recs[:1]
	out.Reset()
	writeReport(&out, cfg, rows)
	if strings.Contains(out.String(), "against the floor") {
		t.Errorf("a report with one set of recordings, and so no floor, reads TVDs against it:\n%s", out.String())
	}
}

// TestTVDExact: the same two distributions give the same TVD to the last
// bit, whatever order their maps are walked in: a report made twice from
// the same runs is the same bytes.
func TestTVDExact(t *testing.T) {
	a, b := newDist(), newDist()
	for i := range 40 {
		a.add(string(rune('A'+i)), 1+i*7%13)
		b.add(string(rune('A'+i)), 1+i*11%17)
	}
	first := TVD(a, b)
	for range 200 {
		if got := TVD(a, b); got != first {
			t.Fatalf("TVD gave %v, then %v", first, got)
		}
	}
}

// TestRecordedCPUs: the report's default -cpus reads the recordings'
// # machine lines; a line without the count, or two machines that
// disagree, is an error that says to give -cpus.
func TestRecordedCPUs(t *testing.T) {
	dir := t.TempDir()
	writeRec(t, dir, "a1", "prog", "AMD EPYC", "0.50", "8\tx\n")
	h, err := readHeader(filepath.Join(dir, "recordings", "a1", "prog-p2.txt"))
	if err != nil || h.CPUs != 2 || h.Machine != "AMD EPYC" {
		t.Fatalf("readHeader: %+v, %v; want 2 CPUs of AMD EPYC", h, err)
	}
	if n, err := recordedCPUs([]header{h, h}); n != 2 || err != nil {
		t.Errorf("two recordings on 2 CPUs: %d, %v", n, err)
	}
	for _, hs := range [][]header{{h, {Machine: "?"}}, {h, {Machine: "x", CPUs: 4}}} {
		if _, err := recordedCPUs(hs); err == nil || !strings.Contains(err.Error(), "give -cpus") {
			t.Errorf("%+v: error %v, want one that says to give -cpus", hs, err)
		}
	}
}
