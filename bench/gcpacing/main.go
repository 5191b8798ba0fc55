// Command gcpacing checks schedlab's GC pacer against real Go's: the
// programs of bench/gcpacing/alloc, recorded under GODEBUG=gctrace=1 at
// GOGC 50, 100 and 200 and GOMAXPROCS 1 and 2 (recordings/run.sh), against
// their Starlark twins (small.star, large.star, pointers.star), run here
// in-process under each --gc-cycle model: the number of cycles and the
// mean heap goal, each within 10% (issue 29, item 5, "Pacing").
//
//	go run ./bench/gcpacing                       # every cell, every model
//	go run ./bench/gcpacing -models mark -programs small
//	go run ./bench/gcpacing -total 256MiB         # the first 256 MiB of every run
//	go run ./bench/gcpacing -check                # exit 1 if a cell misses
//	go run ./bench/gcpacing -recordings 'bench/gcpacing/recordings/batch[12].txt.gz'   # the loaded ones
//
// Real Go, from the recordings: for each run, the cycles are its gctrace
// lines, and each cycle's heap goal is the one its summary line read
// from runtime/metrics at the poll before the cycle was seen (gctrace's
// "G MB goal" is the same goal in whole MiB, rounded down; the two are
// checked against each other). A cell's Go cycles are the median of its
// runs (and their range), its Go goal the mean over its runs of each
// run's mean goal. With -total below the recorded 2 GiB, each Go run is
// cut where its program had allocated that much (after the live heap),
// from the bytes its summary says each cycle was seen at, and the twin
// runs with that total: the same prefix of the same program.
//
// The twin of a cell runs with --procs, --gogc and --gc-cycle set, on the
// default costs profile and seed: its output, and so this command's, is
// the same bytes every time. That run charges every cost its median, so
// its periods are exact and may lock in step (a cell can halve its cycles
// for one value of a cost, docs/faithfulness.md, "sysmon's ticks in
// situ"); -seeds N runs each twin N times under --perturb=timing, seeds 1
// to N, with the thread stalls off, and compares their median cycles and
// mean goal, the same bytes every time too. The stalls are off because
// the mark rates the twins charge (gc_mark_mib, gc_mark_roots_mib) are
// Go's own in situ, from gctrace's mark CPU, which counts the time the
// OS took from a worker's thread: a stall drawn on top counts it twice.
//
//	go run ./bench/gcpacing -models mark -seeds 5
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// maxErr is the target: cycles and mean heap goal within 10% of Go's.
const maxErr = 0.10

// quietRecordings are the recordings the comparison is made against, by
// default: the two batches recorded on a quiet machine (1-minute load
// 1.1-2.8 on 2 vCPUs, the recorded program's own threads included).
// batch1 and batch2 were recorded under a load of 2-38 from other
// builds, and at GOMAXPROCS 2 their cycles differ from the quiet ones by
// up to 40% (docs/faithfulness.md, "GC pacing").
const quietRecordings = "recordings/batch[34].txt.gz"

// recordedTotal is what every recorded run allocates after its live heap
// (run.sh's -total 2GiB).
const recordedTotal = 2 << 30

// A program is one of alloc's presets and its twin.
type program struct {
	name string
	live int64 // the live heap, bytes (alloc -live; the twin's live)
}

// programs are the presets of recordings/run.sh, in its order.
var programs = []program{
	{"small", 8 << 20},
	{"large", 32 << 20},
	{"pointers", 32 << 20},
}

// A goRun is one recorded run of a program.
type goRun struct {
	batch, program string
	gogc, procs    int
	cycles         int       // cycles ended: the summary's count
	traceCycles    int       // gctrace lines
	traceGoals     []int     // each cycle's "G MB goal"
	sweepTerm      []float64 // each cycle's sweep termination pause, ms (gctrace's first clock term)
	markTerm       []float64 // and its mark termination pause (the third)
	markCPU        []float64 // each cycle's mark CPU, ms: gctrace's assist, background and idle CPU terms
	goals          []uint64  // each cycle's goal in bytes, from the summary
	at             []uint64  // bytes allocated when each cycle was seen
	allocs         int64     // short-lived objects allocated
	cpuNs, gcCPUNs int64     // the process's CPU time, and the collector's
}

// A key names a cell: a program at a GOGC and a GOMAXPROCS.
type key struct {
	program     string
	gogc, procs int
}

