package cli

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/trace/tracetest"
)

// gcTraceScript allocates on 4 Ps from four goroutines, retains 3 MiB,
// forces a last cycle, and prints stats()["gc"]'s numbers that the
// gctrace lines must agree with.
const gcTraceScript = `
def worker(n):
    for i in range(n):
        alloc("1MiB")
        work("200us")
retain("3MiB")
for i in range(3):
    spawn(worker, 10)
worker(10)
gc()
s = stats()["gc"]
print(s["cycles"], s["forced"], s["pause_total"], s["pause_max"], s["last_heap_goal"], s["heap_marked"], s["stacks"], s["globals"])
`

// TestGCTraceAgreesWithStats runs a script with --gctrace under each GC
// cycle model and reads the lines back with Go's format: one line per
// cycle, numbered from 1, the forced one marked, the pauses adding up to
// stats()'s, the last cycle's goal and marked heap those of stats().
func TestGCTraceAgreesWithStats(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "gc.star")
	if err := os.WriteFile(file, []byte(gcTraceScript), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, cycle := range []string{"instant", "stw", "mark"} {
		var stdout, stderr strings.Builder
		if code := Run([]string{"--procs=4", "--gc-cycle=" + cycle, "--gctrace", file}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d, stderr:\n%s", cycle, code, stderr.String())
		}
		var st [8]int64
		for i, f := range strings.Fields(stdout.String()) {
			st[i], _ = strconv.ParseInt(f, 10, 64)
		}
		cycles, forced, pauseTotal, pauseMax, goal, marked := st[0], st[1], st[2], st[3], st[4], st[5]
		lines, err := tracetest.ParseGCTrace(stderr.String(), false)
		if err != nil {
			t.Fatalf("%s: %v\nstderr:\n%s", cycle, err, stderr.String())
		}
		if int64(len(lines)) != cycles || cycles < 2 {
			t.Fatalf("%s: %d gctrace lines, stats()[\"gc\"][\"cycles\"] = %d (want at least 2)", cycle, len(lines), cycles)
		}
		var nforced int64
		var pauses, maxPause float64
		for i, l := range lines {
			if l.N != int64(i+1) {
				t.Errorf("%s: line %d is gc %d", cycle, i+1, l.N)
			}
			if l.Forced {
				nforced++
			}
			if l.Procs != 4 {
				t.Errorf("%s: gc %d: %d P, want 4", cycle, l.N, l.Procs)
			}
			if i > 0 && l.At < lines[i-1].At {
				t.Errorf("%s: gc %d starts @%.3fs, before gc %d", cycle, l.N, l.At, l.N-1)
			}
			pauses += l.Clock[0] + l.Clock[2]
			maxPause = max(maxPause, l.Clock[0], l.Clock[2])
			// The CPU of a pause is its clock time on every P (4 CPUs).
			for _, k := range [][2]int{{0, 0}, {2, 4}} {
				if d := math.Abs(l.CPU[k[1]] - 4*l.Clock[k[0]]); d > 0.1*4*l.Clock[k[0]]+0.001 {
					t.Errorf("%s: gc %d: pause CPU %v ms for %v ms of clock on 4 P", cycle, l.N, l.CPU[k[1]], l.Clock[k[0]])
				}
			}
			if cycle != "mark" && (l.Clock[1] != 0 || l.CPU[2] != 0 || l.CPU[3] != 0) {
				t.Errorf("%s: gc %d: a mark of %v ms clock, %v/%v ms cpu; want none", cycle, l.N, l.Clock[1], l.CPU[2], l.CPU[3])
			}
		}
		if nforced != forced {
			t.Errorf("%s: %d lines say (forced), stats() %d", cycle, nforced, forced)
		}
		// The printed times have two significant digits.
		if want := float64(pauseTotal) / 1e6; math.Abs(pauses-want) > 0.05*want {
			t.Errorf("%s: the lines' pauses add up to %v ms, stats()'s pause_total is %v ms", cycle, pauses, want)
		}
		if want := float64(pauseMax) / 1e6; math.Abs(maxPause-want) > 0.05*want {
			t.Errorf("%s: the lines' longest pause is %v ms, stats()'s pause_max %v ms", cycle, maxPause, want)
		}
		last := lines[len(lines)-1]
		if last.Goal != uint64(goal)>>20 || last.Heap[2] != uint64(marked)>>20 {
			t.Errorf("%s: last line: goal %d MB, marked %d MB; stats(): last_heap_goal %d MB, heap_marked %d MB", cycle, last.Goal, last.Heap[2], goal>>20, marked>>20)
		}
		if cycle == "mark" && last.CPU[2] == 0 {
			t.Errorf("%s: gc %d: no dedicated or fractional marking on 4 P", cycle, last.N)
		}
	}
}

func TestGCTraceFlag(t *testing.T) {
	for _, test := range []struct {
		src  string
		args []string
		want bool
	}{
		{"print(1)\n", []string{"x.star"}, false},
		{"print(1)\n", []string{"--gctrace", "x.star"}, true},
		{"# schedlab: --gctrace\nprint(1)\n", []string{"x.star"}, true},
		{"# schedlab: --gctrace\nprint(1)\n", []string{"--gctrace=false", "x.star"}, false},
	} {
		s, err := settingsFor("x.star", []byte(test.src), test.args)
		if err != nil {
			t.Errorf("settingsFor(%q): %v", test.args, err)
			continue
		}
		if s.GCTrace != test.want {
			t.Errorf("settingsFor(%q) with %q: gctrace=%v, want %v", test.args, test.src, s.GCTrace, test.want)
		}
	}
}
