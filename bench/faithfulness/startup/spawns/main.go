// Command spawns reads the per-run recordings of startup.sh -spawns
// (NAME-pP-spawns.runs.txt: each run's outcome, the scheduler's state at
// main.main's first statement, and when each of the program's go
// statements returned) and prints two things the model of a young
// program's start needs:
//
//   - how long each go statement took, by its rank in the run: the 1st
//     from main.main's first statement, each later one from the return of
//     the one before, so that what a program does before and between its
//     go statements (making channels, a loop's body) is counted in;
//   - the outcomes by the state the run started main.main in: what main's
//     P held (runnext alone, runnext and goroutines in its ring, nothing),
//     what the other Ps were doing and how many Ms were spinning.
//
// With -quantiles it prints each rank's 21 quantiles in ns as a costs
// profile holds a distribution (samples.Format; p100 the p99.5).
//
//	go run ./bench/faithfulness/startup/spawns [-quantiles] FILE...
//
// Files named together are pooled, as two recordings of one program.
// With -schedlab SCRIPT it makes the same report of schedlab's own runs of
// a twin (simulate.go), so that the two can be read side by side:
//
//	go run ./bench/faithfulness/startup/spawns -schedlab bench/faithfulness/corpus/spawn_order.star -flag --procs=2
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/bench/faithfulness/samples"
)

func main() {
	fs := flag.NewFlagSet("spawns", flag.ExitOnError)
	quantiles := fs.Bool("quantiles", false, "also print each go statement's 21 quantiles in ns, as a costs profile holds a distribution")
	twin := fs.String("schedlab", "", "report schedlab's runs of the twin `SCRIPT` instead of reading recordings")
	runs := fs.Int("runs", 1000, "with -schedlab: the `N` runs, seeds 1 to N, each as explore --perturb=timing runs it")
	var args []string
	fs.Func("flag", "with -schedlab: a `FLAG` of schedlab run for every run, such as --procs=4 or --costs=FILE (repeatable)", func(v string) error {
		args = append(args, v)
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: spawns [-quantiles] FILE...\n       spawns [-quantiles] -schedlab SCRIPT [-runs N] [-flag FLAG]...")
		fs.PrintDefaults()
	}
	fs.Parse(os.Args[1:])
	if *twin != "" {
		rs, err := simulate(*twin, *runs, args)
		if err == nil {
			err = report(rs, os.Stdout, *quantiles)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "spawns:", err)
			os.Exit(1)
		}
		return
	}
	if fs.NArg() == 0 {
		fs.Usage()
		os.Exit(2)
	}
	samples.Summarize("spawns", fs.Args(), func(r io.Reader, w io.Writer) error {
		return summary(r, w, *quantiles)
	})
}

// run is one recorded run.
type run struct {
	outcome string
	state   string // the start-up's class (classify)
	spawns  []int64
}

// parse reads a line of a .runs.txt file:
//
//	OUTCOME<tab>| s0 t=..us on=P1 spin=1 ... P0=running/M/tick2/rq0 P1=... | spawns=T1,T2,...
func parse(line string) (run, error) {
	outcome, rest, ok := strings.Cut(line, "\t|")
	if !ok {
		return run{}, fmt.Errorf("no tab and | after the outcome")
	}
	r := run{outcome: outcome}
	state, spawns, _ := strings.Cut(rest, " | spawns=")
	var err error
	if r.state, err = classify(strings.TrimSuffix(strings.TrimSpace(state), " |")); err != nil {
		return r, err
	}
	if spawns == "" {
		return r, fmt.Errorf("no spawns= (a recording of startup.sh -spawns?)")
	}
	for f := range strings.SplitSeq(strings.TrimSpace(spawns), ",") {
		t, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return r, fmt.Errorf("spawns: %v", err)
		}
		r.spawns = append(r.spawns, t)
	}
	return r, nil
}

