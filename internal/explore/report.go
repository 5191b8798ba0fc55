package explore

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// FormatVersion is the version of the JSON report ("version"). It changes
// only when a change could break a reader.
const FormatVersion = 1

// A Report is the result of a sweep or of merged shards of one: what
// `schedlab explore` prints as a table, or with --json as JSON. Field order
// is the order of the JSON keys.
type Report struct {
	Version   int    `json:"version"`
	Script    string `json:"script"`        // as named on the command line
	ScriptSum string `json:"script_sha256"` // of the script's source
	Runs      int    `json:"runs"`          // of the whole sweep
	SeedStart uint64 `json:"seed_start"`
	Procs     []int  `json:"procs"`
	Perturb   string `json:"perturb"`

	// RunFlags are the run flags every replay needs besides --seed,
	// --procs and --perturb (such as --preempt=off); LimitFlags the
	// limits the sweep set, which a replay needs only to reproduce a limit.
	RunFlags   []string `json:"run_flags"`
	LimitFlags []string `json:"limit_flags"`

	// Group is what names a class (Policy.Group: full, message or
	// outcome), Accept the failing outcomes counted as passing.
	Group  string    `json:"group"`
	Accept []Outcome `json:"accept"`

	ShardCount int   `json:"shard_count"` // the sweep was split in this many shards
	Shards     []int `json:"shards"`      // the shards this report covers, in order
	Done       int   `json:"done"`        // runs tallied
	Stopped    bool  `json:"stopped"`     // --fail-fast ended a shard early
	// Interrupted: SIGINT ended a shard early; Done counts the runs
	// before the first that was not started.
	Interrupted bool `json:"interrupted,omitempty"`

	Classes []ReportClass `json:"classes"`
}

// A ReportClass is one class of a report.
type ReportClass struct {
	Outcome  Outcome `json:"outcome"`
	Failure  bool    `json:"failure"`
	Message  string  `json:"message"`
	Output   string  `json:"output"` // OutputHash of stdout
	Count    int     `json:"count"`
	FirstRun int     `json:"first_run"` // index in the sweep
	Seed     uint64  `json:"seed"`
	Procs    int     `json:"procs"`
	Digest   string  `json:"digest"` // hex Result.Digest of the first run
	Replay   string  `json:"replay"` // the command that replays the first run
	// OutputText is what the first run printed on stdout, its first
	// MaxOutputText bytes: the text whose hash Output is.
	OutputText string `json:"output_text"`

	// ReplayCheck is the result of replaying the first run with Replay:
	// "ok", or "mismatch: ..." if it printed other bytes; "" if it was
	// not checked (explore checks failing classes only).
	ReplayCheck string `json:"replay_check"`
}

// NewReport returns the report of a tally of plan p. The script and the
// flags are what the replay commands are made of.
func NewReport(p *Plan, t *Tally, script string, src []byte, perturb string, runFlags, limitFlags []string) *Report {
	r := &Report{
		Version:    FormatVersion,
		Script:     script,
		ScriptSum:  OutputHash(src),
		Runs:       p.Runs,
		SeedStart:  p.SeedStart,
		Procs:      slices.Clone(p.Procs),
		Perturb:    perturb,
		RunFlags:   nonNil(runFlags),
		LimitFlags: nonNil(limitFlags),
		ShardCount: p.Shard.count(),
		Shards:     []int{p.Shard.Index},
		Done:       t.Done,
		Stopped:    t.Stopped && !t.Interrupted,
		Classes:    []ReportClass{},
		Group:      t.Policy.group(),
		Accept:     slices.Clone(t.Policy.Accept),

		Interrupted: t.Interrupted,
	}
	if r.Accept == nil {
		r.Accept = []Outcome{}
	}
	for _, c := range t.Classes {
		rc := ReportClass{
			Outcome:  c.Outcome,
			Failure:  t.Policy.Failure(c.Outcome),
			Message:  c.Example.Message,
			Output:   c.Example.Output,
			Count:    c.Count,
			FirstRun: c.First.Index,
			Seed:     c.First.Seed,
			Procs:    c.First.Procs,
			Digest:   hex.EncodeToString(c.Digest[:]),

			OutputText: c.Text,
		}
		rc.Replay = r.ReplayCommand(&rc)
		r.Classes = append(r.Classes, rc)
	}
	return r
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}