// A goCell is what real Go did in one cell, over its runs.
type goCell struct {
	runs                 int
	cyclesMed            float64
	cyclesMin, cyclesMax int
	goal                 float64 // the mean over runs of each run's mean goal
}

// A twinResult is what a twin printed.
type twinResult struct {
	cycles int
	goal   float64 // the mean of the cycles' goals; over seeds, the mean of each run's
	err    error
}

// A row is one line of the table.
type row struct {
	key
	model     string
	goc       goCell
	twin      twinResult
	cyclesErr float64
	goalErr   float64
}

func (r row) ok() bool { return math.Abs(r.cyclesErr) <= maxErr && math.Abs(r.goalErr) <= maxErr }

// A config is what one invocation does.
type config struct {
	dir      string   // the twins' directory
	recs     []string // the recordings
	models   []string
	programs []string
	only     []key // if not empty, the cells compared; else every cell of programs
	total    int64 // bytes each run allocates after its live heap
	jobs     int
	costs    string // the twins' --costs, if not the default profile
	seeds    int    // if more than 0, each twin runs with --perturb=timing and seeds 1 to seeds
}

func main() {
	os.Exit(doMain(os.Args[1:], os.Stdout, os.Stderr))
}

func doMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gcpacing", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config{}
	fs.StringVar(&cfg.dir, "dir", "bench/gcpacing", "the `directory` of the twins (NAME.star)")
	recs := fs.String("recordings", "bench/gcpacing/"+quietRecordings, "the recordings of real Go, a `glob` (the default: the two made on a quiet machine; recordings/batch[12].txt.gz were made under load)")
	models := fs.String("models", strings.Join(runtime.GCCycleNames(), ","), "the --gc-cycle `models` to run the twins under")
	progs := fs.String("programs", "small,large,pointers", "the `programs` to compare")
	total := fs.String("total", "2GiB", "the short-lived `bytes` of each run: the recorded 2GiB, or less for the same prefix of each run")
	fs.StringVar(&cfg.costs, "costs", "", "run the twins under the costs profile `FILE` (schedlab's --costs) instead of the default")
	fs.IntVar(&cfg.jobs, "jobs", goruntime.NumCPU(), "twins run at once")
	fs.IntVar(&cfg.seeds, "seeds", 0, "run each twin `N` times under --perturb=timing (its thread stalls off: the in-situ mark rates hold them), seeds 1 to N, and compare the median of their cycles and the mean of their mean goals (0: one default run, every cost at its median)")
	check := fs.Bool("check", false, "exit 1 unless every cell is within 10%")
	markRates := fs.Bool("markrates", false, "print only the mark CPU a MiB of scan work of the recorded `small` and `pointers` at GOMAXPROCS 1, the in-situ rates of the default profile's gc_mark_roots_mib and gc_mark_mib")
	pauses := fs.Bool("pauses", false, "print only the recorded sweep and mark termination pauses (gctrace's first and third clock terms), by recording and GOMAXPROCS")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var err error
	if cfg.recs, err = filepath.Glob(*recs); err == nil && len(cfg.recs) == 0 {
		err = fmt.Errorf("no recordings match %s", *recs)
	}
	if err == nil {
		var n uint64
		n, err = lang.ParseSize(*total)
		cfg.total = int64(min(n, math.MaxInt64))
	}
	if err == nil && cfg.seeds < 0 {
		err = fmt.Errorf("-seeds %d: want 0 or more", cfg.seeds)
	}
	if err == nil && (cfg.total <= 0 || cfg.total > recordedTotal) {
		err = fmt.Errorf("-total %s: want more than 0 and at most the recorded 2GiB", *total)
	}
	cfg.models = strings.Split(*models, ",")
	for _, m := range cfg.models {
		if _, e := runtime.ParseGCCycle(m); e != nil && err == nil {
			err = e
		}
	}
	cfg.programs = strings.Split(*progs, ",")
	for _, p := range cfg.programs {
		if !slices.ContainsFunc(programs, func(q program) bool { return q.name == p }) && err == nil {
			err = fmt.Errorf("unknown program %q: want small, large or pointers", p)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "gcpacing:", err)
		return 2
	}

	if *markRates {
		if err := printMarkRates(stdout, cfg.recs); err != nil {
			fmt.Fprintln(stderr, "gcpacing:", err)
			return 1
		}
		return 0
	}
	if *pauses {
		if err := printPauses(stdout, cfg.recs); err != nil {
			fmt.Fprintln(stderr, "gcpacing:", err)
			return 1
		}
		return 0
	}
	rows, notes, err := compare(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "gcpacing:", err)
		return 1
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, "gcpacing:", n)
	}
	printTable(stdout, cfg, rows)
	if *check {
		for _, r := range rows {
			if !r.ok() {
				return 1
			}
		}
	}
	return 0
}

