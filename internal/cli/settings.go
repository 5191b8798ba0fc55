package cli

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace"
)

// minProcs is the least --procs.
const minProcs = 1

// MaxProcs is the most --procs and --cpus, the one limit every command
// checks: the real runtime caps GOMAXPROCS at 1024 (runtime2.go:
// _MaxGomaxprocs).
const MaxProcs = 1024

// DefaultTimeout is the wall-clock limit of a run when --timeout is not
// given. A lesson-sized script finishes in milliseconds; a minute stops a
// runaway script without getting in the way of a big experiment.
const DefaultTimeout = 60 * time.Second

// DefaultMaxMemory is the memory a run may hold (the process's Go heap and
// goroutine stacks) when --max-memory is not given: room for a million
// parked goroutines' worth of lesson-sized experiments (100,000 take about
// 1 GiB), and a stop well before a runaway list fills the host.
const DefaultMaxMemory = 4 << 30

// A Host says what the runs of a command may do to the process they run
// in. The zero value is a process shared with other work.
type Host struct {
	// OwnsProcess says that the runs have the process to themselves, as
	// in the schedlab command, which does one run or one REPL session
	// per process. Then --max-memory also sets the Go runtime's soft
	// memory limit; a run in which one builtin call goes on allocating
	// past the limit (half as much again after the run was stopped,
	// which it cannot be in the middle of a call), or that is still in
	// one call lang.StopGrace after --timeout or SIGINT, ends the process
	// with the run's report (the diagnosis, the goroutine dump, the
	// call) and exit status 2 (130 for SIGINT), rather than let the Go
	// runtime die of it with its own trace or the timeout not hold; and
	// `schedlab run` and `explore` catch SIGINT. A program that
	// runs scripts in its own process (the tests, explore's sweep and
	// replay check) leaves it off, and such a run ends at the limit when
	// the call returns.
	OwnsProcess bool
}

// Options returns s's options (Settings.Options) for a run of the script
// filename in host h, printing to stdout and stderr, and does to the
// process what the host allows: it is the one place where a run's
// settings touch the process. When h owns the process, --max-memory also
// sets the Go runtime's soft memory limit, and a run that cannot be
// stopped ends the process (os.Exit) with its report. filename names the
// script in that report; "" is a REPL session, whose report says so.
func (h Host) Options(s *Settings, filename string, stdout, stderr io.Writer) lang.Options {
	opts := s.Options(stdout, stderr)
	if h.OwnsProcess && s.MaxMemory > 0 {
		// The garbage collector's soft limit: collect harder near the
		// limit rather than count garbage against it.
		debug.SetMemoryLimit(int64(min(s.MaxMemory, math.MaxInt64)))
		if filename == "" {
			opts.OnMemoryOverrun = func(le *runtime.LimitError) {
				// The process's own stderr: the run's may be a buffer.
				io.WriteString(os.Stderr, overrunReport(le))
				os.Exit(lang.ExitFailed)
			}
		}
	}
	if h.OwnsProcess && filename != "" {
		// A run stopped by a limit or SIGINT in the middle of one call
		// ends the process with the run's report (lang/overrun.go).
		opts.OnOverrun = func(le *runtime.LimitError, report []byte) {
			os.Stderr.Write(report) // the process's own: the run's may be a buffer
			if le.What == "interrupt" {
				os.Exit(ExitInterrupted)
			}
			os.Exit(lang.ExitFailed)
		}
	}
	return opts
}

// overrunReport is what a REPL session that ends at a memory overrun
// prints: the limit and why the session ends.
func overrunReport(le *runtime.LimitError) string {
	const why = "one builtin call went on allocating, and a call cannot be stopped halfway"
	return fmt.Sprintf("\nschedlab repl: %s\n\nschedlab repl: %s: the session ends\n", le.Msg, why)
}