// classify names a start-up state (probe.go's snapshot 0) by what decides
// the first steals: what main's P holds ("next" for runnext alone,
// "ring+next" for goroutines in its ring too, "ring" for the ring alone,
// "empty"), the other Ps' statuses, and nmspinning.
func classify(state string) (string, error) {
	fields := strings.Fields(state)
	var on, spin string
	ps := map[string]string{}
	var ids []string
	for _, f := range fields {
		k, v, _ := strings.Cut(f, "=")
		switch {
		case k == "on":
			on = v
		case k == "spin":
			spin = v
		case strings.HasPrefix(k, "P") && k != "P":
			ps[k] = f[len(k)+1:]
			ids = append(ids, k)
		}
	}
	mine, ok := ps[on]
	if on == "" || spin == "" || !ok {
		return "", fmt.Errorf("not a start-up state (on=, spin= and main's P): %q", state)
	}
	var others []string
	for _, id := range ids {
		if id != on {
			status, _, _ := strings.Cut(ps[id], "/")
			others = append(others, status)
		}
	}
	return stateName(!strings.Contains(mine, "/rq0"), strings.Contains(mine, "+next="), others, spin), nil
}

// stateName is the class of a start-up state: whether main's P has
// goroutines in its ring and one in runnext, the other Ps' statuses, and
// nmspinning. classify and simState name Go's and schedlab's states by it.
func stateName(ring, next bool, others []string, spin string) string {
	queue := "empty"
	switch {
	case ring && next:
		queue = "ring+next"
	case next:
		queue = "next"
	case ring:
		queue = "ring"
	}
	if len(others) == 0 {
		others = []string{"none"}
	}
	others = slices.Sorted(slices.Values(others))
	return fmt.Sprintf("main's P %s, other P %s, spinning %s", queue, strings.Join(others, ","), spin)
}

// summary reads a recording and prints its report.
func summary(r io.Reader, w io.Writer, quantiles bool) error {
	var runs []run
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rn, err := parse(line)
		if err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		runs = append(runs, rn)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return report(runs, w, quantiles)
}

// report prints the go statements' times by rank and the outcomes by
// start-up state of runs.
func report(runs []run, w io.Writer, quantiles bool) error {
	if len(runs) == 0 {
		return fmt.Errorf("no runs")
	}
	ranks := 0
	for _, rn := range runs {
		ranks = max(ranks, len(rn.spawns))
	}
	took := make([][]int64, ranks)
	for _, rn := range runs {
		for k, t := range rn.spawns {
			if k > 0 {
				t -= rn.spawns[k-1]
			}
			took[k] = append(took[k], t)
		}
	}
	fmt.Fprintf(w, "%d runs; how long each go statement took, in µs (the 1st from main.main's first statement, the others from the go statement before)\n", len(runs))
	fmt.Fprintf(w, "%4s %6s %8s %8s %8s %8s %8s\n", "go", "runs", "p10", "p25", "p50", "p75", "p90")
	for k, xs := range took {
		s := slices.Clone(xs)
		slices.Sort(s)
		at := func(p float64) float64 { return float64(s[int(p*float64(len(s)-1))]) / 1000 }
		fmt.Fprintf(w, "%4d %6d %8.1f %8.1f %8.1f %8.1f %8.1f\n", k+1, len(s), at(.1), at(.25), at(.5), at(.75), at(.9))
	}
	if quantiles {
		fmt.Fprintf(w, "\nquantiles 0%%, 5%%, ..., 100%% (p100 the p99.5), ns:\n")
		for k, xs := range took {
			fmt.Fprintf(w, "%4d %s\n", k+1, samples.Format(samples.Capped(xs)))
		}
	}
	byState, total := map[string]map[string]int{}, map[string]int{}
	for _, rn := range runs {
		if byState[rn.state] == nil {
			byState[rn.state] = map[string]int{}
		}
		byState[rn.state][rn.outcome]++
		total[rn.state]++
	}
	fmt.Fprintf(w, "\noutcomes by the state at main.main's first statement\n")
	for _, st := range byCount(total) {
		n := total[st]
		fmt.Fprintf(w, "%-54s %5d %5.1f%% ", st, n, 100*float64(n)/float64(len(runs)))
		outs := byCount(byState[st])
		for _, o := range outs[:min(len(outs), 6)] {
			fmt.Fprintf(w, "  %s %.0f%%", o, 100*float64(byState[st][o])/float64(n))
		}
		if len(outs) > 6 {
			fmt.Fprintf(w, "  (%d more)", len(outs)-6)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// byCount returns m's keys, the largest count first, then by name.
func byCount(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