// compare reads the recordings, runs the twins and returns the table's
// rows, in the order of programs, GOGC, GOMAXPROCS and models, and notes
// on the recordings worth a line on stderr.
func compare(cfg config) ([]row, []string, error) {
	var runs []goRun
	var notes []string
	for _, name := range cfg.recs {
		rs, err := readRecording(name)
		if err != nil {
			return nil, nil, err
		}
		runs = append(runs, rs...)
	}
	cells := make(map[key][]goRun)
	for _, r := range runs {
		if n := goalMismatches(r); n > 0 {
			notes = append(notes, fmt.Sprintf("%s %s GOGC=%d P=%d: %d of %d polled goals disagree with gctrace's", r.batch, r.program, r.gogc, r.procs, n, r.cycles))
		}
		k := key{r.program, r.gogc, r.procs}
		cells[k] = append(cells[k], r)
	}

	var rows []row
	for _, p := range programs {
		if !slices.Contains(cfg.programs, p.name) {
			continue
		}
		for _, gogc := range []int{50, 100, 200} {
			for _, procs := range []int{1, 2} {
				k := key{p.name, gogc, procs}
				if len(cfg.only) > 0 && !slices.Contains(cfg.only, k) {
					continue
				}
				rs := cells[k]
				if len(rs) == 0 {
					return nil, nil, fmt.Errorf("no recorded run of %s at GOGC=%d GOMAXPROCS=%d", p.name, gogc, procs)
				}
				goc := summarize(rs, uint64(p.live+cfg.total))
				for _, m := range cfg.models {
					rows = append(rows, row{key: k, model: m, goc: goc})
				}
			}
		}
	}

	// The twins, cfg.jobs at a time; each row's own result.
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(cfg.jobs, 1))
	srcs := make(map[string][]byte)
	for _, r := range rows {
		if srcs[r.program] != nil {
			continue
		}
		src, err := os.ReadFile(filepath.Join(cfg.dir, r.program+".star"))
		if err != nil {
			return nil, nil, err
		}
		srcs[r.program] = src
	}
	perTwin := max(cfg.seeds, 1)
	results := make([][]twinResult, len(rows))
	for i := range rows {
		results[i] = make([]twinResult, perTwin)
		for j := range perTwin {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				r := &rows[i]
				seed := 0
				if cfg.seeds > 0 {
					seed = j + 1
				}
				results[i][j] = runTwin(filepath.Join(cfg.dir, r.program+".star"), srcs[r.program], r.key, r.model, cfg.total, cfg.costs, seed)
			}()
		}
	}
	wg.Wait()
	for i := range rows {
		r := &rows[i]
		r.twin = combine(results[i])
		if r.twin.err != nil {
			return nil, nil, r.twin.err
		}
		r.cyclesErr = float64(r.twin.cycles)/r.goc.cyclesMed - 1
		r.goalErr = r.twin.goal/r.goc.goal - 1
	}
	return rows, notes, nil
}

// combine returns one twin's result from its runs under several seeds:
// the median of their cycles (of the middle two, rounded down, for an
// even count) and the mean of their mean goals, as a cell's Go runs are
// summarized; one run is itself. The first error is the result's.
func combine(rs []twinResult) twinResult {
	if len(rs) == 1 {
		return rs[0]
	}
	cycles := make([]int, len(rs))
	sum := 0.0
	for i, r := range rs {
		if r.err != nil {
			return r
		}
		cycles[i] = r.cycles
		sum += r.goal
	}
	slices.Sort(cycles)
	mid := len(cycles) / 2
	c := cycles[mid]
	if len(cycles)%2 == 0 {
		c = (cycles[mid-1] + cycles[mid]) / 2
	}
	return twinResult{cycles: c, goal: sum / float64(len(rs))}
}

