package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// CompareSynopsis is the one-line usage of `schedlab compare`.
const CompareSynopsis = "schedlab compare [--sched V1,V2,...] [run flags] script.star"

// DefaultCompareScheds are the variants `schedlab compare` runs when
// --sched is not given: Go's design and the essay's three rejected ones.
const DefaultCompareScheds = "go,central,handoff,eager"

const compareHelp = `Compare runs one script once under each scheduler variant of --sched
(see docs/variants.md and 'schedlab run -h' for -sched) and prints one
table: a column per variant, a row per counter. The program's output is
not shown; a run that does not end with main returning says how it ended
in the outcome row, and its report goes to stderr.

The rows are the counters that proc.go's essay "Worker thread
parking/unparking" argues from:

  virtual time        the run's virtual time when it ended
  outcome             exited, deadlock, panic, limit, ...
  threads             Ms ever made (newm)
  thread parks        stopm calls
  thread unparks      startm waking a parked M
  new threads         startm making an M
  wasted wake-ups     Ms woken that parked again without running a G
  wake-up time        virtual time spent waking Ms (the costs profile's
                      wakeup, plus newm for a new M), summed over wake-ups
  readied Gs          Gs readied by another G (channel, mutex, ...) that ran
  ran where readied   of those, the ones that ran on the readying G's P
  locality            the same as a percentage
  sched.lock takes    operations on the global run queue
  sched.lock moves    of those, the ones by another thread than the last
  steals              successful steals from another P
  direct hand-offs    handoff: Gs given to a newly woken M
  eager wake-ups      eager: Ms woken while another M spun

Every other run flag (--procs, --seed, --costs, ...) applies to every
run, after the script's directives; a directive's --sched is overridden.
The same script and flags always print the same table.

Exit status: 0 when every run started, 1 when the script cannot be read
or loaded, 2 for a bad flag or variant.`

// compareViewFlags are the run flags that show a run rather than change
// it; compare prints only its table.
var compareViewFlags = []string{"trace", "trace-format", "trace-states", "trace-startup", "chrome-trace", "timeline", "go-trace", "schedtrace", "scheddetail", "gctrace", "alive", "check-determinism"}

// Compare is `schedlab compare`: args are the arguments after "compare".
func Compare(args []string, stdout, stderr io.Writer) int {
	scheds := DefaultCompareScheds
	fs := compareFlagSet(&scheds)
	files, err := ParseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		CompareHelp(stdout)
		return 0
	}
	if err == nil {
		fs.Visit(func(f *flag.Flag) {
			if err == nil && slices.Contains(compareViewFlags, f.Name) {
				err = fmt.Errorf("-%s shows one run; compare prints a table (use schedlab run --sched=VARIANT -%s)", f.Name, f.Name)
			}
		})
	}
	if err == nil && len(files) != 1 {
		err = fmt.Errorf("want one script, got %d", len(files))
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab compare: %v\nusage: %s (see 'schedlab compare -h')\n", err, CompareSynopsis)
		return 2
	}
	// The run flags, without --sched, to give each run after the
	// directives.
	var runArgs []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "sched" {
			runArgs = append(runArgs, "-"+f.Name+"="+f.Value.String())
		}
	})
	filename := files[0]
	src, err := os.ReadFile(filename)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab compare: %v\n", err)
		return 1
	}
	names := strings.Split(scheds, ",")
	cols := make([]compareColumn, len(names))
	var header string
	for i, name := range names {
		s, err := settingsForCmd("compare", filename, src, runArgs)
		if err == nil {
			err = stallsNeedSchedule("compare", s)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%v\n", err)
			return 2
		}
		s.Sched = name
		if i == 0 {
			header = fmt.Sprintf("procs %d, seed %d, costs %s", s.Procs, s.Seed, s.Costs)
			if s.Startup != "go" {
				header += ", startup " + s.Startup
			}
		}
		var runErr bytes.Buffer
		opts := s.Options(io.Discard, &runErr)
		var mach *runtime.Machine
		opts.OnStart = func(m *runtime.Machine) { mach = m }
		res := lang.RunFile(filename, src, opts)
		if res.ExitCode == lang.ExitLoad {
			io.Copy(stderr, &runErr)
			return 1
		}
		cols[i] = compareColumn{name: name, m: mach, res: res}
		if res.ExitCode != 0 && runErr.Len() > 0 {
			fmt.Fprintf(stderr, "schedlab compare: --sched=%s:\n%s", name, runErr.Bytes())
		}
	}
	fmt.Fprintf(stdout, "schedlab compare %s (%s)\n\n", filename, header)
	writeCompareTable(stdout, cols)
	return 0
}

