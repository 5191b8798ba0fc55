package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var script = filepath.Join("..", "..", "examples", "lab", "mmc.star")

// TestMMc runs the check on a corner of docs/lab.md's grid, c = 1, 2, 4
// at ρ = 0.5 with 60,000 requests a cell (two seconds): the mean time in
// system within 2% of Erlang C, Little's law within 1%. The whole grid,
// ρ = 0.8 and 0.9 too, needs millions of requests a cell: go run
// ./bench/mmc.
func TestMMc(t *testing.T) {
	if testing.Short() {
		t.Skip("60,000 requests a cell")
	}
	var stdout, stderr bytes.Buffer
	code := doMain([]string{"-script", script, "-rho", "0.5", "-n", "20000", "-min-seeds", "3", "-max-seeds", "3", "-round", "3", "-jobs", "2"}, &stdout, &stderr)
	if code != 0 {
		t.Errorf("exit %d:\n%s%s", code, stdout.Bytes(), stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("want a title, a head and 3 cells:\n%s", stdout.Bytes())
	}
	for _, l := range lines[2:] {
		if !strings.HasSuffix(l, " ok") || !strings.Contains(l, "    60000 ") {
			t.Errorf("want 60000 requests, ok: %s", l)
		}
	}
}

// TestLittle: one short run of each c at ρ = 0.9, where the queue is
// long: the server's own time average of the requests inside it is the
// load generator's throughput times its mean latency.
func TestLittle(t *testing.T) {
	src := readScript(t)
	cfg := config{script: script, service: 100_000, n: 3000}
	for _, c := range []int{1, 2, 4} {
		r := runSeed(cfg, src, c, 0.9, 1)
		if r.err != nil {
			t.Fatal(r.err)
		}
		if len(r.lat) != cfg.n {
			t.Errorf("c=%d: %d latencies, want %d", c, len(r.lat), cfg.n)
		}
		if math.Abs(r.inside/r.lw-1) > 0.001 {
			t.Errorf("c=%d: L = %.4f, λW = %.4f: want them within 0.1%%", c, r.inside, r.lw)
		}
	}
}

// TestSameWhateverJobs: a cell's seeds are decided in rounds, not by
// which run ends first.
func TestSameWhateverJobs(t *testing.T) {
	args := []string{"-script", script, "-c", "2", "-rho", "0.8", "-n", "2000", "-min-seeds", "2", "-max-seeds", "6", "-round", "2", "-precision", "0.02"}
	var one, four bytes.Buffer
	doMain(append(args, "-jobs", "1"), &one, &one)
	doMain(append(args, "-jobs", "4"), &four, &four)
	if one.String() != four.String() {
		t.Errorf("-jobs 1:\n%s\n-jobs 4:\n%s", one.Bytes(), four.Bytes())
	}
}

func readScript(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	return src
}
