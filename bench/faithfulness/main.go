// Command faithfulness measures how close schedlab's multi-P schedules come
// to the real runtime's. For every racy Go program of corpus/ (each prints
// one short line that names its outcome, or a few whose order is the
// outcome, joined on one line) it compares the distribution of
// outcomes that real Go printed, as record.sh recorded it, with what
// schedlab prints for the program's Starlark twin:
//
//   - default: what `schedlab run --procs P twin.star` prints, and whether
//     that is Go's most frequent outcome;
//   - found: how many of Go's outcomes of frequency ≥ 1% `schedlab explore
//     --runs N --perturb=timing` finds;
//   - unsound: the outcomes schedlab gives at ≥ 1% that Go never printed;
//   - mode share: the share of Go's most frequent outcome, in Go and in
//     explore's runs;
//   - TVD: the total variation distance between the two distributions;
//   - Go~Go: the TVD between the two recordings of Go, the noise floor;
//     the summary gives the mean of each TVD above it, and how many pairs
//     are within it (or within 0.10, where it is smaller).
//
// Run it from the repository's root:
//
//	go run ./bench/faithfulness [-runs 2000] [-startup go|bare] [-print free|syscall|auto] [-recordings GROUPS] [-cpus N] [-check] [program...]
//
// -recordings names the recordings/ directories pooled as Go's
// distribution: groups separated by commas, each a directory or several
// joined with +; Go~Go is the largest distance between two groups. The
// default, run1+run2,amd-quiet-1+amd-quiet-2,amd-1207+amd-1208, pools
// three hosts' sessions (two recordings each) and gives the largest
// distance between two of them as each pair's floor;
// run1+run2,amd-quiet-1+amd-quiet-2 is the two first sessions, as the
// reports of 2026-12-07 before 06:00 UTC were made, and -recordings
// run1,run2 the first session alone, as every report before that day.
// With -gogo A,B it runs no schedlab at all and compares two sets of
// recordings of real Go with each other, pair by pair (each set a
// directory or several joined with +): the distance between two machines,
// or between a quiet and a busy one, beside each set's own floor.
//
// Each pair runs on as many CPUs as the machine its recordings were made
// on had (their # machine lines: --cpus=2 for every recording so far), so
// that four Ps share two CPUs as in Go's 4-P recordings; -cpus 0 gives
// every thread a CPU of its own, schedlab's default, as every report
// before reports/sessions-stall-default.md was made.
//
// It builds schedlab from the working tree (or uses -schedlab), runs it as a
// user would, prints a Markdown table on stdout and progress on stderr.
// With -check it exits 1 unless the five targets of issue 30 are met: the
// modal outcome on every pair, every ≥ 1% outcome found, nothing unsound at
// ≥ 1%, mean TVD ≤ 0.08, and the mode's share within 10 points of Go's on
// every pair. docs/faithfulness.md holds its outputs.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/internal/explore"
)

// recordingRuns are the first session's two recordings of real Go, one
// after the other, which TestRecordings holds to a floor of 0.10.
var recordingRuns = []string{"run1", "run2"}

// sessionRuns are the whole corpus recorded again, twice, in a later
// session (2026-12-07, on the AMD EPYC host).
var sessionRuns = []string{"amd-quiet-1", "amd-quiet-2"}

// thirdRuns is the corpus recorded once more, on a fresh host of the same
// kind (2026-12-07, 05:50 UTC; docs/faithfulness.md, "A third session"),
// and again on that host a day later (2026-12-08, 01:14 UTC; "This host a
// day later").
var thirdRuns = []string{"amd-1207", "amd-1208"}

// defaultRecordings is -recordings' default: the three sessions pooled,
// so that Go's distribution is over the conditions seen so far and each
// pair's floor, Go~Go, is the largest distance between two sessions.
var defaultRecordings = strings.Join(recordingRuns, "+") + "," + strings.Join(sessionRuns, "+") + "," + strings.Join(thirdRuns, "+")

