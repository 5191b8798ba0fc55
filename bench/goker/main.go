// Command goker runs the GoKer benchmark: Starlark ports of blocking bugs
// from CockroachDB, Kubernetes, Moby, Knative Serving and Syncthing
// (GoBench's GoKer kernels, as Go ships them in
// src/runtime/testdata/testgoroutineleakprofile/goker), under `schedlab
// check` and `schedlab explore`, and prints one table: for each kernel,
// the flags of check that its `# schedlab check:` directive names
// (--stalls=on, --reduction=dpor), whether check so finds its bug (at
// which preemption bound, after how many schedules), how many runs explore takes with random timing and with
// PCT, and whether the fixed version is proved clean up to bound 2.
//
// Run it from the repository's root:
//
//	go run ./bench/goker            # every kernel
//	go run ./bench/goker -short     # a few, as the test does
//	go run ./bench/goker -run moby  # the kernels whose name contains moby
//	go run ./bench/goker -dpor      # check's walks with --reduction dpor
//
// Every figure but the times is deterministic. README.md says where the
// kernels come from, and docs/check.md shows the table.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedlab/schedlab/internal/check"
	"github.com/schedlab/schedlab/internal/cli"
)

func main() { os.Exit(doMain(os.Args[1:], os.Stdout, os.Stderr)) }

func doMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("goker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg Config
	fs.StringVar(&cfg.Dir, "dir", "bench/goker", "the directory of the kernels (`DIR`/*.star)")
	fs.StringVar(&cfg.Filter, "run", "", "only the kernels whose name contains `S`")
	fs.BoolVar(&cfg.Short, "short", false, "only the kernels of the short set (shortKernels), as the test runs them")
	fs.IntVar(&cfg.Instances, "instances", 2, "instances of each kernel (--param instances=`N`)")
	fs.IntVar(&cfg.MaxBound, "max-bound", 3, "the highest preemption bound check tries for a buggy kernel, from 0 up (`K`)")
	fs.IntVar(&cfg.MaxSchedules, "max-schedules", 20000, "the most schedules check runs at each bound of a buggy kernel (`N`)")
	fs.IntVar(&cfg.FixedBound, "fixed-bound", 2, "the bound up to which a fixed version is to be proved clean (`K`)")
	fs.DurationVar(&cfg.FixedTimeout, "fixed-timeout", 120*time.Second, "stop proving a fixed version clean after `D` of wall-clock time")
	fs.IntVar(&cfg.Runs, "runs", 1000, "the most runs explore does with each perturbation (`N`)")
	fs.DurationVar(&cfg.CheckTimeout, "check-timeout", time.Minute, "stop check's walks of a buggy kernel after `D` of wall-clock time")
	fs.DurationVar(&cfg.ExploreTimeout, "explore-timeout", 30*time.Second, "stop each explore sweep of a kernel after `D` of wall-clock time")
	dpor := fs.Bool("dpor", false, "walk with check's partial-order reduction (--reduction dpor) instead of the naive walk")
	fs.IntVar(&cfg.ExploreProcs, "explore-procs", 2, "GOMAXPROCS of explore's runs (`P`); check runs at the scripts' own, 1")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *dpor {
		cfg.Reduction = check.DPOR
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "goker: unexpected arguments %q\n", fs.Args())
		return 2
	}
	kernels, err := Kernels(cfg.Dir)
	if err != nil {
		fmt.Fprintf(stderr, "goker: %v\n", err)
		return 2
	}
	var chosen []Kernel
	for _, k := range kernels {
		if cfg.Filter != "" && !strings.Contains(k.Name, cfg.Filter) {
			continue
		}
		if cfg.Short && !slices.Contains(shortKernels, k.Name) {
			continue
		}
		chosen = append(chosen, k)
	}
	if len(chosen) == 0 {
		fmt.Fprintf(stderr, "goker: no kernel in %s matches\n", cfg.Dir)
		return 2
	}
	reduction := ""
	if cfg.Reduction == check.DPOR {
		reduction = " reduction dpor,"
	}
	fmt.Fprintf(stdout, "goker: %d kernels, instances=%d; check:%s procs=1, bounds 0-%d, at most %d schedules a bound; explore: procs=%d, at most %d runs; fixed: bound %d; budgets: check %v, explore %v, fixed %v\n\n",
		len(chosen), cfg.Instances, reduction, cfg.MaxBound, cfg.MaxSchedules, cfg.ExploreProcs, cfg.Runs, cfg.FixedBound, cfg.CheckTimeout, cfg.ExploreTimeout, cfg.FixedTimeout)
	var rows []Row
	for i, k := range chosen {
		fmt.Fprintf(stderr, "goker: [%d/%d] %s\n", i+1, len(chosen), k.Name)
		row, err := Measure(cfg, k)
		if err != nil {
			fmt.Fprintf(stderr, "goker: %s: %v\n", k.Name, err)
			return 1
		}
		rows = append(rows, row)
	}
	WriteTable(stdout, rows)
	fmt.Fprintln(stdout)
	WriteSummary(stdout, cfg, rows)
	return 0
}