// ReplayArgs returns the arguments of `schedlab run` that replay the first
// run of c: --seed S --procs P --perturb=X, the run flags, the limit flags
// if c is a limit, --alive if main returned leaving goroutines (explore's
// runs list them all, which tells left from ok), and the script.
func (r *Report) ReplayArgs(c *ReportClass) []string {
	args := []string{"--seed", strconv.FormatUint(c.Seed, 10), "--procs", strconv.Itoa(c.Procs), "--perturb=" + r.Perturb}
	args = append(args, r.RunFlags...)
	if c.Outcome == Limit {
		args = append(args, r.LimitFlags...)
	}
	if c.Outcome == Leak || c.Outcome == Left {
		args = append(args, "--alive")
	}
	return append(args, r.Script)
}

// ReplayCommand returns the shell command that replays the first run of c.
func (r *Report) ReplayCommand(c *ReportClass) string {
	words := []string{"schedlab", "run"}
	for _, a := range r.ReplayArgs(c) {
		words = append(words, ShellQuote(a))
	}
	return strings.Join(words, " ")
}

// ShellQuote quotes s for a POSIX shell if it needs it: one word of a
// replay command.
func ShellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./=:,+@%", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Failures returns the number of failing classes and of runs in them.
func (r *Report) Failures() (classes, runs int) {
	for _, c := range r.Classes {
		if c.Failure {
			classes++
			runs += c.Count
		}
	}
	return classes, runs
}

// WriteJSON writes the report as indented JSON, keys in a fixed order.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadJSON reads a report written by WriteJSON.
func ReadJSON(data []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.Version != FormatVersion {
		return nil, fmt.Errorf("report version %d, want %d", r.Version, FormatVersion)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("not a report schedlab explore writes: %v", err)
	}
	return &r, nil
}

// check reports what is out of range in a report read from a file: the
// sweep's plan, its shards, and the counts and first runs of its classes.
func (r *Report) check() error {
	if r.ShardCount < 1 {
		return fmt.Errorf("shard_count %d, want at least 1", r.ShardCount)
	}
	plan := Plan{Runs: r.Runs, SeedStart: r.SeedStart, Procs: r.Procs, Shard: Shard{Count: r.ShardCount}}
	if err := plan.Check(); err != nil {
		return err
	}
	if len(r.Procs) == 0 {
		return fmt.Errorf("no procs")
	}
	if len(r.Shards) == 0 {
		return fmt.Errorf("no shards")
	}
	for _, s := range r.Shards {
		if s < 0 || s >= r.ShardCount {
			return fmt.Errorf("shard %d of %d", s, r.ShardCount)
		}
	}
	if r.Done < 0 || r.Done > r.Runs {
		return fmt.Errorf("done %d of %d runs", r.Done, r.Runs)
	}
	total := 0
	for _, c := range r.Classes {
		if c.Count < 1 || c.Count > r.Runs || c.FirstRun < 0 || c.FirstRun >= r.Runs {
			return fmt.Errorf("class %s %q: %d runs, first run %d, of %d runs", c.Outcome, c.Message, c.Count, c.FirstRun, r.Runs)
		}
		total += c.Count
	}
	if total > r.Runs {
		return fmt.Errorf("the classes hold %d runs, more than the sweep's %d", total, r.Runs)
	}
	return nil
}

// Complete reports whether the report covers every shard of its sweep.
func (r *Report) Complete() bool {
	return len(r.Shards) == r.ShardCount
}

