package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func dist(counts map[string]int) *Dist {
	d := newDist()
	for o, n := range counts {
		d.add(o, n)
	}
	return d
}

func TestTVD(t *testing.T) {
	for _, tc := range []struct {
		a, b map[string]int
		want float64
	}{
		{map[string]int{"x": 10}, map[string]int{"x": 3}, 0},
		{map[string]int{"x": 1}, map[string]int{"y": 1}, 1},
		{map[string]int{"x": 9, "y": 1}, map[string]int{"x": 5, "y": 5}, 0.4},
		{map[string]int{"x": 1, "y": 1}, map[string]int{"x": 1, "z": 1}, 0.5},
	} {
		if got := TVD(dist(tc.a), dist(tc.b)); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("TVD(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestOutcomesOrder(t *testing.T) {
	d := dist(map[string]int{"b": 2, "a": 2, "c": 5})
	if got, want := strings.Join(d.Outcomes(), ","), "c,a,b"; got != want {
		t.Errorf("Outcomes() = %s, want %s", got, want)
	}
	if d.Mode() != "c" {
		t.Errorf("Mode() = %q, want c", d.Mode())
	}
}

func TestParseRecording(t *testing.T) {
	d, err := parseRecording(strings.NewReader("# header\n2685\tjob1=w3\n315\tjob1=w1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Total != 3000 || d.Counts["job1=w3"] != 2685 || d.Mode() != "job1=w3" {
		t.Errorf("got %+v", d)
	}
	for _, bad := range []string{"", "# only a header\n", "12 no tab\n", "x\tnot a count\n", "-1\tnegative\n"} {
		if _, err := parseRecording(strings.NewReader(bad)); err == nil {
			t.Errorf("parseRecording(%q) succeeded, want an error", bad)
		}
	}
}

// TestRecordings checks that every program of the manifest has its Go
// source, its twin and both recordings, and that the two recordings agree
// (a TVD of at most 0.10, the tolerance of the mean-TVD target: the real
// runtime's distribution is stable to well within what the target allows;
// docs/faithfulness.md gives each program's figure), or at most noisyFloor
// for a program the manifest calls noisy.
func TestRecordings(t *testing.T) {
	es, err := readManifest("corpus/MANIFEST")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) < 12 {
		t.Errorf("the corpus has %d programs, want at least 12", len(es))
	}
	// The whole corpus recorded again in a later session, which
	// docs/faithfulness.md compares with the first (-gogo): every pair,
	// at least 3000 runs. Their floors are not held to 0.10: measuring
	// how far Go moves between sessions is what they are for.
	for _, run := range sessionRuns {
		for _, e := range es {
			for _, p := range e.Procs {
				d, err := readRecording(filepath.Join("recordings", run, recordingName(e.Name, p)))
				if err != nil {
					t.Error(err)
				} else if d.Total < 3000 {
					t.Errorf("%s/%s: %d runs, want at least 3000", run, recordingName(e.Name, p), d.Total)
				}
			}
		}
	}
	for _, e := range es {
		for _, p := range e.Procs {
			var ds []*Dist
			for _, run := range recordingRuns {
				d, err := readRecording(filepath.Join("recordings", run, recordingName(e.Name, p)))
				if err != nil {
					t.Error(err)
					continue
				}
				if d.Total < 3000 {
					t.Errorf("%s/%s: %d runs, want at least 3000", run, recordingName(e.Name, p), d.Total)
				}
				ds = append(ds, d)
			}
			if len(ds) == 2 {
				limit := 0.10
				if e.Noisy {
					limit = noisyFloor
				}
				if tvd := TVD(ds[0], ds[1]); tvd > limit {
					t.Errorf("%s at GOMAXPROCS=%d: the two recordings differ by TVD %.3f, more than %.2f", e.Name, p, tvd, limit)
				}
			}
		}
	}
}