// Settings are the flags of one run of a script. The zero value is not
// useful; start from NewSettings, which holds the defaults.
type Settings struct {
	Procs         int           // GOMAXPROCS at start (--procs)
	Seed          uint64        // the run's one PRNG (--seed)
	Trace         bool          // text trace interleaved with output on stdout (--trace)
	Preempt       bool          // sysmon preemption (--preempt=on|off)
	MaxSteps      uint64        // Starlark steps over all goroutines; 0 means none (--max-steps)
	MaxGoroutines int           // goroutines alive at once; 0 means none (--max-goroutines)
	MaxTime       int64         // virtual ns; 0 means none (--max-time)
	Timeout       time.Duration // wall clock; 0 means none (--timeout)
	MaxMemory     uint64        // bytes of memory the process may hold; 0 means none (--max-memory)
	Perturb       string        // a PerturbModes preset drawn from the seed; "none" perturbs nothing (--perturb)
	Costs         string        // the costs profile: "default", "zero" or a file (--costs)
	Sched         string        // the scheduler variant, one of runtime.PolicyNames; "go" is Go's own (--sched)
	NetLatency    int64         // one-way network latency in virtual ns; 0 means runtime.DefaultNetLatency (--net-latency)
	Params        params        // the script's parameters, read by param(name, default) (--param name=value)
	CPUQuota      float64       // the container's CPU limit in CPUs, 0 for none (--cpu-quota)
	CPUPeriod     int64         // its CFS period in virtual ns; 0 means runtime.DefaultCPUPeriod (--cpu-period)
	CPUs          int           // the machine's CPUs, 0 for a CPU per thread (--cpus)
	Startup       string        // how the run starts: "go" (runtime.main's start-up) or "bare" (--startup)
	Choices       []int         // a schedule's answers to the engine's choice points, replayed; nil for none (--choices, --schedule)
	ScheduleFile  string        // the schedule file the Choices come from (--schedule, schedule.go)
	GOGC          int32         // the GC percent at start, -1 for off (--gogc)
	MemLimit      int64         // the soft memory limit in bytes at start; runtime.NoMemoryLimit for none (--memlimit)
	GCCycle       string        // how much of a GC cycle is modelled: "instant", "stw" or "mark" (--gc-cycle)
	GCAssist      bool          // goroutines that allocate during the mark pay mark assists (--gc-assist)
	Stalls        bool          // the choice points include thread stalls (--stalls, runtime.ChoiceStall)
	Print         string        // what a printed line costs: "auto", "free", or "syscall", Go's write(2) (--print)

	// Outputs. These do not change the run, so the trace header does not
	// name them.
	Stats        bool   // print each traffic source's latency percentiles on stderr after the run (--stats)
	TraceFormat  string // format of --trace on stdout: "text" or "json" (--trace-format)
	TraceStates  bool   // every casgstatus as a GoStatus event in the trace (--trace-states)
	TraceStartup bool   // the text trace prints runtime.main's start-up event by event instead of one line (--trace-startup)
	ChromeTrace  string // file for the Chrome/Perfetto trace; "" for none (--chrome-trace)
	Timeline     string // file for the HTML timeline; "" for none (--timeline)
	GoTrace      string // file for the Go execution trace, for go tool trace; "" for none (--go-trace)
	SchedTrace   int64  // virtual ns between Go's schedtrace lines on stderr; 0 for none (--schedtrace)
	SchedDetail  bool   // Go's scheddetail=1: the state of every P, M and G (--scheddetail)
	GCTrace      bool   // Go's gctrace=1 line of every GC cycle on stderr (--gctrace)
	Alive        bool   // when main returns, list every goroutine still alive, not only the leaked (--alive)

	CheckDeterminism bool // run twice and compare every event instead (--check-determinism, determinism.go)

	set   map[string]bool // flags given explicitly, by a directive or the command line
	costs *runtime.Costs  // the profile Costs names, loaded by the flag
	dir   string          // while a directive is parsed, its script's directory (for --costs FILE)
}

// NewSettings returns the defaults: one P, seed 1, preemption on, no trace,
// no limits except the host's: DefaultTimeout and DefaultMaxMemory.
func NewSettings() *Settings {
	return &Settings{
		Procs:       1,
		Seed:        1,
		Preempt:     true,
		Timeout:     DefaultTimeout,
		MaxMemory:   DefaultMaxMemory,
		TraceFormat: "text",
		Perturb:     "none",
		Costs:       CostsDefault,
		Sched:       "go",
		Startup:     "go",
		Print:       "auto",
		GOGC:        runtime.DefaultGOGC,
		MemLimit:    runtime.NoMemoryLimit,
		GCCycle:     "mark",
		GCAssist:    true,
		set:         map[string]bool{},
	}
}