// Merge combines reports of shards of the same sweep into one, as if the
// shards had been one sweep: counts add up, and each class keeps the first
// run (and its replay check) with the lowest index. The sweeps must agree
// on the script, its source, the runs, seeds, procs, perturbation, flags and
// shard count, and no shard may appear twice.
func Merge(reports []*Report) (*Report, error) {
	if len(reports) == 0 {
		return nil, fmt.Errorf("no reports to merge")
	}
	m := *reports[0]
	m.Shards = nil
	m.Done, m.Stopped, m.Interrupted = 0, false, false
	type entry struct {
		c   ReportClass
		pos int // order of first appearance, for a stable result
	}
	classes := map[Key]*entry{}
	seen := map[int]bool{}
	policy := m.policy()
	for _, r := range reports {
		if err := sameSweep(&m, r); err != nil {
			return nil, err
		}
		for _, s := range r.Shards {
			if seen[s] {
				return nil, fmt.Errorf("shard %d/%d appears twice", s, m.ShardCount)
			}
			seen[s] = true
			m.Shards = append(m.Shards, s)
		}
		m.Done += r.Done
		m.Stopped = m.Stopped || r.Stopped
		m.Interrupted = m.Interrupted || r.Interrupted
		for _, c := range r.Classes {
			k := policy.Key(Key{c.Outcome, c.Message, c.Output})
			e, ok := classes[k]
			if !ok {
				classes[k] = &entry{c, len(classes)}
				continue
			}
			count := e.c.Count + c.Count
			if c.FirstRun < e.c.FirstRun {
				e.c = c
			}
			e.c.Count = count
		}
	}
	slices.Sort(m.Shards)
	cs := make([]Class, 0, len(classes))
	byKey := map[Key]ReportClass{}
	for k, e := range classes {
		cs = append(cs, Class{Key: k, Count: e.c.Count, First: Run{Index: e.c.FirstRun}})
		byKey[k] = e.c
	}
	sortClasses(cs, policy)
	m.Classes = make([]ReportClass, len(cs))
	for i, c := range cs {
		m.Classes[i] = byKey[c.Key]
	}
	return &m, nil
}

// sameSweep reports why r is not a shard of the same sweep as m.
func sameSweep(m, r *Report) error {
	diff := func(what string, a, b any) error {
		return fmt.Errorf("%s differs: %v and %v; not shards of one sweep", what, a, b)
	}
	switch {
	case r.Script != m.Script:
		return diff("script", m.Script, r.Script)
	case r.ScriptSum != m.ScriptSum:
		return diff("script_sha256 (the script changed)", m.ScriptSum, r.ScriptSum)
	case r.Runs != m.Runs:
		return diff("runs", m.Runs, r.Runs)
	case r.SeedStart != m.SeedStart:
		return diff("seed_start", m.SeedStart, r.SeedStart)
	case !slices.Equal(r.Procs, m.Procs):
		return diff("procs", m.Procs, r.Procs)
	case r.Perturb != m.Perturb:
		return diff("perturb", m.Perturb, r.Perturb)
	case !slices.Equal(r.RunFlags, m.RunFlags):
		return diff("run_flags", m.RunFlags, r.RunFlags)
	case !slices.Equal(r.LimitFlags, m.LimitFlags):
		return diff("limit_flags", m.LimitFlags, r.LimitFlags)
	case r.ShardCount != m.ShardCount:
		return diff("shard_count", m.ShardCount, r.ShardCount)
	case r.policy().group() != m.policy().group():
		return diff("group", m.Group, r.Group)
	case !slices.Equal(r.Accept, m.Accept):
		return diff("accept", m.Accept, r.Accept)
	}
	return nil
}

// policy returns the Policy the report's sweep used.
func (r *Report) policy() Policy { return Policy{Group: r.Group, Accept: r.Accept} }