// A compareColumn is one variant's run.
type compareColumn struct {
	name string
	m    *runtime.Machine
	res  *lang.Result
}

// writeCompareTable prints the counters of cols, a column each.
func writeCompareTable(w io.Writer, cols []compareColumn) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, cell func(c compareColumn) string) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, c := range cols {
			fmt.Fprintf(tw, "%s\t", cell(c))
		}
		fmt.Fprintln(tw)
	}
	num := func(label string, f func(s runtime.SchedStats, m *runtime.Machine) int64) {
		row(label, func(c compareColumn) string { return strconv.FormatInt(f(c.m.SchedStats(), c.m), 10) })
	}
	counter := func(m *runtime.Machine, name string) int64 {
		for _, c := range m.Counters() {
			if c.Name == name {
				return c.Value
			}
		}
		return 0
	}
	row("", func(c compareColumn) string { return c.name })
	row("virtual time", func(c compareColumn) string { return runtime.FormatDuration(c.m.Now()) })
	row("outcome", func(c compareColumn) string {
		if c.res.Run == nil {
			return "-"
		}
		return c.res.Run.Outcome.String()
	})
	num("threads", func(_ runtime.SchedStats, m *runtime.Machine) int64 { return counter(m, "threads") })
	num("thread parks", func(s runtime.SchedStats, _ *runtime.Machine) int64 { return s.Parks })
	num("thread unparks", func(s runtime.SchedStats, _ *runtime.Machine) int64 { return s.Unparks })
	num("new threads", func(s runtime.SchedStats, _ *runtime.Machine) int64 { return s.NewMs })
	num("wasted wake-ups", func(s runtime.SchedStats, _ *runtime.Machine) int64 { return s.SpuriousWakes })
	row("wake-up time", func(c compareColumn) string { return runtime.FormatDuration(c.m.SchedStats().WakeupTime) })
	num("readied Gs", func(s runtime.SchedStats, _ *runtime.Machine) int64 { return s.Readied })
	num("ran where readied", func(s runtime.SchedStats, _ *runtime.Machine) int64 { return s.ReadiedLocal })
	row("locality", func(c compareColumn) string {
		s := c.m.SchedStats()
		if s.Readied == 0 {
			return "-"
		}
		return strconv.FormatInt(s.ReadiedLocal*100/s.Readied, 10) + "%"
	})
	num("sched.lock takes", func(s runtime.SchedStats, _ *runtime.Machine) int64 { return s.LockAcquires })
	num("sched.lock moves", func(s runtime.SchedStats, _ *runtime.Machine) int64 { return s.LockHandoffs })
	num("steals", func(_ runtime.SchedStats, m *runtime.Machine) int64 { return counter(m, "steals") })
	num("direct hand-offs", func(s runtime.SchedStats, _ *runtime.Machine) int64 { return s.DirectHandoffs })
	num("eager wake-ups", func(s runtime.SchedStats, _ *runtime.Machine) int64 { return s.EagerWakes })
	tw.Flush()
}

// schedList is compare's --sched: variants separated by commas, each one
// runtime.ParsePolicy takes.
type schedList struct{ p *string }

func (l schedList) Set(v string) error {
	names := strings.Split(v, ",")
	for i, name := range names {
		if _, err := runtime.ParsePolicy(name); err != nil {
			return err
		}
		if slices.Contains(names[:i], name) {
			return fmt.Errorf("variant %q named twice", name)
		}
	}
	*l.p = v
	return nil
}

func (l schedList) String() string {
	if l.p == nil {
		return DefaultCompareScheds
	}
	return *l.p
}

// CompareHelp writes the help of `schedlab compare` to w.
func CompareHelp(w io.Writer) {
	scheds := DefaultCompareScheds
	fs := compareFlagSet(&scheds)
	fmt.Fprintf(w, "usage: %s\n\n%s\n\nFlags:\n", CompareSynopsis, compareHelp)
	// Only the flags compare takes: the view flags, which it refuses,
	// are not listed.
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(compareViewFlags, f.Name) {
			shown.Var(f.Value, f.Name, f.Usage)
			shown.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	shown.SetOutput(w)
	shown.PrintDefaults()
}

// compareFlagSet is the run flags with --sched a list bound to scheds.
func compareFlagSet(scheds *string) *flag.FlagSet {
	fs := newFlagSet(NewSettings())
	f := fs.Lookup("sched")
	f.Value = schedList{scheds}
	f.Usage = "run under each variant of the comma-separated `LIST`, each one of " + strings.Join(runtime.PolicyNames, ", ")
	f.DefValue = DefaultCompareScheds
	return fs
}
