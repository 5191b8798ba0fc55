// Package explore is the engine-free half of `schedlab explore`: which run
// of a sweep gets which seed and proc count, how a sweep is split into
// shards and spread over jobs, how a run's outcome is classified, and how
// the classes are tallied, printed, written as JSON and merged.
//
// It never runs a script itself. The command hands Sweep a function that
// runs one script for a Run and classifies what it printed (Classify);
// everything else here is plain data, so that the same sweep gives the
// same report whatever the number of jobs, however it is sharded, and
// whether its shards are merged later or not.
//
// Invariants:
//
//   - Run i of a sweep has seed SeedStart+i and proc count Procs[i mod
//     len(Procs)]; nothing else decides a run's settings.
//   - The shards of a sweep are contiguous ranges of run indices that cover
//     every run exactly once; shard k of n holds [k*Runs/n, (k+1)*Runs/n).
//   - A class is (outcome, message, output hash). Its first run is the
//     lowest run index in it, whatever order the runs finished in.
//
// Start from Plan, the sweep, and Sweep, which does it. The files:
// plan.go, plans, shards and proc lists; sweep.go, the jobs and the
// Tally; outcome.go, Classify and the outcomes; report.go, Report, its
// table and JSON, and Merge.
package explore

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Bounds of a sweep. MaxRuns keeps the per-run bookkeeping of one process
// (4 bytes a run) under half a gigabyte; a sweep at 10,000 runs a second
// on one core takes three hours. MaxProcs is the real runtime's cap on
// GOMAXPROCS (runtime2.go: _MaxGomaxprocs).
const (
	MaxRuns  = 100_000_000
	MaxProcs = 1024
)

// A Plan is a sweep: which runs exist and which of them this process does.
type Plan struct {
	Runs      int    // runs in the whole sweep (--runs)
	SeedStart uint64 // seed of run 0 (--seed-start)
	Procs     []int  // proc counts, taken in turn (--procs)
	Shard     Shard  // the part of the sweep done here (--shard)
}

// A Shard is part k of n of a sweep (--shard k/n); the zero value and
// 0/1 are the whole sweep.
type Shard struct {
	Index, Count int
}

// String returns the shard as --shard takes it: "k/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.count()) }

func (s Shard) count() int { return max(s.Count, 1) }

// ParseShard reads --shard's "k/n", with 0 ≤ k < n.
func ParseShard(v string) (Shard, error) {
	ks, ns, ok := strings.Cut(v, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("want k/n, such as 0/4")
	}
	if n < 1 || k < 0 || k >= n {
		return Shard{}, fmt.Errorf("want 0 ≤ k < n, got %d/%d", k, n)
	}
	if n > MaxRuns {
		return Shard{}, fmt.Errorf("want n ≤ %d shards, got %d", MaxRuns, n)
	}
	return Shard{Index: k, Count: n}, nil
}

// Check reports what is out of range in the plan, naming the flag that
// sets it: the runs, a seed range that would wrap past the largest seed,
// the shard, the proc counts. A plan that passes has no run whose seed,
// index or shard bounds overflow.
func (p *Plan) Check() error {
	if p.Runs < 1 || p.Runs > MaxRuns {
		return fmt.Errorf("--runs %d: out of range, want 1 to %d", p.Runs, MaxRuns)
	}
	if last := uint64(p.Runs - 1); p.SeedStart > math.MaxUint64-last {
		return fmt.Errorf("--seed-start %d with --runs %d: the last run's seed would pass %d, the largest seed; want --seed-start at most %d",
			p.SeedStart, p.Runs, uint64(math.MaxUint64), uint64(math.MaxUint64)-last)
	}
	if n := p.Shard.count(); n > MaxRuns || p.Shard.Index < 0 || p.Shard.Index >= n {
		return fmt.Errorf("--shard %d/%d: want 0 ≤ k < n ≤ %d", p.Shard.Index, p.Shard.Count, MaxRuns)
	}
	for _, n := range p.Procs {
		if n < 1 || n > MaxProcs {
			return fmt.Errorf("--procs %d: out of range, want 1 to %d", n, MaxProcs)
		}
	}
	return nil
}

// A Run is one run of a sweep.
type Run struct {
	Index int    // position in the whole sweep, from 0
	Seed  uint64 // --seed of the run
	Procs int    // --procs of the run
}

// Run returns run i of the sweep.
func (p *Plan) Run(i int) Run {
	procs := 1
	if len(p.Procs) > 0 {
		procs = p.Procs[i%len(p.Procs)]
	}
	return Run{Index: i, Seed: p.SeedStart + uint64(i), Procs: procs}
}

// Range returns the run indices [lo, hi) of the plan's shard.
func (p *Plan) Range() (lo, hi int) {
	return shardRange(p.Runs, p.Shard)
}

// shardRange computes in 64 bits: with runs and n at most MaxRuns (Check),
// k*runs cannot overflow.
func shardRange(runs int, s Shard) (lo, hi int) {
	n := int64(s.count())
	return int(int64(s.Index) * int64(runs) / n), int((int64(s.Index) + 1) * int64(runs) / n)
}

// ParseProcs reads --procs's comma-separated list of proc counts, such as
// "1,2,4", each from 1 to max.
func ParseProcs(v string, max int) ([]int, error) {
	var procs []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("want a list of integers such as 1,2,4")
		}
		if n < 1 || n > max {
			return nil, fmt.Errorf("%d is out of range, want 1 to %d", n, max)
		}
		procs = append(procs, n)
	}
	return procs, nil
}