// register defines one flag per setting on fs. Flag names are what the
// trace header calls the settings.
func (s *Settings) register(fs *flag.FlagSet) {
	fs.Var(&intRange{&s.Procs, minProcs, MaxProcs}, "procs", "run with `N` Ps (GOMAXPROCS at start), from 1 to "+strconv.Itoa(MaxProcs))
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "seed `S` of the run's PRNG (steal order, select); same seed, same run")
	fs.BoolVar(&s.Trace, "trace", s.Trace, "print every scheduling event on stdout, interleaved with the program's output")
	fs.Var((*onOff)(&s.Preempt), "preempt", "preempt a goroutine that has run for its 10ms time slice: `on|off` (off behaves as Go before 1.14, or GODEBUG=asyncpreemptoff=1: the request waits for the goroutine's next function call)")
	fs.Uint64Var(&s.MaxSteps, "max-steps", s.MaxSteps, "stop the run after `N` Starlark steps over all goroutines (0: no limit)")
	fs.Var(&intRange{&s.MaxGoroutines, 0, 1 << 30}, "max-goroutines", "stop the run when more than `N` goroutines are alive (0: no limit)")
	fs.Var((*cpuQuota)(&s.CPUQuota), "cpu-quota", "run under a container's CPU limit of `Q` CPUs (fractional allowed, such as 1.5; unlimited: none): Linux CFS bandwidth control, every running thread draws on Q × period of CPU time a period and the process stops until the period ends once it is spent; without --procs, GOMAXPROCS is then Go's default for the quota, ceil(Q) and at least 2 (see docs/runtime.md)")
	fs.Var((*positiveDuration)(&s.CPUPeriod), "cpu-period", "the CFS period `D` of --cpu-quota (cpu.cfs_period_us; default 100ms)")
	fs.Var(&intRange{&s.CPUs, 0, MaxProcs}, "cpus", "run on a machine of `N` CPUs, from 1 to "+strconv.Itoa(MaxProcs)+" (0, the default: every thread has a CPU of its own): threads beyond N take turns, the OS taking a CPU from a thread that has run its time slice while others wait; without --procs, GOMAXPROCS is then N, as in Go (see docs/runtime.md)")
	fs.Var((*gogcFlag)(&s.GOGC), "gogc", "the garbage collector's GOGC `PERCENT` at start, or off (-1): the heap may grow by that percent of the live heap, stacks and globals before a cycle (debug.SetGCPercent; default 100; see docs/runtime.md)")
	fs.Var((*memLimitFlag)(&s.MemLimit), "memlimit", "the soft memory limit `SIZE` at start, such as 64MiB, or off: GOMEMLIMIT, the heap goal stays under it less the stacks and 3% (debug.SetMemoryLimit; default off)")
	fs.Var(&choice{&s.GCCycle, runtime.GCCycleNames()}, "gc-cycle", "how much of a GC cycle to model (`instant|stw|mark`): instant, a cycle that takes no time and changes no schedule; stw, its sweep termination and mark termination stop the world for their pauses from the costs profile; mark, the default, and between them mark workers take Ps for the mark work, dedicated, fractional or idle (see docs/runtime.md)")
	fs.Var((*onOff)(&s.GCAssist), "gc-assist", "make goroutines that allocate during a --gc-cycle=mark mark pay for it with mark assists: `on|off` (off: the mark workers do all the mark work and the heap may overshoot its goal, as CockroachDB's GODEBUG=gcnoassist; see docs/runtime.md)")
	fs.Var(&choice{&s.Print, []string{"auto", "free", "syscall"}}, "print", "what a printed line costs (`auto|free|syscall`): syscall makes each call of print, println and printf the write(2) it is in Go (fmt.Println's), a system call lasting the profile's write cost; free takes no time and is no scheduling point, as a Go program that buffers its lines; auto is syscall when the costs profile charges a write, as the default profile does, and free under --costs=zero (see docs/language.md)")
	fs.Var(&s.Params, "param", "set the script's parameter `NAME=VALUE`, which param(NAME, default) returns, converted to the default's type (repeat the flag for several)")
	fs.Var((*virtualDuration)(&s.NetLatency), "net-latency", "the one-way latency `D` of the network between two sockets, such as 50µs (default: loopback's, measured on the machine the default profile comes from; see docs/language.md)")
	fs.Var((*virtualDuration)(&s.MaxTime), "max-time", "stop the run at virtual time `D`, such as 1s or 250ms (0: no limit)")
	fs.Var((*wallDuration)(&s.Timeout), "timeout", "stop the run after `D` of wall-clock time, such as 10s (0: no limit)")
	fs.Var((*byteSize)(&s.MaxMemory), "max-memory", "stop the run when the process holds more than `SIZE` of memory, such as 512MiB or 8GiB (0: no limit)")
	fs.Var(costsFlag{s}, "costs", "charge virtual time for code, spawns, switches, thread wake-ups, syscalls and timers from the costs profile `FILE`; default: the profile measured from real Go that ships with schedlab; zero: everything free but work, syscall, sleep and timers (the textbook model)")
	fs.Var(schedFlag{&s.Sched}, "sched", "run under the scheduler `VARIANT`: go (Go's own), central (one global queue under one lock, Go 1.0), handoff (hand a readied goroutine to a newly woken thread), eager (wake a thread on every ready while a P is idle), no-runnext, no-steal, runq=N (a local ring of N); see docs/variants.md")
	fs.Var(&choice{&s.Startup, []string{"go", "bare"}}, "startup", "how the run starts (`bare|go`): bare starts main alone on M0 and P0, the textbook start; go runs runtime.main's start-up first (its own goroutines, queued and parked, and the threads their spawns woke), as every Go program starts (see docs/runtime.md)")
	fs.Var(choicesFlag{s}, "choices", "replay the schedule `LIST`: answers to the engine's choice points, such as 0,1,0, as schedlab check prints them (see docs/check.md)")
	fs.Var((*onOff)(&s.Stalls), "stalls", "with --choices or --schedule, and under schedlab check: the choice points include thread stalls, a safe point where the goroutine's thread loses its CPU until the next event of the process is due: `on|off` (default off; see docs/check.md)")
	fs.Var(scheduleFlag{s}, "schedule", "replay the schedule in `FILE`, as schedlab check --out writes it; the script and the settings must be those it was found with")
	fs.Var(&choice{&s.Perturb, PerturbModes}, "perturb", "vary the schedule from the seed: `none|timing|runnext|pct|all` (see schedlab help explore)")
	fs.Var(&choice{&s.TraceFormat, []string{"text", "json"}}, "trace-format", "format of --trace: `text` (columns, output inline) or json (JSON lines)")
	fs.BoolVar(&s.Stats, "stats", s.Stats, "after the run, print on stderr each traffic source's requests sent, answered and failed, and its latency percentiles p50, p90, p99, p99.9 and max (HdrHistogram), in virtual time")
	fs.BoolVar(&s.TraceStates, "trace-states", s.TraceStates, "add to the trace every change of a goroutine's status (casgstatus), such as GoStatus _Grunning→_Gwaiting reason=\"chan receive\", to follow runtime2.go's state machine edge by edge")
	fs.BoolVar(&s.TraceStartup, "trace-startup", s.TraceStartup, "with --trace under --startup=go, print runtime.main's start-up, every event before main.main's first statement, instead of the one line the text trace folds it into (# start-up: N events folded ...)")
	fs.StringVar(&s.ChromeTrace, "chrome-trace", s.ChromeTrace, "also write the run as a Chrome trace to `FILE`, for Perfetto or chrome://tracing")
	fs.StringVar(&s.Timeline, "timeline", s.Timeline, "also write the run as an HTML timeline to `FILE`, to open in a browser")
	fs.StringVar(&s.GoTrace, "go-trace", s.GoTrace, "also write the run as a Go execution trace to `FILE`, for go tool trace (Go 1.26 format)")
	fs.Var((*virtualDuration)(&s.SchedTrace), "schedtrace", "print on stderr the line GODEBUG=schedtrace prints, every `D` of virtual time, such as 1ms (0: none)")
	fs.BoolVar(&s.SchedDetail, "scheddetail", s.SchedDetail, "with --schedtrace, print the state of every P, M and G instead, as GODEBUG=scheddetail=1 does")
	fs.BoolVar(&s.GCTrace, "gctrace", s.GCTrace, "print on stderr, at the end of every GC cycle, the line GODEBUG=gctrace=1 prints, in Go's format, with times from the virtual clock (see docs/runtime.md for what each field holds)")
	fs.BoolVar(&s.Alive, "alive", s.Alive, "when main returns, list on stderr every goroutine still alive, not only the leaked ones")
	fs.BoolVar(&s.CheckDeterminism, "check-determinism", false, "run the script twice and report the first event that differs, or \"deterministic: N events, identical\" (exit 0, else 1)")
}