// WriteTable writes the report for people: a line on the sweep, the
// summary (how many runs failed, and the runs by outcome), the table of
// classes and the command that replays each.
//
//	explore lost.star: 1000 runs, seeds 1-1000, procs 2, perturb timing
//	1 failure class: 48 of 1000 runs failed (4.8%); by outcome: assert 48, ok 952
//
//	#  OUTCOME  RUNS  SEED  PROCS  OUTPUT        MESSAGE
//	1  assert     48    12      2  5e1f0a3b9c2d  count is 9, want 10
//	2  ok        952     1      2  c0ffee123456
//
//	1  schedlab run --seed 12 --procs 2 --perturb=timing lost.star  # replay: ok
//	2  schedlab run --seed 1 --procs 2 --perturb=timing lost.star
func (r *Report) WriteTable(w io.Writer) error {
	ew := &errWriter{w: w}
	procs := make([]string, len(r.Procs))
	for i, p := range r.Procs {
		procs[i] = strconv.Itoa(p)
	}
	fmt.Fprintf(ew, "explore %s: %d runs, seeds %d-%d, procs %s, perturb %s",
		r.Script, r.Runs, r.SeedStart, r.SeedStart+uint64(max(r.Runs, 1)-1), strings.Join(procs, ","), r.Perturb)
	if !r.Complete() {
		// A whole sweep reads the same however it was split.
		sh := make([]string, len(r.Shards))
		for i, s := range r.Shards {
			sh[i] = fmt.Sprintf("%d/%d", s, r.ShardCount)
		}
		fmt.Fprintf(ew, ", shard %s", strings.Join(sh, " "))
	}
	if g := r.policy().group(); g != GroupFull {
		fmt.Fprintf(ew, ", classes by %s", g)
	}
	if len(r.Accept) > 0 {
		acc := make([]string, len(r.Accept))
		for i, o := range r.Accept {
			acc[i] = string(o)
		}
		fmt.Fprintf(ew, ", accepting %s", strings.Join(acc, ","))
	}
	fmt.Fprintf(ew, "\n")
	r.writeSummary(ew)
	fmt.Fprintf(ew, "\n")

	rows := [][]string{{"#", "OUTCOME", "RUNS", "SEED", "PROCS", "OUTPUT", "MESSAGE"}}
	for i, c := range r.Classes {
		rows = append(rows, []string{strconv.Itoa(i + 1), string(c.Outcome), strconv.Itoa(c.Count),
			strconv.FormatUint(c.Seed, 10), strconv.Itoa(c.Procs), c.Output, c.Message})
	}
	writeColumns(ew, rows, []bool{true, false, true, true, true, false, false})

	r.writeOutputs(ew)

	fmt.Fprintln(ew)
	width := len(strconv.Itoa(len(r.Classes)))
	for i, c := range r.Classes {
		fmt.Fprintf(ew, "%*d  %s", width, i+1, c.Replay)
		if c.ReplayCheck != "" {
			fmt.Fprintf(ew, "  # replay: %s", c.ReplayCheck)
		}
		fmt.Fprintln(ew)
	}
	return ew.err
}

// writeOutputs writes, when the classes printed more than one output,
// what each printed: its first lines, and for each but the most frequent
// the first line where it differs from the most frequent, so that no one
// has to replay every class to see how they differ.
//
//	OUTPUT        RUNS  PRINTED
//	3f5d8e4e4b68   142  "hits = 20"
//	e3b0c44298fc    58  nothing; line 1: nothing where 3f5d8e4e4b68 has "hits = 20"
func (r *Report) writeOutputs(w io.Writer) {
	type output struct {
		hash, text string
		runs       int
	}
	var outs []*output
	by := map[string]*output{}
	for _, c := range r.Classes {
		o := by[c.Output]
		if o == nil {
			o = &output{hash: c.Output, text: c.OutputText}
			by[c.Output] = o
			outs = append(outs, o)
		}
		o.runs += c.Count
	}
	if len(outs) < 2 {
		return
	}
	// The most frequent first; ties in the order of the table.
	slices.SortStableFunc(outs, func(a, b *output) int { return b.runs - a.runs })
	mode := outs[0]
	rows := [][]string{{"OUTPUT", "RUNS", "PRINTED"}}
	for i, o := range outs {
		printed := excerpt(o.text)
		if i > 0 {
			printed += "; " + firstDiff(o.text, mode.text, mode.hash)
		}
		rows = append(rows, []string{o.hash, strconv.Itoa(o.runs), printed})
	}
	fmt.Fprintln(w)
	writeColumns(w, rows, []bool{false, true, false})
}

