package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The recordings and the twins, from this directory.
var (
	recordings = filepath.Join("recordings", "*.txt.gz")
	twinDir    = "."
)

// testTotal is the prefix of every run the test compares: the first
// 256 MiB of short-lived objects, a dozen cycles and more in every cell,
// in a second or two.
const testTotal = 256 << 20

// met lists the cells, by model, that are within 10% of real Go on the
// whole recorded runs (docs/faithfulness.md, "GC pacing"): on their first
// testTotal bytes they must stay within it.
var met = map[string][]key{}

// TestPacingHolds runs the twins of the cells that meet the target on
// the first testTotal bytes of each run and checks that they still do. A
// pacer with broken arithmetic (a wrong GOGC term in commit, a wrong
// trigger bound) moves the goals or the cycles by more than that.
func TestPacingHolds(t *testing.T) {
	recs, err := filepath.Glob(recordings)
	if err != nil || len(recs) == 0 {
		t.Fatalf("want recordings in %s, got %v (%v)", recordings, recs, err)
	}
	for model, cells := range met {
		for _, k := range cells {
			rows, _, err := compare(config{dir: twinDir, recs: recs, models: []string{model}, programs: []string{k.program}, total: testTotal, jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.key != k {
					continue
				}
				if !r.ok() {
					t.Errorf("%s GOGC=%d P=%d --gc-cycle=%s: cycles %d against Go's %g (%+.1f%%), mean goal %.2f MiB against %.2f (%+.1f%%): want both within 10%%",
						k.program, k.gogc, k.procs, model, r.twin.cycles, r.goc.cyclesMed, 100*r.cyclesErr,
						mean(r.twin.goals)/(1<<20), r.goc.goal/(1<<20), 100*r.goalErr)
				}
			}
		}
	}
}

// TestRecordings checks that every recording parses and holds every cell,
// with polled goals that agree with gctrace's.
func TestRecordings(t *testing.T) {
	recs, _ := filepath.Glob(recordings)
	for _, name := range recs {
		runs, err := readRecording(name)
		if err != nil {
			t.Fatal(err)
		}
		cells := make(map[key]int)
		for _, r := range runs {
			cells[key{r.program, r.gogc, r.procs}]++
			if n := goalMismatches(r); n > r.cycles/20 {
				t.Errorf("%s: %s GOGC=%d P=%d: %d of %d polled goals disagree with gctrace", name, r.program, r.gogc, r.procs, n, r.cycles)
			}
		}
		if len(cells) != 3*3*2 {
			t.Errorf("%s: %d cells, want 18", name, len(cells))
		}
		for k, n := range cells {
			if n < 3 {
				t.Errorf("%s: %v: %d runs, want 3 or more", name, k, n)
			}
		}
	}
}

// TestDeterministic: the same command prints the same bytes twice.
func TestDeterministic(t *testing.T) {
	args := []string{"-dir", twinDir, "-recordings", recordings, "-programs", "small", "-total", "64MiB"}
	var out [2]bytes.Buffer
	for i := range out {
		var stderr bytes.Buffer
		if code := doMain(args, &out[i], &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.Bytes())
		}
	}
	if out[0].String() != out[1].String() {
		t.Errorf("two runs differ:\n%s\n---\n%s", out[0].Bytes(), out[1].Bytes())
	}
	if !strings.Contains(out[0].String(), "| small | 50 | 1 | instant |") {
		t.Errorf("no row for small at GOGC=50, P=1, instant:\n%s", out[0].Bytes())
	}
}

// TestTwinsExist: every program has its twin.
func TestTwinsExist(t *testing.T) {
	for _, p := range programs {
		if _, err := os.Stat(filepath.Join(twinDir, p.name+".star")); err != nil {
			t.Error(err)
		}
	}
}