// fileFlags are the flags that name a file to write. A script's directive
// may not set them: running a script, as `schedlab test` does, must not
// write files the command line did not ask for.
var fileFlags = []string{"chrome-trace", "timeline", "go-trace"}

// Header returns the trace header for these settings: the format version,
// then procs, seed, preempt and the costs profile, the scheduler variant
// unless it is Go's own, the start-up unless it is go, the perturbation
// unless it is none, then every limit that was set, always in this order.
func (s *Settings) Header() trace.Header {
	kv := []trace.KV{
		{Key: "procs", Value: strconv.Itoa(s.Procs)},
		{Key: "seed", Value: strconv.FormatUint(s.Seed, 10)},
		{Key: "preempt", Value: OnOff(s.Preempt)},
		{Key: "costs", Value: s.Costs},
	}
	if s.Sched != "go" {
		kv = append(kv, trace.KV{Key: "sched", Value: s.Sched})
	}
	if s.Startup != "go" {
		kv = append(kv, trace.KV{Key: "startup", Value: s.Startup})
	}
	if s.NetLatency != 0 {
		kv = append(kv, trace.KV{Key: "net-latency", Value: runtime.FormatDuration(s.NetLatency)})
	}
	if s.CPUQuota > 0 {
		kv = append(kv, trace.KV{Key: "cpu-quota", Value: strconv.FormatFloat(s.CPUQuota, 'g', -1, 64)})
	}
	if s.CPUPeriod != 0 {
		kv = append(kv, trace.KV{Key: "cpu-period", Value: runtime.FormatDuration(s.CPUPeriod)})
	}
	if s.CPUs != 0 {
		kv = append(kv, trace.KV{Key: "cpus", Value: strconv.Itoa(s.CPUs)})
	}
	if s.GOGC != runtime.DefaultGOGC {
		kv = append(kv, trace.KV{Key: "gogc", Value: (*gogcFlag)(&s.GOGC).String()})
	}
	if s.MemLimit != runtime.NoMemoryLimit {
		kv = append(kv, trace.KV{Key: "memlimit", Value: (*memLimitFlag)(&s.MemLimit).String()})
	}
	if s.GCCycle != "mark" {
		kv = append(kv, trace.KV{Key: "gc-cycle", Value: s.GCCycle})
	}
	if !s.GCAssist {
		kv = append(kv, trace.KV{Key: "gc-assist", Value: "off"})
	}
	if s.Print != "auto" {
		kv = append(kv, trace.KV{Key: "print", Value: s.Print})
	}
	for _, p := range s.Params.sorted() {
		kv = append(kv, trace.KV{Key: "param." + p[0], Value: p[1]})
	}
	if s.Perturb != "none" {
		kv = append(kv, trace.KV{Key: "perturb", Value: s.Perturb})
	}
	if s.Stalls {
		kv = append(kv, trace.KV{Key: "stalls", Value: "on"})
	}
	if s.Choices != nil {
		kv = append(kv, trace.KV{Key: "choices", Value: formatChoices(s.Choices)})
	}
	if s.MaxSteps != 0 {
		kv = append(kv, trace.KV{Key: "max-steps", Value: strconv.FormatUint(s.MaxSteps, 10)})
	}
	if s.MaxGoroutines != 0 {
		kv = append(kv, trace.KV{Key: "max-goroutines", Value: strconv.Itoa(s.MaxGoroutines)})
	}
	if s.MaxTime != 0 {
		kv = append(kv, trace.KV{Key: "max-time", Value: runtime.FormatDuration(s.MaxTime)})
	}
	if s.set["timeout"] && s.Timeout != 0 {
		kv = append(kv, trace.KV{Key: "timeout", Value: s.Timeout.String()})
	}
	if s.set["max-memory"] && s.MaxMemory != 0 {
		kv = append(kv, trace.KV{Key: "max-memory", Value: lang.FormatBytes(s.MaxMemory)})
	}
	return trace.Header{Settings: kv}
}