// summarize returns what the runs rs of one cell did up to the point
// where each had allocated upTo bytes, the live heap's included.
func summarize(rs []goRun, upTo uint64) goCell {
	var cycles []int
	var goalSum float64
	for _, r := range rs {
		n := len(r.at)
		if i := slices.IndexFunc(r.at, func(a uint64) bool { return a > upTo }); i >= 0 {
			n = i
		}
		cycles = append(cycles, n)
		goalSum += mean(r.goals[:n])
	}
	slices.Sort(cycles)
	c := goCell{runs: len(rs), cyclesMin: cycles[0], cyclesMax: cycles[len(cycles)-1], goal: goalSum / float64(len(rs))}
	if mid := len(cycles) / 2; len(cycles)%2 == 1 {
		c.cyclesMed = float64(cycles[mid])
	} else {
		c.cyclesMed = float64(cycles[mid-1]+cycles[mid]) / 2
	}
	return c
}

// mean returns the mean of vs, or NaN if there are none.
func mean(vs []uint64) float64 {
	sum := 0.0
	for _, v := range vs {
		sum += float64(v)
	}
	return sum / float64(len(vs))
}

// goalMismatches returns how many of r's polled goals, in whole MiB
// rounded down, differ from the goal gctrace printed for the same cycle.
func goalMismatches(r goRun) int {
	n := 0
	for i, g := range r.goals {
		if i < len(r.traceGoals) && int(g>>20) != r.traceGoals[i] {
			n++
		}
	}
	return n
}

var (
	runLine     = regexp.MustCompile(`^### program=(\S+) gogc=(\d+) gomaxprocs=(\d+) run=\d+ `)
	gctraceLine = regexp.MustCompile(`^gc \d+ @\S+ \d+%: ([0-9.]+)\+[0-9.]+\+([0-9.]+) ms clock, [0-9.]+\+([0-9.]+)/([0-9.]+)/([0-9.]+)\+[0-9.]+ ms cpu, (\d+)->(\d+)->(\d+) MB, (\d+) MB goal,`)
	fieldRE     = regexp.MustCompile(`(\w+)=(\S+)`)
)

