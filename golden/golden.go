// Package golden locks what schedlab scripts print as golden files and
// checks them. It is the one harness behind both `schedlab test` and
// `go test ./golden`, which tests every example in examples/ against the
// golden file of the same name in this directory.
//
// A script is run exactly as `schedlab run --trace script.star` runs it,
// with the flags of its `# schedlab:` directives, and everything the run
// shows is written into one text, its golden text:
//
//	stdout (the trace, with the program's output inline)
//	-- stderr --
//	stderr, if the run wrote any
//	-- exit N --
//
// The `-- stderr --` section is there only when stderr is not empty and
// the `-- exit N --` line only when the exit status N is not 0. A newline
// is added before a marker if the text before it does not end with one.
//
// What of the run the text holds is its mode (Mode): the full trace, as
// above (trace, the default); the trace without its time column
// and the fields that hold times, the time in a folded start-up's line
// included (events), which a change of the costs that moves no event
// leaves alone;
// or the program's output only, as `schedlab run script.star` prints it
// (output), which a new costs profile leaves alone. A script chooses its
// own with a directive, `# schedlab test: -mode=output`; `schedlab test
// -mode` chooses for the scripts that do not. A `--trace` in a script's
// `# schedlab:` directive that the mode contradicts (--trace=false would
// have no effect where the mode shows the trace) is an error, as are a
// --trace-format=json in the events mode, which reads the text trace, and
// an unknown flag in a test directive.
//
// The script runs under its absolute path, and the path of its directory
// (with the trailing slash) is removed from the output, so that file
// names in error messages and backtraces read `deadlock.star:12:5` no
// matter where the test runs from. A golden file therefore does not
// depend on the working directory, the host, or its GOMAXPROCS.
package golden

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/fatih/color"
	"github.com/rogpeppe/go-internal/diff"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/lang"
)

// Extensions of scripts and of their golden files.
const (
	ScriptExt = ".star"
	GoldenExt = ".golden"
)

// A Case is one script and its golden file.
type Case struct {
	Script string // path of the .star file
	Golden string // path of its golden file, which may not exist yet
}

// Cases returns the scripts named by paths, in order, each with the path of
// its golden file. A path is a .star file, always included, or a directory,
// walked recursively in lexical order (skipping directories whose name
// starts with a dot) for .star files that have a golden file, or for all
// of them when all is set (as `schedlab test -update` does, to create the
// missing goldens).
//
// The golden file of x.star is x.golden beside it when goldenDir is empty.
// Otherwise it is under goldenDir, at the script's path relative to the
// directory that was walked, or at its base name for a script named by
// itself: with goldenDir "golden", both `examples/hello.star` and the
// directory `examples` give golden/hello.golden.
func Cases(paths []string, goldenDir string, all bool) ([]Case, error) {
	var cases []Case
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			if filepath.Ext(p) != ScriptExt {
				return nil, fmt.Errorf("%s: not a %s script", p, ScriptExt)
			}
			cases = append(cases, Case{Script: p, Golden: goldenPath(p, filepath.Base(p), goldenDir)})
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if filepath.Ext(path) != ScriptExt {
				return nil
			}
			rel, err := filepath.Rel(p, path)
			if err != nil {
				return err
			}
			c := Case{Script: path, Golden: goldenPath(path, rel, goldenDir)}
			if !all {
				if _, err := os.Stat(c.Golden); err != nil {
					return nil // not a golden test
				}
			}
			cases = append(cases, c)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return cases, nil
}

// goldenPath returns the golden file of the script at path, whose name
// relative to the walked directory is rel.
func goldenPath(path, rel, goldenDir string) string {
	if goldenDir == "" {
		return strings.TrimSuffix(path, ScriptExt) + GoldenExt
	}
	return filepath.Join(goldenDir, strings.TrimSuffix(rel, ScriptExt)+GoldenExt)
}

// A Mode is what a golden text holds of a run.
type Mode string

// The modes of a golden text.
const (
	ModeTrace  Mode = "trace"  // the full trace, as schedlab run --trace prints it: the default
	ModeEvents Mode = "events" // the trace without its time column
	ModeOutput Mode = "output" // the program's output only, as schedlab run prints it
)