// An intRange is an int flag that must lie in [lo, hi].
type intRange struct {
	p      *int
	lo, hi int
}

func (r *intRange) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("want an integer from %d to %d", r.lo, r.hi)
	}
	if n < r.lo || n > r.hi {
		return fmt.Errorf("out of range, want %d to %d", r.lo, r.hi)
	}
	*r.p = n
	return nil
}

func (r *intRange) String() string {
	if r == nil || r.p == nil {
		return "0"
	}
	return strconv.Itoa(*r.p)
}

// A choice is a string flag that must be one of a few words.
type choice struct {
	p     *string
	words []string
}

func (c *choice) Set(v string) error {
	if !slices.Contains(c.words, v) {
		return fmt.Errorf("want %s", strings.Join(c.words, " or "))
	}
	*c.p = v
	return nil
}

func (c *choice) String() string {
	if c == nil || c.p == nil {
		return ""
	}
	return *c.p
}

// schedFlag is the --sched flag: a name runtime.ParsePolicy takes.
type schedFlag struct{ p *string }

func (f schedFlag) Set(v string) error {
	if _, err := runtime.ParsePolicy(v); err != nil {
		return err
	}
	*f.p = v
	return nil
}

func (f schedFlag) String() string {
	if f.p == nil {
		return "go"
	}
	return *f.p
}

