package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The recordings and the twins, from this directory.
var (
	recordings = quietRecordings
	twinDir    = "."
)

// testTotal is the whole recorded run: a prefix of each run does not
// do, since the first cycles (while the live heap is built, and the
// cons/mark estimate settles) weigh too much in a few hundred MiB, and
// cells within 10% on 2 GiB miss on 256 MiB or 1 GiB.
const testTotal = recordedTotal

// testSeeds is how many seeds TestPacingHolds runs each twin under
// (-seeds): one default run, every cost at its median, has exact periods
// that can lock in step, and then a cell's cycles halve for one value of
// one cost (small at GOGC 50 and one P, for a sysmon_late of 66-70.5µs;
// docs/faithfulness.md, "sysmon's ticks in situ"). The median of five
// runs under --perturb=timing, its stalls off, does not lock.
const testSeeds = 5

// met lists cells, by model, that are within 10% of real Go's quiet
// recordings (docs/faithfulness.md, "GC pacing"), and must stay within
// it: every cell of the mark model with 16 KiB objects, and one of
// instant's (the others of instant and stw allocate 1 KiB objects, 2M
// allocations a run, too slow for a unit test: go run ./bench/gcpacing
// -check covers them). pointers at GOGC 200 and one P, once a knife
// edge between 15 and 16 cycles, makes 15 with the in-situ mark rates
// whether its work per object moves by 0.2% either way or not.
var met = map[string][]key{
	"instant": {{"large", 200, 2}},
	"mark": {{"small", 50, 1}, {"small", 50, 2}, {"small", 100, 1}, {"small", 100, 2}, {"small", 200, 1}, {"small", 200, 2},
		{"pointers", 50, 1}, {"pointers", 50, 2}, {"pointers", 100, 1}, {"pointers", 100, 2}, {"pointers", 200, 1}, {"pointers", 200, 2}},
}

// TestPacingHolds runs the twins of the cells in met and checks that they
// are still within 10% of real Go. A
// pacer with broken arithmetic (a wrong GOGC term in commit, a wrong
// trigger bound) moves the goals or the cycles by more than that.
func TestPacingHolds(t *testing.T) {
	recs, err := filepath.Glob(recordings)
	if err != nil || len(recs) == 0 {
		t.Fatalf("want recordings in %s, got %v (%v)", recordings, recs, err)
	}
	for model, cells := range met {
		rows, _, err := compare(config{dir: twinDir, recs: recs, models: []string{model}, programs: programNames(), only: cells, total: testTotal, jobs: 2, seeds: testSeeds})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(cells) {
			t.Fatalf("--gc-cycle=%s: %d rows for %d cells", model, len(rows), len(cells))
		}
		for _, r := range rows {
			if !r.ok() {
				t.Errorf("%s GOGC=%d P=%d --gc-cycle=%s: cycles %d against Go's %g (%+.1f%%), mean goal %.2f MiB against %.2f (%+.1f%%): want both within 10%%",
					r.program, r.gogc, r.procs, model, r.twin.cycles, r.goc.cyclesMed, 100*r.cyclesErr,
					r.twin.goal/(1<<20), r.goc.goal/(1<<20), 100*r.goalErr)
			}
		}
	}
}

// programNames returns the names of every program.
func programNames() []string {
	var names []string
	for _, p := range programs {
		names = append(names, p.name)
	}
	return names
}

// TestRecordings checks that every recording parses and holds every cell,
// with polled goals that agree with gctrace's: the quiet ones and the
// loaded ones.
func TestRecordings(t *testing.T) {
	recs, _ := filepath.Glob(filepath.Join("recordings", "*.txt.gz"))
	if len(recs) < 4 {
		t.Fatalf("%d recordings, want 4 or more (two loaded, two quiet)", len(recs))
	}
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

// TestSeeds: -seeds runs each twin under --perturb=timing, the same bytes
// every time, and not the default run's; a negative count is a usage error.
func TestSeeds(t *testing.T) {
	base := []string{"-dir", twinDir, "-recordings", recordings, "-programs", "small", "-models", "mark", "-total", "64MiB"}
	run := func(extra ...string) string {
		t.Helper()
		var out, stderr bytes.Buffer
		if code := doMain(append(slices.Clone(base), extra...), &out, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr.Bytes())
		}
		return out.String()
	}
	plain, seeded := run(), run("-seeds", "3")
	if again := run("-seeds", "3"); again != seeded {
		t.Errorf("-seeds 3 twice differs:\n%s\n---\n%s", seeded, again)
	}
	if seeded == plain {
		t.Errorf("-seeds 3 prints the default run's table:\n%s", seeded)
	}
	var stderr bytes.Buffer
	if code := doMain(append(slices.Clone(base), "-seeds", "-1"), new(bytes.Buffer), &stderr); code != 2 || !strings.Contains(stderr.String(), "-seeds -1") {
		t.Errorf("-seeds -1: exit %d, %q; want 2 and a message", code, stderr.String())
	}
}

// combine takes the median cycles (the middle two's mean, rounded down,
// for an even count) and the mean of the mean goals; an error wins.
func TestCombine(t *testing.T) {
	odd := combine([]twinResult{{cycles: 9, goal: 10}, {cycles: 3, goal: 20}, {cycles: 5, goal: 30}})
	if odd.cycles != 5 || odd.goal != 20 {
		t.Errorf("odd: %+v, want 5 cycles, goal 20", odd)
	}
	if even := combine([]twinResult{{cycles: 4, goal: 1}, {cycles: 7, goal: 3}}); even.cycles != 5 || even.goal != 2 {
		t.Errorf("even: %+v, want 5 cycles, goal 2", even)
	}
	if one := combine([]twinResult{{cycles: 4, goal: 1.5}}); one.cycles != 4 || one.goal != 1.5 {
		t.Errorf("one: %+v, want itself", one)
	}
	if bad := combine([]twinResult{{cycles: 4}, {err: errors.New("boom")}}); bad.err == nil {
		t.Error("an error was dropped")
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