// Modes are the modes, in the order help texts list them.
var Modes = []Mode{ModeTrace, ModeEvents, ModeOutput}

// Set sets m from a flag's value, one of Modes.
func (m *Mode) Set(s string) error {
	for _, v := range Modes {
		if Mode(s) == v {
			*m = v
			return nil
		}
	}
	return fmt.Errorf("unknown mode %q, want trace, events or output", s)
}

func (m *Mode) String() string { return string(*m) }

// ScriptMode returns the mode of the script whose source is src: the
// mode of its `# schedlab test:` directive, or dflt. A directive with any
// other flag is an error at its line, and so is a `--trace` in a
// `# schedlab:` directive that the mode contradicts: --trace=false has
// no effect where the mode shows the trace, and --trace would add the
// trace to the output mode's output.
func ScriptMode(script string, src []byte, dflt Mode) (Mode, error) {
	mode := dflt
	for _, d := range cli.Directives(src, cli.TestDirectivePrefix) {
		fs := flag.NewFlagSet("schedlab test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(&mode, "mode", "")
		err := fs.Parse(d.Args)
		if errors.Is(err, flag.ErrHelp) {
			err = errors.New("-h is not a test directive flag")
		}
		if err == nil && fs.NArg() > 0 {
			err = fmt.Errorf("unexpected argument %q: a directive holds only flags", fs.Arg(0))
		}
		if err != nil {
			return "", fmt.Errorf("%s:%d: schedlab test directive: %v", script, d.Line, err)
		}
	}
	if line, flag, on := cli.TraceDirective(src); line > 0 && on != (mode != ModeOutput) {
		if on {
			return "", fmt.Errorf("%s:%d: schedlab directive: %s contradicts the mode output of schedlab test, which compares the program's output only; remove it, or write # schedlab test: -mode=trace", script, line, flag)
		}
		return "", fmt.Errorf("%s:%d: schedlab directive: %s has no effect under schedlab test, whose mode %s shows the trace; write # schedlab test: -mode=output to compare the program's output only", script, line, flag, mode)
	}
	if line, flag, value := cli.TraceFormatDirective(src); line > 0 && mode == ModeEvents && value != "text" {
		return "", fmt.Errorf("%s:%d: schedlab directive: %s: the events mode of schedlab test takes the times out of the text trace only; remove it, or write # schedlab test: -mode=trace", script, line, flag)
	}
	return mode, nil
}

// Output runs the script as `schedlab run --trace script` does, in a
// process shared with other work, and returns its golden text in the
// trace mode (see the package comment).
func Output(script string) []byte { return output(cli.Host{}, script, ModeTrace) }

// output is Output in host h and the given mode.
func output(h cli.Host, script string, mode Mode) []byte {
	abs, err := filepath.Abs(script)
	if err != nil {
		abs = script
	}
	args := []string{"--trace", abs}
	if mode == ModeOutput {
		args = args[1:]
	}
	var stdout, stderr bytes.Buffer
	code := h.Run(args, &stdout, &stderr)
	dir := []byte(filepath.Dir(abs) + string(filepath.Separator))
	out := bytes.ReplaceAll(stdout.Bytes(), dir, nil)
	if mode == ModeEvents {
		out = dropTimes(out)
	}
	return Format(out, bytes.ReplaceAll(stderr.Bytes(), dir, nil), code)
}

// dropTimes returns a text trace without its times, as the events mode
// compares it: the time column, the fields that hold a time, and the time
// at which main.main began in a folded start-up's line.
func dropTimes(out []byte) []byte {
	out = timeColumn.ReplaceAll(out, nil)
	out = timeField.ReplaceAll(out, nil)
	return startupTime.ReplaceAll(out, []byte("$1"))
}

// timeColumn is the time that opens every event line of a text trace
// (docs/trace-format.md), with the blank after it.
var timeColumn = regexp.MustCompile(`(?m)^ *[0-9]+\.[0-9]{3}µs `)

// timeField is an event's field that holds a time, not a duration, with
// the blank before it: GoSleep's until= and TimerFire's when=
// (trace/text.go). It goes by the key: a time is written in µs with three
// decimals, but so is a duration whose value has them (dur=12.073µs).
var timeField = regexp.MustCompile(` (?:until|when)=[0-9]+\.[0-9]{3}µs\b`)

// startupTime is the time in the line that stands for runtime.main's
// folded start-up (docs/trace-format.md, "The start-up, folded"), with
// the " at" before it: "... called main.main at 184.459µs on P1 M0".
var startupTime = regexp.MustCompile(`(?m)^(# start-up: .* main\.main) at [0-9]+\.[0-9]{3}µs\b`)

// Format returns the golden text of a run that wrote stdout and stderr and
// exited with code.
func Format(stdout, stderr []byte, code int) []byte {
	var b bytes.Buffer
	b.Write(stdout)
	endLine := func() {
		if b.Len() > 0 && b.Bytes()[b.Len()-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	if len(stderr) > 0 {
		endLine()
		b.WriteString("-- stderr --\n")
		b.Write(stderr)
	}
	if code != 0 {
		endLine()
		fmt.Fprintf(&b, "-- exit %d --\n", code)
	}
	return b.Bytes()
}

// A Status is the outcome of checking one case.
type Status int

// Outcomes of Check.
const (
	Pass     Status = iota // the output matches the golden file
	Fail                   // it does not; Result.Diff says how
	NoGolden               // there is no golden file, and no update was asked for
	Updated                // the golden file differed and was rewritten
	Created                // the golden file did not exist and was written
	Error                  // the golden file could not be read or written; Result.Err says why
)

// A Result is the outcome of checking one case.
type Result struct {
	Status Status
	Diff   []byte // for Fail: a unified diff from the golden file to the output
	Err    error  // for Error
}

// Check runs the case's script and compares its golden text with the golden
// file. With update, a golden file that differs or does not exist is
// written; one that matches is left alone. A golden file with CRLF line
// endings is read as if they were LF (a checkout on Windows may convert
// them), and a diff says so.
//
// A golden file is written under the rule of every output file of
// schedlab (internal/cli's Outputs): never over the script or a module it
// loads, and through a temporary file renamed into place.
func (c Case) Check(update bool) Result {
	outs := &cli.Outputs{}
	outs.Input(c.Script, "the script")
	return c.check(cli.Host{}, update, ModeTrace, outs)
}

// check is Check with the script run in host h, in its mode or dflt, and
// the inputs and outputs of the whole test run.
func (c Case) check(h cli.Host, update bool, dflt Mode, outs *cli.Outputs) Result {
	src, err := lang.ReadScript(c.Script)
	if err != nil {
		return Result{Status: Error, Err: err}
	}
	mode, err := ScriptMode(c.Script, src, dflt)
	if err != nil {
		return Result{Status: Error, Err: err}
	}
	want, err := os.ReadFile(c.Golden)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return Result{Status: Error, Err: err}
	}
	if missing && !update {
		return Result{Status: NoGolden}
	}
	got := output(h, c.Script, mode)
	crlf := bytes.Contains(want, []byte("\r\n"))
	if crlf {
		want = bytes.ReplaceAll(want, []byte("\r\n"), []byte("\n"))
	}
	if !missing && bytes.Equal(got, want) {
		return Result{Status: Pass}
	}
	if !update {
		d := Diff(c.Golden, want, "output", got)
		if crlf {
			d = append([]byte("(line endings differ: the golden file has CRLF, read here as LF; the diff is of the rest)\n"), d...)
		}
		if note := headerNote(c, want, got); note != "" {
			d = append([]byte(note), d...)
		} else if note := printNote(c, want, got); note != "" {
			d = append([]byte(note), d...)
		}
		return Result{Status: Fail, Diff: d}
	}
	if prog, err := lang.Compile(c.Script, nil, lang.Options{}); err == nil {
		for _, f := range prog.Files()[1:] {
			outs.Input(f, "a module "+c.Script+" loads")
		}
	}
	if err := os.MkdirAll(filepath.Dir(c.Golden), 0o777); err != nil {
		return Result{Status: Error, Err: err}
	}
	if err := outs.WriteFile(c.updateFlag(), c.Golden, got); err != nil {
		return Result{Status: Error, Err: err}
	}
	if missing {
		return Result{Status: Created}
	}
	return Result{Status: Updated}
}

// traceHeader is the first line of a text trace.
const traceHeader = "# schedlab trace "

// headerNote returns the line that explains a golden text want whose
// trace header is not that of got, the run's: a golden from an older
// schedlab (no costs=), or another profile or settings, which a diff of
// every line would only bury; "" when the headers agree.
func headerNote(c Case, want, got []byte) string {
	w, _, _ := bytes.Cut(want, []byte("\n"))
	g, _, _ := bytes.Cut(got, []byte("\n"))
	if !bytes.HasPrefix(w, []byte(traceHeader)) || !bytes.HasPrefix(g, []byte(traceHeader)) || bytes.Equal(w, g) {
		return ""
	}
	var missing []string
	for _, f := range strings.Fields(string(g[len(traceHeader):])) {
		key, _, _ := strings.Cut(f, "=")
		if !bytes.Contains(w, []byte(" "+key+"=")) && strings.Contains(f, "=") {
			missing = append(missing, key+"=")
		}
	}
	why := "was written with other settings or costs, or by another schedlab"
	if len(missing) > 0 {
		why = "was written by an older schedlab: its trace header has no " + strings.Join(missing, ", ")
	}
	return fmt.Sprintf("(the golden file %s; its header is %q, the run's %q. Read the diff, then 'schedlab test -update %s' rewrites it; '# schedlab test: -mode=output' in the script compares only the program's output, which a new costs profile leaves alone)\n",
		why, w, g, c.Script)
}

// printNote returns the line that explains a golden text want, written
// when a printed line took no time (schedlab's default until 2026-12-07),
// against a run got in which printed lines are the write(2)s they are in
// Go (--print=auto, the default since): the headers agree, since auto is
// the default and a header names only what is not, but got has a printed
// line followed by its system call and want has none. "" otherwise.
func printNote(c Case, want, got []byte) string {
	if !bytes.HasPrefix(got, []byte(traceHeader)) || !writesPrints(got) || writesPrints(want) {
		return ""
	}
	return fmt.Sprintf("(the golden file has no write(2) after its printed lines, the run has: since 2026-12-07 a printed line is the system call it is in Go under a costs profile that charges a write, as the default does (--print=auto). Read the diff, then 'schedlab test -update %s' rewrites it; '# schedlab: --print=free' in the script keeps printing free)\n", c.Script)
}

// writesPrints reports whether a text trace has a line of the program's
// output followed by a GoSyscallBegin: a printed line written as the
// system call it is in Go (G.WriteStdout emits the line, then enters the
// call).
func writesPrints(text []byte) bool {
	prev := ""
	for _, line := range strings.Split(string(text), "\n") {
		if strings.Contains(line, " GoSyscallBegin ") && eventLine.MatchString(line) &&
			prev != "" && !strings.HasPrefix(prev, "#") && !eventLine.MatchString(prev) {
			return true
		}
		prev = line
	}
	return false
}

// eventLine is an event line of a text trace, with its time column or
// without it (the events mode): P, M and G columns, then the event's
// name.
var eventLine = regexp.MustCompile(`^( *[0-9]+\.[0-9]{3}µs )?(P[0-9]+|-) +(M[0-9]+|-) +(G[0-9]+|-) +[A-Z]`)

// updateFlag names the case's golden file as an output in messages.
func (c Case) updateFlag() string { return "-update (" + c.Script + ")" }

// Diff returns a unified diff from old to new, without the leading
// "diff old new" line, or nil if they are equal.
func Diff(oldName string, old []byte, newName string, new []byte) []byte {
	d := diff.Diff(oldName, old, newName, new)
	if i := bytes.IndexByte(d, '\n'); i >= 0 && bytes.HasPrefix(d, []byte("diff ")) {
		d = d[i+1:]
	}
	return d
}

// Options configure Run.
type Options struct {
	GoldenDir string    // where golden files live; "" means beside each script (see Cases)
	Mode      Mode      // the mode of the scripts without a test directive; "" means ModeTrace
	Update    bool      // write golden files that differ or are missing
	Verbose   bool      // report every script, not only failures and updates
	Color     bool      // colour the diffs and the verdicts
	Out       io.Writer // where the report goes
	Host      cli.Host  // what the scripts' runs may do to the process (the schedlab command's own)
}

// A Summary counts the outcomes of Run, and keeps each case's.
type Summary struct {
	Passed, Failed, Updated int
	Cases                   []Outcome // in the order run, for the CI reports (report.go)
}

// An Outcome is one case's result in a Summary.
type Outcome struct {
	Case
	Result
	Time time.Duration // wall-clock time of the check
}

// Run checks every case named by paths (see Cases), reporting failures
// with a diff, updates, and a closing line "N passed, N failed" (plus
// ", N updated" with Update) to opts.Out. It is `schedlab test`. An error
// means paths could not be listed; nothing was run then.
func Run(paths []string, opts Options) (Summary, error) {
	cases, err := Cases(paths, opts.GoldenDir, opts.Update)
	if err != nil {
		return Summary{}, err
	}
	// Every script is an input, and every golden file an output, of the
	// run: with -update, a golden file that is a script or that two
	// scripts share stops the run before anything is written.
	outs := &cli.Outputs{}
	for _, c := range cases {
		outs.Input(c.Script, "the script "+c.Script)
	}
	if opts.Update {
		for _, c := range cases {
			if err := outs.Reserve(c.updateFlag(), c.Golden); err != nil {
				return Summary{}, err
			}
		}
	}
	p := newPainter(opts.Color)
	var sum Summary
	for _, c := range cases {
		mode := opts.Mode
		if mode == "" {
			mode = ModeTrace
		}
		start := time.Now()
		r := c.check(opts.Host, opts.Update, mode, outs)
		sum.Cases = append(sum.Cases, Outcome{Case: c, Result: r, Time: time.Since(start)})
		switch r.Status {
		case Pass:
			sum.Passed++
			if opts.Verbose {
				fmt.Fprintf(opts.Out, "%s %s\n", p.ok("ok  "), c.Script)
			}
		case Fail:
			sum.Failed++
			fmt.Fprintf(opts.Out, "%s %s\n", p.fail("FAIL"), c.Script)
			p.diff(opts.Out, r.Diff)
		case NoGolden:
			sum.Failed++
			fmt.Fprintf(opts.Out, "%s %s: no golden %s (-update creates it)\n", p.fail("FAIL"), c.Script, c.Golden)
		case Updated:
			sum.Updated++
			fmt.Fprintf(opts.Out, "updated %s\n", c.Golden)
		case Created:
			sum.Updated++
			fmt.Fprintf(opts.Out, "created %s\n", c.Golden)
		case Error:
			sum.Failed++
			fmt.Fprintf(opts.Out, "%s %s: %v\n", p.fail("FAIL"), c.Script, r.Err)
		}
	}
	fmt.Fprintf(opts.Out, "%d passed, %d failed", sum.Passed, sum.Failed)
	if opts.Update {
		fmt.Fprintf(opts.Out, ", %d updated", sum.Updated)
	}
	fmt.Fprintln(opts.Out)
	return sum, nil
}

// A painter colours the report, or leaves it plain.
type painter struct {
	red, green, cyan, bold *color.Color
}

func newPainter(on bool) *painter {
	p := &painter{
		red:   color.New(color.FgRed),
		green: color.New(color.FgGreen),
		cyan:  color.New(color.FgCyan),
		bold:  color.New(color.Bold),
	}
	for _, c := range []*color.Color{p.red, p.green, p.cyan, p.bold} {
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return p
}

func (p *painter) ok(s string) string   { return p.green.Sprint(s) }
func (p *painter) fail(s string) string { return p.red.Sprint(s) }

// diff writes a unified diff, colouring removed lines red, added lines
// green and hunk headers cyan.
func (p *painter) diff(w io.Writer, d []byte) {
	for _, line := range strings.SplitAfter(string(d), "\n") {
		if line == "" {
			continue
		}
		text := strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(text, "---"), strings.HasPrefix(text, "+++"):
			text = p.bold.Sprint(text)
		case strings.HasPrefix(text, "@@"):
			text = p.cyan.Sprint(text)
		case strings.HasPrefix(text, "-"):
			text = p.red.Sprint(text)
		case strings.HasPrefix(text, "+"):
			text = p.green.Sprint(text)
		}
		fmt.Fprintln(w, text)
	}
}