// Policy returns the scheduler variant s.Sched names, which the flag has
// checked.
func (s *Settings) Policy() runtime.Policy {
	p, _ := runtime.ParsePolicy(s.Sched)
	return p
}

// onOff is a bool flag spelled on or off.
type onOff bool

func (b *onOff) Set(v string) error {
	switch v {
	case "on":
		*b = true
	case "off":
		*b = false
	default:
		return fmt.Errorf("want on or off")
	}
	return nil
}

func (b onOff) String() string { return OnOff(bool(b)) }

// virtualDuration is a duration of virtual time in ns, written as Go writes
// durations ("1.5ms") or as an integer count of nanoseconds.
type virtualDuration int64

func (d *virtualDuration) Set(v string) error {
	ns, err := runtime.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("want a duration such as 1s or 250ms")
	}
	if ns < 0 {
		return fmt.Errorf("negative duration")
	}
	*d = virtualDuration(ns)
	return nil
}

func (d *virtualDuration) String() string {
	if d == nil {
		return "0s"
	}
	return runtime.FormatDuration(int64(*d))
}

// cpuQuota is --cpu-quota: a positive number of CPUs, or "unlimited" (0).
type cpuQuota float64

func (q *cpuQuota) Set(v string) error {
	if v == "unlimited" || v == "none" {
		*q = 0
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("want a number of CPUs such as 2 or 0.5, or unlimited")
	}
	if f <= 0 {
		return fmt.Errorf("a quota of %v CPUs: want more than 0 (or unlimited)", f)
	}
	if f > MaxProcs {
		return fmt.Errorf("a quota of %v CPUs: at most %d", f, MaxProcs)
	}
	*q = cpuQuota(f)
	return nil
}

func (q *cpuQuota) String() string {
	if q == nil || *q == 0 {
		return "unlimited"
	}
	return strconv.FormatFloat(float64(*q), 'g', -1, 64)
}

// gogcFlag is --gogc: a percent from -1 to math.MaxInt32, or off (-1),
// as GOGC takes it, except that a percent below -1 is refused as
// lang.CheckGOGC refuses it.
type gogcFlag int32

func (g *gogcFlag) Set(v string) error {
	if v == "off" {
		*g = -1
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("want a percent such as 100, or off")
	}
	if err := lang.CheckGOGC(n); err != nil {
		return err
	}
	*g = gogcFlag(n)
	return nil
}

func (g *gogcFlag) String() string {
	if g == nil {
		return strconv.Itoa(runtime.DefaultGOGC)
	}
	if *g < 0 {
		return "off"
	}
	return strconv.Itoa(int(*g))
}

// memLimitFlag is --memlimit: a size (ParseSize) of at most
// math.MaxInt64 bytes, or off (runtime.NoMemoryLimit), as GOMEMLIMIT.
type memLimitFlag int64