// readRecording parses one recording of run.sh (gzipped): every run, its
// gctrace lines and its summary.
func readRecording(name string) ([]goRun, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	batch := strings.TrimSuffix(filepath.Base(name), ".txt.gz")
	var runs []goRun
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if i := strings.Index(t, "### program="); i > 0 {
			// A run that exited while the collector printed a cycle's
			// gctrace line (an incomplete cycle, which neither gctrace
			// nor the summary counts): the rest of that line is lost
			// and the next run's header follows on the same line.
			t = t[i:]
		}
		if m := runLine.FindStringSubmatch(t); m != nil {
			gogc, _ := strconv.Atoi(m[2])
			procs, _ := strconv.Atoi(m[3])
			runs = append(runs, goRun{batch: batch, program: m[1], gogc: gogc, procs: procs})
			continue
		}
		if len(runs) == 0 {
			continue
		}
		r := &runs[len(runs)-1]
		if m := gctraceLine.FindStringSubmatch(t); m != nil {
			r.traceCycles++
			g, _ := strconv.Atoi(m[9])
			r.traceGoals = append(r.traceGoals, g)
			sweep, _ := strconv.ParseFloat(m[1], 64)
			mark, _ := strconv.ParseFloat(m[2], 64)
			r.sweepTerm = append(r.sweepTerm, sweep)
			r.markTerm = append(r.markTerm, mark)
			cpu := 0.0
			for _, f := range m[3:6] {
				v, _ := strconv.ParseFloat(f, 64)
				cpu += v
			}
			r.markCPU = append(r.markCPU, cpu)
			continue
		}
		if s, ok := strings.CutPrefix(t, "# summary "); ok {
			if err := r.parseSummary(s); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, line, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	for _, r := range runs {
		// The last cycle's gctrace line may be lost when the program
		// exits as the collector prints it; or there may be one more
		// than the summary counts, a cycle started by the summary's own
		// allocations after the last poll.
		if len(r.goals) != r.cycles || len(r.at) != r.cycles || r.traceCycles < r.cycles-1 || r.traceCycles > r.cycles+1 {
			return nil, fmt.Errorf("%s: a run of %s at GOGC=%d GOMAXPROCS=%d: %d cycles, %d goals and %d cycle ends in its summary, %d gctrace lines", name, r.program, r.gogc, r.procs, r.cycles, len(r.goals), len(r.at), r.traceCycles)
		}
	}
	return runs, nil
}

// parseSummary reads alloc's summary line into r.
func (r *goRun) parseSummary(s string) error {
	for _, m := range fieldRE.FindAllStringSubmatch(s, -1) {
		var err error
		switch m[1] {
		case "cycles":
			r.cycles, err = strconv.Atoi(m[2])
		case "goals":
			r.goals, err = parseUints(m[2])
		case "at":
			r.at, err = parseUints(m[2])
		case "allocs":
			r.allocs, err = strconv.ParseInt(m[2], 10, 64)
		case "cpu_ns":
			r.cpuNs, err = strconv.ParseInt(m[2], 10, 64)
		case "gc_cpu_ns":
			r.gcCPUNs, err = strconv.ParseInt(m[2], 10, 64)
		}
		if err != nil {
			return fmt.Errorf("summary field %s: %v", m[1], err)
		}
	}
	return nil
}

// parseUints parses comma-separated unsigned numbers.
func parseUints(s string) ([]uint64, error) {
	var vs []uint64
	for f := range strings.SplitSeq(s, ",") {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}

var twinLine = regexp.MustCompile(`(?m)^cycles=(\d+) goals=(\S*) at=`)

// runTwin runs the twin script (source src) of cell k under the GC cycle
// model with total short-lived bytes, as `schedlab run --procs P --gogc G
// --gc-cycle MODEL --param total=TOTAL script` would (with seed above 0,
// `--perturb=timing --seed SEED` too, its thread stalls off), and returns
// what it printed.
func runTwin(script string, src []byte, k key, model string, total int64, costs string, seed int) twinResult {
	args := []string{
		"--procs=" + strconv.Itoa(k.procs),
		"--gogc=" + strconv.Itoa(k.gogc),
		"--gc-cycle=" + model,
		"--param=total=" + strconv.FormatInt(total, 10),
	}
	if costs != "" {
		args = append(args, "--costs="+costs)
	}
	if seed > 0 {
		args = append(args, "--perturb=timing", "--seed="+strconv.Itoa(seed))
	}
	fail := func(format string, a ...any) twinResult {
		return twinResult{err: fmt.Errorf("%s %s: "+format, append([]any{script, strings.Join(args, " ")}, a...)...)}
	}
	s, err := cli.ScriptSettings(script, src, args)
	if err != nil {
		return fail("%v", err)
	}
	prog, err := lang.Compile(script, src, lang.Options{})
	if err != nil {
		return fail("%s", lang.FormatCompileError(err))
	}
	var stdout, stderr bytes.Buffer
	opts := s.Options(&stdout, &stderr)
	opts.Perturb.Stalls = false // the in-situ mark rates hold them already
	res := prog.Run(opts)
	if res.ExitCode != 0 {
		return fail("exit %d\n%s%s", res.ExitCode, stdout.Bytes(), stderr.Bytes())
	}
	m := twinLine.FindSubmatch(stdout.Bytes())
	if m == nil {
		return fail("no cycles= line in\n%s", stdout.Bytes())
	}
	cycles, _ := strconv.Atoi(string(m[1]))
	var goals []uint64
	if len(m[2]) > 0 {
		if goals, err = parseUints(string(m[2])); err != nil {
			return fail("%v", err)
		}
	}
	if len(goals) != cycles {
		return fail("%d cycles but %d goals", cycles, len(goals))
	}
	return twinResult{cycles: cycles, goal: mean(goals)}
}

// printTable writes the rows as a Markdown table, with a summary line.
func printTable(w io.Writer, cfg config, rows []row) {
	fmt.Fprintf(w, "GC pacing: real Go (%s) against the twins, %s of short-lived objects a run\n\n",
		strings.Join(recordingNames(cfg.recs), ", "), formatSize(cfg.total))
	fmt.Fprintln(w, "| program | GOGC | P | model | Go cycles: median [range] | schedlab | error | Go goal MiB | schedlab | error | within 10% |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	met := make(map[string]int)
	for _, r := range rows {
		verdict := "yes"
		if r.ok() {
			met[r.model]++
		} else {
			verdict = "**no**"
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %g [%d–%d] | %d | %+.1f%% | %.2f | %.2f | %+.1f%% | %s |\n",
			r.program, r.gogc, r.procs, r.model, r.goc.cyclesMed, r.goc.cyclesMin, r.goc.cyclesMax,
			r.twin.cycles, 100*r.cyclesErr, r.goc.goal/(1<<20), r.twin.goal/(1<<20), 100*r.goalErr, verdict)
	}
	fmt.Fprintln(w)
	per := len(rows) / max(len(cfg.models), 1)
	for _, m := range cfg.models {
		fmt.Fprintf(w, "%s: %d/%d cells within 10%%\n", m, met[m], per)
	}
}

// recordingNames returns the recordings' batch names.
func recordingNames(recs []string) []string {
	names := make([]string, len(recs))
	for i, r := range recs {
		names[i] = strings.TrimSuffix(filepath.Base(r), ".txt.gz")
	}
	return names
}

// formatSize writes n bytes in the largest binary unit that divides it.
func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// printPauses writes the quantiles of the recorded sweep termination and
// mark termination pauses, in µs, by recording and GOMAXPROCS: the
// figures runtime/costs_default.json's gc_sweep_term and gc_mark_term
// stand for.
func printPauses(w io.Writer, recs []string) error {
	qs := []float64{0.1, 0.25, 0.5, 0.75, 0.9, 0.99}
	fmt.Fprintln(w, "| recording | P | pause | n | p10 | p25 | p50 | p75 | p90 | p99 (µs) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, name := range recs {
		runs, err := readRecording(name)
		if err != nil {
			return err
		}
		for _, procs := range []int{1, 2} {
			var sweep, mark []float64
			for _, r := range runs {
				if r.procs == procs {
					sweep = append(sweep, r.sweepTerm...)
					mark = append(mark, r.markTerm...)
				}
			}
			for _, p := range []struct {
				name string
				ms   []float64
			}{{"sweep termination", sweep}, {"mark termination", mark}} {
				slices.Sort(p.ms)
				fmt.Fprintf(w, "| %s | %d | %s | %d |", strings.TrimSuffix(filepath.Base(name), ".txt.gz"), procs, p.name, len(p.ms))
				for _, q := range qs {
					fmt.Fprintf(w, " %.0f |", 1000*quantile(p.ms, q))
				}
				fmt.Fprintln(w)
			}
		}
	}
	return nil
}

// scanWork is the scan work of one cycle of each of alloc's programs, in
// bytes, as GODEBUG=gcpacertrace=1 reports it for alloc (small: 54,832
// bytes of heap, the runtime's own and the flag and metrics packages',
// 2,720 of stacks, 158,442 of globals); pointers adds its 32 MiB of
// blocks and the 12,288-byte slice that holds them.
var scanWork = map[string]float64{
	"small":    54832 + 2720 + 158442,
	"pointers": 54832 + 2720 + 158442 + 32<<20 + 512*24,
}

// printMarkRates writes, for each recording, the median mark CPU of a
// cycle (gctrace's assist, background and idle CPU) of small and pointers
// at GOMAXPROCS 1, past each run's first 10 cycles (the live heap's
// build-up), and that over the program's scan work a cycle, in ns a MiB:
// what marking costs in situ. small's scan work is nearly all roots (the
// globals), pointers' nearly all its retained blocks.
func printMarkRates(w io.Writer, recs []string) error {
	fmt.Fprintln(w, "| recording | program | cycles | mark CPU a cycle, p50 (µs) | scan work (bytes) | ns a MiB |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, name := range recs {
		runs, err := readRecording(name)
		if err != nil {
			return err
		}
		for _, prog := range []string{"small", "pointers"} {
			var cpu []float64
			for _, r := range runs {
				if r.program == prog && r.procs == 1 && len(r.markCPU) > 10 {
					cpu = append(cpu, r.markCPU[10:]...)
				}
			}
			slices.Sort(cpu)
			p50 := quantile(cpu, 0.5)
			fmt.Fprintf(w, "| %s | %s | %d | %.0f | %.0f | %.0f |\n", strings.TrimSuffix(filepath.Base(name), ".txt.gz"), prog, len(cpu), 1000*p50, scanWork[prog], p50*1e6*(1<<20)/scanWork[prog])
		}
	}
	return nil
}

// quantile returns the q quantile of the sorted vs (the nearest rank), or
// NaN if there are none.
func quantile(vs []float64, q float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	return vs[min(int(q*float64(len(vs))), len(vs)-1)]
}
