package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/check"
	"github.com/schedlab/schedlab/internal/cputime"
	"github.com/schedlab/schedlab/internal/explore"
)

// soundMax caps each walk of TestDPORSound: a kernel whose naive walk
// does not finish within it is compared only where both walks found a
// failure or the reduced one finished.
const soundMax = 1000

// TestDPORSound: on every kernel and fixed version, at bounds 0, 1 and 2,
// the walk with DPOR reaches the naive walk's verdict (a failure found,
// or none) in no more schedules, and meets the same outcomes (outcome,
// message and output) when both walks are complete. GOKER_DPOR_RUN=S
// walks only the kernels whose name contains S.
func TestDPORSound(t *testing.T) {
	if os.Getenv("GOKER_DPOR") == "" {
		t.Skip("walks every kernel twice, for minutes: GOKER_DPOR=1 go test -run TestDPORSound -v ./bench/goker")
	}
	ks, err := Kernels(".")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Instances: 2}
	only := os.Getenv("GOKER_DPOR_RUN")
	for _, k := range ks {
		if !strings.Contains(k.Name, only) {
			continue
		}
		for _, p := range []string{k.Path, k.Fixed} {
			if p == "" || k.Name == "kubernetes11298" || k.Name == "kubernetes13135" || k.Name == "cockroach2448" {
				continue // a million choice points a run, or minutes a walk: see docs/check.md
			}
			sc, err := load(cfg, p)
			if err != nil {
				t.Fatal(err)
			}
			for bound := range 3 {
				var v [2]*check.Verdict
				for i, red := range []check.Reduction{check.NoReduction, check.DPOR} {
					v[i], err = check.Walk(check.Config{Program: sc.prog, Options: sc.opts, Bound: bound, MaxSchedules: soundMax, Reduction: red}, nil)
					if err != nil {
						t.Fatalf("%s bound %d %v: %v", p, bound, red, err)
					}
				}
				naive, dpor := v[0], v[1]
				t.Logf("%s bound %d: naive %d schedules (complete %v, failure %v), dpor %d (complete %v, failure %v)", p, bound, naive.Schedules, naive.Complete, naive.Failure != nil, dpor.Schedules, dpor.Complete, dpor.Failure != nil)
				switch {
				case dpor.Schedules > naive.Schedules:
					t.Errorf("%s bound %d: dpor ran %d schedules, the naive walk %d", p, bound, dpor.Schedules, naive.Schedules)
				case naive.Complete && (naive.Failure != nil) != (dpor.Failure != nil):
					t.Errorf("%s bound %d: the naive walk failed %v, dpor %v", p, bound, naive.Failure != nil, dpor.Failure != nil)
				case naive.Complete && !sameOutcomes(naive, dpor):
					t.Errorf("%s bound %d: outcomes differ: naive %v, dpor %v", p, bound, keys(naive), keys(dpor))
				case !naive.Complete && naive.Failure != nil && dpor.Complete && dpor.Failure == nil:
					t.Errorf("%s bound %d: the naive walk fails, dpor finds nothing", p, bound)
				}
			}
		}
	}
}

// keys returns the outcomes of v's runs.
func keys(v *check.Verdict) map[explore.Key]bool {
	m := map[explore.Key]bool{}
	for _, c := range v.Classes {
		m[c.Key] = true
	}
	return m
}

// sameOutcomes reports whether a and b met the same outcomes.
func sameOutcomes(a, b *check.Verdict) bool {
	ka, kb := keys(a), keys(b)
	if len(ka) != len(kb) {
		return false
	}
	for k := range ka {
		if !kb[k] {
			return false
		}
	}
	return true
}

// BenchmarkKubernetes11298 times the first run of kubernetes11298 (1.7
// million choice points, a loop that never blocks) naive and with DPOR:
// the cost of a long run's footprints, clocks and stutter keys
// (docs/performance.md, "check").
func BenchmarkKubernetes11298(b *testing.B) {
	sc, err := load(Config{Instances: 2}, "kubernetes11298.star")
	if err != nil {
		b.Fatal(err)
	}
	opts := sc.opts
	opts.Timeout = 0 // a loaded machine must not cut the run short
	for _, red := range []check.Reduction{check.NoReduction, check.DPOR} {
		b.Run(red.String(), func(b *testing.B) {
			cpu := cputime.Process()
			for b.Loop() {
				v, err := check.Walk(check.Config{Program: sc.prog, Options: opts, Bound: 1, MaxSchedules: 1, Reduction: red}, func(r *check.Run) bool {
					if r.Result.Outcome != "ok" || len(r.Points) != 1_740_364 {
						b.Fatalf("the first run: %s after %d choice points, want ok after 1,740,364", r.Result.Outcome, len(r.Points))
					}
					return true
				})
				if err != nil || v.Schedules != 1 {
					b.Fatalf("%v, %v", v, err)
				}
			}
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkKubernetes11298Walk times the first ten schedules of
// kubernetes11298's DPOR walk at bound 1: what a schedule of a spinning
// kernel costs once the walk reuses its buffers run to run, the figure
// that decides whether the walk fits the table's 60 s.
func BenchmarkKubernetes11298Walk(b *testing.B) { benchWalk(b, "kubernetes11298.star", 10) }

// BenchmarkKubernetes13135Walk is the same for kubernetes13135, whose
// util loop spins too: its first five schedules.
func BenchmarkKubernetes13135Walk(b *testing.B) { benchWalk(b, "kubernetes13135.star", 5) }

// benchWalk times the first schedules of kernel's DPOR walk at bound 1,
// which must not fail, and reports the CPU a schedule.
func benchWalk(b *testing.B, kernel string, schedules int) {
	sc, err := load(Config{Instances: 2}, kernel)
	if err != nil {
		b.Fatal(err)
	}
	opts := sc.opts
	opts.Timeout = 0
	cpu := cputime.Process()
	for b.Loop() {
		v, err := check.Walk(check.Config{Program: sc.prog, Options: opts, Bound: 1, MaxSchedules: schedules, Reduction: check.DPOR}, nil)
		if err != nil || v.Schedules != schedules || v.Failure != nil {
			b.Fatalf("%+v, %v", v, err)
		}
	}
	b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N*schedules), "cpu-ns/schedule")
}

// BenchmarkFixedWalkJobs times the naive walk of cockroach18101's fixed
// version at bound 2 (9,362 schedules of a few hundred µs each) on one
// worker and on two: what `check --jobs` buys on this host
// (docs/check.md, "On several cores").
func BenchmarkFixedWalkJobs(b *testing.B) {
	sc, err := load(Config{Instances: 2}, "cockroach18101_fixed.star")
	if err != nil {
		b.Fatal(err)
	}
	opts := sc.opts
	opts.Timeout = 0
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			cpu := cputime.Process()
			for b.Loop() {
				v, err := check.Walk(check.Config{Program: sc.prog, Options: opts, Bound: 2, Jobs: jobs}, nil)
				if err != nil || v.Schedules != 9362 || v.Failure != nil {
					b.Fatalf("%+v, %v", v, err)
				}
			}
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