func (l *memLimitFlag) Set(v string) error {
	if v == "off" {
		*l = runtime.NoMemoryLimit
		return nil
	}
	n, err := ParseSize(v)
	if err != nil {
		return fmt.Errorf("want a size such as 64MiB, or off")
	}
	if n > math.MaxInt64 {
		return fmt.Errorf("a limit of %d bytes: at most %d", n, int64(math.MaxInt64))
	}
	*l = memLimitFlag(n)
	return nil
}

func (l *memLimitFlag) String() string {
	if l == nil || *l == runtime.NoMemoryLimit {
		return "off"
	}
	return lang.FormatBytes(uint64(*l))
}

// positiveDuration is a virtual duration that must be more than 0.
type positiveDuration int64

func (d *positiveDuration) Set(v string) error {
	ns, err := runtime.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("want a duration such as 100ms")
	}
	if ns <= 0 {
		return fmt.Errorf("want a positive duration")
	}
	*d = positiveDuration(ns)
	return nil
}

func (d *positiveDuration) String() string {
	if d == nil || *d == 0 {
		return "100ms"
	}
	return runtime.FormatDuration(int64(*d))
}

// wallDuration is a wall-clock duration ("10s").
type wallDuration time.Duration

func (d *wallDuration) Set(v string) error {
	t, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("want a duration such as 10s or 2m")
	}
	if t < 0 {
		return fmt.Errorf("negative duration")
	}
	*d = wallDuration(t)
	return nil
}

func (d *wallDuration) String() string {
	if d == nil {
		return "0s"
	}
	return time.Duration(*d).String()
}

// A byteSize is a flag of a number of bytes (ParseSize).
type byteSize uint64

func (b *byteSize) Set(v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

// ParseSize reads a number of bytes with an optional unit, as
// lang.ParseSize does.
func ParseSize(v string) (uint64, error) { return lang.ParseSize(v) }

func (b *byteSize) String() string {
	if b == nil {
		return "0B"
	}
	return lang.FormatBytes(uint64(*b))
}

// Options returns the language's options for a run with these settings,
// printing to stdout and stderr. It is the one place where the command's
// settings become lang.Options: for `schedlab run` and `schedlab test`
// (runScript, checkDeterminism), for each run of `schedlab explore` and
// `schedlab check` and for the world of `schedlab repl`. The callers add
// their tracers and views. It is a pure conversion: what a run may do to
// its process, Host.Options adds.
func (s *Settings) Options(stdout, stderr io.Writer) lang.Options {
	opts := lang.Options{
		Procs:         s.Procs,
		Seed:          s.Seed,
		Preempt:       s.Preempt,
		Stdout:        stdout,
		Stderr:        stderr,
		MaxSteps:      s.MaxSteps,
		MaxGoroutines: s.MaxGoroutines,
		MaxTime:       s.MaxTime,
		NetLatency:    s.NetLatency,
		CPUQuota:      s.CPUQuota,
		CPUPeriod:     s.CPUPeriod,
		CPUs:          s.CPUs,
		Params:        s.Params.m,
		Timeout:       s.Timeout,
		MaxMemory:     s.MaxMemory,
		Perturb:       s.perturbation(),
		Alive:         s.Alive,
		Costs:         s.CostsProfile(),
		TraceStates:   s.TraceStates,
		Chooser:       s.replay(),
		ChooseStalls:  s.Stalls,
		Sched:         s.Policy(),
		RuntimeMain:   s.Startup == "go",
	}
	opts.GCCycle, _ = runtime.ParseGCCycle(s.GCCycle) // the flag has checked it
	opts.GCNoAssist = !s.GCAssist
	opts.Print = printMode(s.Print)
	if s.GOGC != runtime.DefaultGOGC {
		gogc := s.GOGC
		opts.GOGC = &gogc
	}
	if s.MemLimit != runtime.NoMemoryLimit {
		limit := s.MemLimit
		opts.MemoryLimit = &limit
	}
	return opts
}

// OnOff writes a switch as its flags take it: "on" or "off". It is the
// one formatter of an on/off value, for the flags, the trace header, the
// REPL's banner and :trace, and explore's replay commands.
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// printMode is the language's mode for --print's value (the flag has
// checked it): auto, free or syscall.
func printMode(v string) lang.PrintMode {
	switch v {
	case "free":
		return lang.PrintFree
	case "syscall":
		return lang.PrintSyscall
	}
	return lang.PrintAuto
}