func recordingName(name string, procs int) string { return fmt.Sprintf("%s-p%d.txt", name, procs) }

func main() { os.Exit(doMain(os.Args[1:], os.Stdout, os.Stderr)) }

type config struct {
	dir      string     // bench/faithfulness
	schedlab string     // the command
	runs     int        // explore --runs
	perturb  string     // explore --perturb
	startup  string     // run's and explore's --startup
	print    string     // run's and explore's --print
	costs    string     // run's and explore's --costs
	cpus     int        // run's and explore's --cpus
	minFreq  float64    // the 1% threshold
	recs     [][]string // the recordings/ directories pooled as Go's distribution, in groups (sessions)
	stderr   io.Writer
}

func doMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("faithfulness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config{stderr: stderr}
	fs.StringVar(&cfg.dir, "dir", "bench/faithfulness", "the `directory` that holds corpus/ and recordings/")
	fs.StringVar(&cfg.schedlab, "schedlab", "", "the schedlab `command` to measure (default: go build ./cmd/schedlab from the working tree)")
	fs.IntVar(&cfg.runs, "runs", 2000, "explore `N` runs of each twin")
	fs.StringVar(&cfg.perturb, "perturb", "timing", "explore's --perturb `mode`")
	fs.StringVar(&cfg.startup, "startup", "go", "the `start-up` of every run and sweep (--startup): go, runtime.main's, as schedlab's default, or bare")
	fs.StringVar(&cfg.print, "print", "auto", "what a printed line costs in every run and sweep (--print): `free`, syscall for Go's write(2), or auto (syscall when the profile charges a write)")
	fs.StringVar(&cfg.costs, "costs", "default", "the costs `profile` of every run and sweep (--costs): default, zero, or a file")
	fs.IntVar(&cfg.cpus, "cpus", cpusRecorded, "the machine's `CPUs` in every run and sweep (--cpus; 0: a CPU for every thread, schedlab's default; -1: as many as the machine each pair was recorded on had, from its recordings' # machine lines)")
	fs.Float64Var(&cfg.minFreq, "min", 0.01, "the `frequency` from which an outcome counts for found and unsound")
	recs := fs.String("recordings", defaultRecordings, "the recordings/ `directories` pooled as Go's distribution: comma-separated groups, each a directory or several joined with + (Go~Go is the largest distance between two groups)")
	gogo := fs.String("gogo", "", "compare two `sets` of Go's recordings, A,B (each a directory of recordings/ or several joined with +), pair by pair, and run no schedlab")
	check := fs.Bool("check", false, "exit 1 unless every target is met")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./bench/faithfulness [flags] [program...]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if cfg.runs < 1 {
		fmt.Fprintf(stderr, "faithfulness: -runs wants a positive count, got %d\n", cfg.runs)
		return 2
	}
	for _, g := range splitList(*recs, ",") {
		if dirs := splitList(g, "+"); len(dirs) > 0 {
			cfg.recs = append(cfg.recs, dirs)
		}
	}
	if len(cfg.recs) == 0 {
		fmt.Fprintf(stderr, "faithfulness: -recordings wants at least one directory, got %q\n", *recs)
		return 2
	}
	entries, err := readManifest(filepath.Join(cfg.dir, "corpus", "MANIFEST"))
	if err != nil {
		fmt.Fprintf(stderr, "faithfulness: %v (run it from the repository's root, or give -dir)\n", err)
		return 2
	}
	if only := fs.Args(); len(only) > 0 {
		entries, err = selectEntries(entries, only)
		if err != nil {
			fmt.Fprintf(stderr, "faithfulness: %v\n", err)
			return 2
		}
	}
	if *gogo != "" {
		sets := splitList(*gogo, ",")
		if len(sets) != 2 {
			fmt.Fprintf(stderr, "faithfulness: -gogo wants two sets of recordings, A,B, got %q\n", *gogo)
			return 2
		}
		if err := writeGoGo(stdout, cfg.dir, entries, splitList(sets[0], "+"), splitList(sets[1], "+")); err != nil {
			fmt.Fprintf(stderr, "faithfulness: %v\n", err)
			return 1
		}
		return 0
	}
	if cfg.schedlab == "" {
		tmp, err := os.MkdirTemp("", "faithfulness")
		if err != nil {
			fmt.Fprintf(stderr, "faithfulness: %v\n", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		cfg.schedlab = filepath.Join(tmp, "schedlab")
		fmt.Fprintln(stderr, "building schedlab")
		if out, err := exec.Command("go", "build", "-o", cfg.schedlab, "./cmd/schedlab").CombinedOutput(); err != nil {
			fmt.Fprintf(stderr, "faithfulness: go build ./cmd/schedlab: %v\n%s", err, out)
			return 1
		}
	}

	var rows []row
	for _, e := range entries {
		for _, p := range e.Procs {
			fmt.Fprintf(stderr, "%s at %d Ps\n", e.Name, p)
			r, err := measure(&cfg, e.Name, p)
			if err != nil {
				fmt.Fprintf(stderr, "faithfulness: %s at %d Ps: %v\n", e.Name, p, err)
				return 1
			}
			rows = append(rows, r)
		}
	}
	met := writeReport(stdout, &cfg, rows)
	if *check && !met {
		return 1
	}
	return 0
}

func selectEntries(all []entry, names []string) ([]entry, error) {
	var out []entry
	for _, n := range names {
		found := false
		for _, e := range all {
			if e.Name == n {
				out = append(out, e)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no program %q in corpus/MANIFEST", n)
		}
	}
	return out, nil
}

// cpusRecorded is -cpus's default: each pair runs on as many CPUs as the
// machine its recordings were made on had.
const cpusRecorded = -1

// recordedCPUs returns the CPUs of the machine the recordings with these
// headers were made on: the number all their # machine lines give, or an
// error if one gives none or two disagree.
func recordedCPUs(headers []header) (int, error) {
	n := 0
	for _, h := range headers {
		if h.CPUs <= 0 {
			return 0, fmt.Errorf("a recording's # machine line gives no CPUs: give -cpus")
		}
		if n != 0 && h.CPUs != n {
			return 0, fmt.Errorf("the recordings were made on machines of %d and %d CPUs: give -cpus", n, h.CPUs)
		}
		n = h.CPUs
	}
	return n, nil
}

// A row is the measurement of one program at one proc count.
type row struct {
	Name    string
	Procs   int
	Go      *Dist // the recordings pooled
	GoNoise float64
	Default string
	Sim     *Dist // explore's classes, by what they printed
}

func measure(cfg *config, name string, procs int) (row, error) {
	r := row{Name: name, Procs: procs, Go: newDist()}
	var recs []*Dist
	var headers []header
	for _, group := range cfg.recs {
		set, err := readSet(cfg.dir, group, name, procs)
		if err != nil {
			return r, err
		}
		recs = append(recs, set.pooled)
		headers = append(headers, set.headers...)
		r.Go.merge(set.pooled)
	}
	cpus := cfg.cpus
	if cpus == cpusRecorded {
		var err error
		if cpus, err = recordedCPUs(headers); err != nil {
			return r, fmt.Errorf("%s at %d Ps: %v", name, procs, err)
		}
	}
	r.GoNoise = floorOf(recs)
	star := filepath.Join(cfg.dir, "corpus", name+".star")
	p := strconv.Itoa(procs)

	// --cpus only when set: a schedlab from before explore took it is
	// still measured as it was.
	var machine []string
	if cpus != 0 {
		machine = []string{"--cpus=" + strconv.Itoa(cpus)}
	}
	runArgs := append([]string{"run", "--procs", p, "--startup=" + cfg.startup, "--print=" + cfg.print, "--costs=" + cfg.costs}, machine...)
	out, err := runOutcome(cfg, "", append(runArgs, star)...)
	if err != nil {
		return r, err
	}
	r.Default = out

	var js bytes.Buffer
	exploreArgs := append([]string{"explore", "--json", "--runs", strconv.Itoa(cfg.runs), "--procs", p, "--perturb=" + cfg.perturb, "--startup=" + cfg.startup, "--print=" + cfg.print, "--costs=" + cfg.costs}, machine...)
	cmd := exec.Command(cfg.schedlab, append(exploreArgs, star)...)
	cmd.Stdout = &js
	cmd.Stderr = io.Discard
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 { // 1: some class is a failure, a valid report
			return r, fmt.Errorf("schedlab explore: %v", err)
		}
	}
	rep, err := explore.ReadJSON(js.Bytes())
	if err != nil {
		return r, fmt.Errorf("schedlab explore --json: %v", err)
	}
	r.Sim = newDist()
	for i := range rep.Classes {
		c := &rep.Classes[i]
		label, err := runOutcome(cfg, string(c.Outcome), append([]string{"run"}, rep.ReplayArgs(c)...)...)
		if err != nil {
			return r, err
		}
		r.Sim.add(label, c.Count)
	}
	return r, nil
}

// runOutcome runs schedlab with args and names the outcome of the run: the
// line it printed (its lines joined with spaces, as record.sh joins Go's),
// or, for a run that did not end well, its outcome in angle brackets before
// it.
func runOutcome(cfg *config, class string, args ...string) (string, error) {
	var stdout bytes.Buffer
	cmd := exec.Command(cfg.schedlab, args...)
	cmd.Stdout = &stdout
	cmd.Stderr = io.Discard
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return "", fmt.Errorf("schedlab %s: %v", strings.Join(args, " "), err)
	}
	// A run's lines joined with spaces, as record.sh joins Go's.
	label := strings.ReplaceAll(strings.TrimRight(stdout.String(), "\n"), "\n", " ")
	switch {
	case class != "" && class != string(explore.OK) && class != string(explore.Left):
		label = "<" + class + "> " + label
	case class == "" && err != nil:
		label = fmt.Sprintf("<exit %d> %s", ee.ExitCode(), label)
	}
	return label, nil
}

// writeReport prints the table and the details, and reports whether every
// target is met.
func writeReport(w io.Writer, cfg *config, rows []row) bool {
	fmt.Fprintf(w, "| program | Ps | Go's mode | default run | mode | Go outcomes ≥ %s found | unsound ≥ %s | mode share Go / schedlab | TVD | Go~Go |\n", pct(cfg.minFreq), pct(cfg.minFreq))
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	var modal, found, wanted, unsound, shares int
	var tvdSum, aboveSum float64
	var withinFloor int
	for _, r := range rows {
		mode := r.Go.Mode()
		ok := r.Default == mode
		if ok {
			modal++
		}
		f, n := 0, 0
		for _, o := range r.Go.Outcomes() {
			if r.Go.P(o) >= cfg.minFreq {
				n++
				if r.Sim.Counts[o] > 0 {
					f++
				}
			}
		}
		found += f
		wanted += n
		var bad []string
		for _, o := range r.Sim.Outcomes() {
			if r.Sim.P(o) >= cfg.minFreq && r.Go.Counts[o] == 0 {
				bad = append(bad, fmt.Sprintf("`%s` %s", o, pct(r.Sim.P(o))))
			}
		}
		unsound += len(bad)
		tvd := TVD(r.Go, r.Sim)
		tvdSum += tvd
		aboveSum += max(0, tvd-r.GoNoise)
		if tvd <= max(r.GoNoise, 0.10) {
			withinFloor++
		}
		share := r.Sim.P(mode) - r.Go.P(mode)
		shareOK := share >= -0.10 && share <= 0.10
		if shareOK {
			shares++
		}
		fmt.Fprintf(w, "| %s | %d | `%s` %s | `%s` | %s | %d/%d | %s | %s / %s %s | %.3f | %.3f |\n",
			r.Name, r.Procs, mode, pct(r.Go.P(mode)), r.Default, yesNo(ok), f, n, orNone(bad), pct(r.Go.P(mode)), pct(r.Sim.P(mode)), yesNo(shareOK), tvd, r.GoNoise)
	}
	mean := 0.0
	if len(rows) > 0 {
		mean = tvdSum / float64(len(rows))
	}
	flags := ""
	if cfg.startup != "go" {
		flags += " --startup=" + cfg.startup
	}
	if cfg.costs != "default" {
		flags += " --costs=" + cfg.costs
	}
	if cfg.print != "auto" {
		flags += " --print=" + cfg.print
	}
	switch {
	case cfg.cpus == cpusRecorded:
		flags += " --cpus as recorded"
	case cfg.cpus != 0:
		flags += " --cpus=" + strconv.Itoa(cfg.cpus)
	}
	fmt.Fprintf(w, "\nmodal outcome %d/%d · Go outcomes found %d/%d · unsound %d · mode share within 10 points %d/%d · mean TVD %.3f (explore --runs %d --perturb=%s%s; Go: %s)\n",
		modal, len(rows), found, wanted, unsound, shares, len(rows), mean, cfg.runs, cfg.perturb, flags, groupsText(cfg.recs))
	if len(cfg.recs) >= 2 && len(rows) > 0 {
		fmt.Fprintf(w, "against the floor: mean TVD above Go~Go %.3f · within Go~Go (or 0.10) %d/%d\n", aboveSum/float64(len(rows)), withinFloor, len(rows))
	}
	met := modal == len(rows) && found == wanted && unsound == 0 && mean <= 0.08 && shares == len(rows)
	fmt.Fprintf(w, "targets (every mode, every outcome found, none unsound, mean TVD ≤ 0.08, every mode share within 10 points): %s\n", map[bool]string{true: "met", false: "not met"}[met])

	fmt.Fprintln(w, "\n### Outcomes, Go against schedlab")
	for _, r := range rows {
		fmt.Fprintf(w, "\n%s at %d Ps (Go %d runs, schedlab %d runs):\n\n", r.Name, r.Procs, r.Go.Total, r.Sim.Total)
		all := r.Go.Outcomes()
		for _, o := range r.Sim.Outcomes() {
			if r.Go.Counts[o] == 0 {
				all = append(all, o)
			}
		}
		for _, o := range all {
			fmt.Fprintf(w, "    %-24s Go %7s   schedlab %7s\n", o, pct(r.Go.P(o)), pct(r.Sim.P(o)))
		}
	}
	return met
}

// floorOf is a pair's floor, Go~Go: the largest distance between two of
// its groups of recordings (sessions), 0 with fewer than two.
func floorOf(groups []*Dist) float64 {
	var floor float64
	for i := range groups {
		for j := i + 1; j < len(groups); j++ {
			floor = max(floor, TVD(groups[i], groups[j]))
		}
	}
	return floor
}

// groupsText says what recordings were pooled as Go's distribution and,
// when a group holds more than one, which groups Go~Go compares.
func groupsText(groups [][]string) string {
	var all, gs []string
	grouped := false
	for _, g := range groups {
		all = append(all, g...)
		gs = append(gs, strings.Join(g, "+"))
		grouped = grouped || len(g) > 1
	}
	text := strings.Join(all, "+") + " pooled"
	switch {
	case len(gs) > 2:
		text += "; Go~Go: the largest of " + strings.Join(gs, ", ") + " against each other"
	case grouped && len(gs) == 2:
		text += "; Go~Go: " + gs[0] + " against " + gs[1]
	}
	return text
}

func pct(p float64) string {
	if p == 0 {
		return "0"
	}
	return strconv.FormatFloat(100*p, 'f', 1, 64) + "%"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