// excerptLines and excerptWidth bound an excerpt of an output.
const (
	excerptLines = 3
	excerptWidth = 60
)

// excerpt returns the first lines of an output, each quoted and cut to
// excerptWidth, and how many more there are; "nothing" for none.
func excerpt(text string) string {
	lines := outputLines(text)
	if len(lines) == 0 {
		return "nothing"
	}
	var parts []string
	for _, l := range lines[:min(len(lines), excerptLines)] {
		parts = append(parts, quoteCut(l))
	}
	s := strings.Join(parts, " ")
	if n := len(lines) - excerptLines; n > 0 {
		s += fmt.Sprintf(" ... (%d more lines)", n)
	}
	return s
}

// firstDiff says where text first differs from the mode's text, line by
// line.
func firstDiff(text, mode, modeHash string) string {
	a, b := outputLines(text), outputLines(mode)
	for i := 0; i < max(len(a), len(b)); i++ {
		switch {
		case i >= len(a):
			return fmt.Sprintf("line %d: nothing where %s has %s", i+1, modeHash, quoteCut(b[i]))
		case i >= len(b):
			return fmt.Sprintf("line %d: %s where %s has nothing", i+1, quoteCut(a[i]), modeHash)
		case a[i] != b[i]:
			return fmt.Sprintf("line %d: %s where %s has %s", i+1, quoteCut(a[i]), modeHash, quoteCut(b[i]))
		}
	}
	return "the same lines as " + modeHash + " past the text kept" // differs beyond MaxOutputText
}

// outputLines splits an output into its lines, without the last newline.
func outputLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// quoteCut quotes a line, cut to excerptWidth runes.
func quoteCut(l string) string {
	if r := []rune(l); len(r) > excerptWidth {
		return strconv.Quote(string(r[:excerptWidth])) + "..."
	}
	return strconv.Quote(l)
}

// writeSummary writes the line a person reads first: how many runs
// failed, and how many ended in each outcome, in report order.
func (r *Report) writeSummary(w io.Writer) {
	classes, runs := r.Failures()
	switch {
	case classes == 0:
		fmt.Fprintf(w, "no failure in %d runs", r.Done)
	default:
		noun := "classes"
		if classes == 1 {
			noun = "class"
		}
		fmt.Fprintf(w, "%d failure %s: %d of %d runs failed (%.1f%%)", classes, noun, runs, r.Done, 100*float64(runs)/float64(max(r.Done, 1)))
	}
	if r.Stopped {
		fmt.Fprintf(w, "; --fail-fast stopped the sweep")
	}
	var order []Outcome
	by := map[Outcome]int{}
	for _, c := range r.Classes {
		if _, ok := by[c.Outcome]; !ok {
			order = append(order, c.Outcome)
		}
		by[c.Outcome] += c.Count
	}
	parts := make([]string, len(order))
	for i, o := range order {
		parts[i] = fmt.Sprintf("%s %d", o, by[o])
	}
	if r.Interrupted {
		fmt.Fprintf(w, "; interrupted (SIGINT) after %d of %d runs", r.Done, r.Runs)
	}
	fmt.Fprintf(w, "; by outcome: %s\n", strings.Join(parts, ", "))
}

// writeColumns writes rows as columns two blanks apart, right-aligned where
// right says so; the last column is not padded.
func writeColumns(w io.Writer, rows [][]string, right []bool) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-len([]rune(cell)))
			switch {
			case i == len(row)-1:
				b.WriteString(cell)
			case right[i]:
				b.WriteString(pad + cell + "  ")
			default:
				b.WriteString(cell + pad + "  ")
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// errWriter remembers the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