// shortKernels are the kernels of -short and of the test: small, and of
// every kind.
var shortKernels = []string{"cockroach10214", "cockroach18101", "moby25384", "moby30408"}

// Kernels returns the kernels of dir: every NAME.star but the fixed
// versions, NAME_fixed.star, which go with their kernel. Each opens
// with a comment line `# kind: KIND`, and may say how check is to search
// it with a `# schedlab check:` directive (--reduction, --stalls).
func Kernels(dir string) ([]Kernel, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.star"))
	if err != nil {
		return nil, err
	}
	var ks []Kernel
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".star")
		if strings.HasSuffix(name, "_fixed") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		k := Kernel{Name: name, Path: p, Kind: kindOf(src)}
		if k.Kind == "" {
			return nil, fmt.Errorf("%s: no `# kind:` line", p)
		}
		if k.Check, err = cli.ParseCheckDirectives(p, src); err != nil {
			return nil, err
		}
		fixed := filepath.Join(dir, name+"_fixed.star")
		if src, err := os.ReadFile(fixed); err == nil {
			k.Fixed = fixed
			if k.FixedCheck, err = cli.ParseCheckDirectives(fixed, src); err != nil {
				return nil, err
			}
		}
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b Kernel) int { return strings.Compare(a.Name, b.Name) })
	return ks, nil
}

// kindOf returns the kind named by src's `# kind:` line.
func kindOf(src []byte) string {
	for line := range strings.SplitSeq(string(src), "\n") {
		if k, ok := strings.CutPrefix(line, "# kind:"); ok {
			return strings.TrimSpace(k)
		}
	}
	return ""
}

// WriteTable writes rows as the benchmark's table.
func WriteTable(w io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KERNEL\tKIND\tFLAGS\tCHECK\tBOUND\tSCHEDULES\tTIME\tRANDOM\tPCT\tFIXED\tSCHEDULES\tTIME")
	for _, r := range rows {
		check, bound, scheds := "not found", "-", fmt.Sprint(r.CheckSchedules)
		if r.CheckTimedOut {
			check = "timed out"
		}
		if r.CheckFound {
			check, bound = r.CheckOutcome, fmt.Sprint(r.CheckBound)
		}
		fixed, fscheds, ftime := "-", "-", "-"
		if r.HasFixed {
			fixed, fscheds, ftime = r.FixedVerdict, fmt.Sprint(r.FixedSchedules), seconds(r.FixedTime)
		}
		flags := strings.Join(r.CheckFlags, " ")
		if flags == "" {
			flags = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Kernel.Name, r.Kernel.Kind, flags,
			check, bound, scheds, seconds(r.CheckTime), runsText(r.Random), runsText(r.PCT), fixed, fscheds, ftime)
	}
	tw.Flush()
}

// runsText is explore's column: the runs to the first failure, or
// "none/N" when none of N failed.
func runsText(e ExploreResult) string {
	if e.First == 0 {
		if e.TimedOut {
			return fmt.Sprintf("none/%d (timed out)", e.Runs)
		}
		return fmt.Sprintf("none/%d", e.Runs)
	}
	return fmt.Sprintf("%d %s", e.First, e.Outcome)
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

// WriteSummary writes the benchmark's targets against rows.
func WriteSummary(w io.Writer, cfg Config, rows []Row) {
	found, fixedClean, fixedIn60, withFixed := 0, 0, 0, 0
	var firsts []int
	var needMore []string
	for _, r := range rows {
		if r.CheckFound {
			found++
			firsts = append(firsts, r.CheckSchedules)
			if r.CheckBound > 2 {
				needMore = append(needMore, r.Kernel.Name)
			}
		}
		if r.HasFixed {
			withFixed++
			if r.FixedVerdict == "clean" {
				fixedClean++
				if r.FixedTime <= 60*time.Second {
					fixedIn60++
				}
			}
		}
	}
	fmt.Fprintf(w, "check found the bug of %d of %d kernels\n", found, len(rows))
	if len(firsts) > 0 {
		slices.Sort(firsts)
		fmt.Fprintf(w, "median schedules to the first failure (bounds 0 up, of the kernels found): %d\n", median(firsts))
	}
	fmt.Fprintf(w, "fixed versions proved clean up to bound %d: %d of %d (%d within 60s)\n", cfg.FixedBound, fixedClean, withFixed, fixedIn60)
	if len(needMore) > 0 {
		fmt.Fprintf(w, "found only above bound 2: %s\n", strings.Join(needMore, ", "))
	}
}

// median returns the median of sorted xs (the lower of the middle two).
func median(xs []int) int { return xs[(len(xs)-1)/2] }
