// The REPL's commands: a line that starts with ':'.

package repl

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/suggest"
	"github.com/schedlab/schedlab/internal/views"
	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// A command is one of the REPL's :commands.
type command struct {
	name  string // without the colon
	args  string // for :help
	help  string
	run   func(r *repl, args []string) bool // reports whether to quit
	nargs int                               // the most arguments it takes
}

// commands is every command, in the order :help lists them. It is filled
// in by init to break the cycle through cmdHelp.
var commands []*command

func init() {
	commands = []*command{
		{name: "help", help: "this help", run: cmdHelp},
		{name: "ps", help: "every goroutine: status, function, state, where it is", run: cmdPs},
		{name: "runq", help: "each P's runnext and ring, the global queue, idle Ps, spinning Ms", run: cmdRunq},
		{name: "ms", help: "every M: the P it holds, the G it runs, what it does", run: cmdMs},
		{name: "netpoll", help: "goroutines in IO wait: fd, kind, accept/read/connect, deadline; the M in netpoll", run: cmdNetpoll},
		{name: "step", args: "[n]", help: "advance n scheduling events (1), printing each", run: cmdStep, nargs: 1},
		{name: "run", help: "advance until nothing but goroutine 1 could run", run: cmdRun},
		{name: "trace", args: "[on|off]", help: "print every scheduling event as it happens", run: cmdTrace, nargs: 1},
		{name: "procs", args: "[n]", help: "show GOMAXPROCS, or set it (procresize, run by goroutine 1)", run: cmdProcs, nargs: 1},
		{name: "seed", args: "[s]", help: "show the seed, or start a new world with seed s", run: cmdSeed, nargs: 1},
		{name: "time", help: "the virtual time", run: cmdTime},
		{name: "stats", help: "the scheduler's counters", run: cmdStats},
		{name: "gc", help: "the garbage collector: phase, cycle, heap live/goal/trigger, workers and assists now, pauses", run: cmdGC},
		{name: "dump", help: "every goroutine with its backtrace, as Go's goroutine dump", run: cmdDump},
		{name: "reset", help: "start a new world (and run the script again)", run: cmdReset},
		{name: "load", args: "file.star", help: "run a file's statements in the session", run: cmdLoad, nargs: 1},
		{name: "quit", help: "leave (Ctrl-D)", run: func(*repl, []string) bool { return true }},
	}
}

// command runs the command line cmd, which starts with ':', and reports
// whether the REPL should quit.
func (r *repl) command(line string) bool {
	fields := strings.Fields(line)
	name := strings.TrimPrefix(fields[0], ":")
	args := fields[1:]
	c := lookupCommand(name)
	if c == nil {
		if best := closestCommand(name); best != "" && name != "" {
			fmt.Fprintf(r.errw, "unknown command :%s (did you mean :%s?)\n", name, best)
		} else {
			fmt.Fprintf(r.errw, "unknown command :%s; :help lists the commands\n", name)
		}
		return false
	}
	if len(args) > c.nargs {
		if c.args == "" {
			fmt.Fprintf(r.errw, ":%s takes no arguments\n", c.name)
		} else {
			fmt.Fprintf(r.errw, "usage: :%s %s\n", c.name, c.args)
		}
		return false
	}
	return c.run(r, args)
}

func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// closestCommand returns the command nearest to name in edit distance,
// if it is near enough to be a typo, or the one name is a prefix of.
func closestCommand(name string) string {
	best, bestDist := "", 1+len(name)/3
	if bestDist < 2 {
		bestDist = 2
	}
	for _, c := range commands {
		if name != "" && strings.HasPrefix(c.name, name) {
			return c.name
		}
		if d := suggest.Distance(name, c.name); d <= bestDist && (best == "" || d < bestDist) {
			best, bestDist = c.name, d
		}
	}
	return best
}

func cmdHelp(r *repl, _ []string) bool {
	io.WriteString(r.out, `Each statement runs as goroutine 1 (main). A statement that blocks (ch.recv(),
sleep, wg.wait()) runs the scheduler until it returns. Between statements
goroutine 1 waits for input, and the other goroutines run only when a
statement blocks, or with :step and :run.

`)
	tw := tabwriter.NewWriter(r.out, 0, 8, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  :%s %s\t%s\n", c.name, c.args, c.help)
	}
	tw.Flush()
	io.WriteString(r.out, `
Ctrl-C cancels the statement, :step or :run in progress; Ctrl-D leaves.
`)
	return false
}

// cmdPs is :ps: one line per goroutine, headed as in Go's goroutine dump
// ("goroutine 5 [chan receive]:"), then its function, its state and where
// it is: on which P and M it runs, in which run queue it waits. The
// playground's picture shows the same views (package views).
func cmdPs(r *repl, _ []string) bool {
	views.WritePS(r.out, views.PS(r.session().Machine()), r.pal)
	return false
}

// cmdRunq is :runq: every P with its status, M, schedtick, the G it runs,
// runnext and the ring in order; then the global queue, the idle Ps (the
// next to be taken last, as pidleget takes them) and the spinning Ms.
func cmdRunq(r *repl, _ []string) bool {
	views.WriteRunq(r.out, views.RunqOf(r.session().Machine().Snapshot()), r.pal)
	return false
}

// cmdMs is :ms: one line per M, in creation order: the P it holds, its
// curg, and what it is doing (runtime.MState.Activity). An M with no G
// runs on its g0, the scheduler's own stack: "g0" stands in curg's place.
func cmdMs(r *repl, _ []string) bool {
	views.WriteMs(r.out, views.RunqOf(r.session().Machine().Snapshot()))
	return false
}

// cmdNetpoll is :netpoll: one line per goroutine parked on a poll
// descriptor (netpollblock), in fd order: the descriptor, listener or
// conn, what it waits for (accept, read, connect) and its read deadline;
// then netpollWaiters and the M blocked in netpoll, if any.
func cmdNetpoll(r *repl, _ []string) bool {
	s := r.session().Machine().Snapshot()
	views.WriteNetpoll(r.out, views.NetpollOf(s), s.Time)
	return false
}

// cmdStep is :step [n]: n scheduling events, each printed as a line of
// the text trace; the world pauses right after the last one.
func cmdStep(r *repl, args []string) bool {
	n := 1
	if len(args) == 1 {
		v, err := strconv.Atoi(args[0])
		if err != nil || v < 1 {
			fmt.Fprintf(r.errw, ":step: got %q, want a positive number of events\n", args[0])
			return false
		}
		n = v
	}
	r.begin()
	r.stepping = true
	stop := r.session().Step(n)
	r.stepping = false
	r.end()
	r.memoryNote()
	switch stop {
	case lang.Idle:
		if r.events == 0 {
			fmt.Fprintln(r.out, "nothing to step: nothing but goroutine 1 can run")
		} else {
			fmt.Fprintf(r.out, "idle after %d %s: nothing but goroutine 1 can run\n", r.events, plural(r.events, "event"))
		}
	case lang.Interrupted:
		fmt.Fprintf(r.errw, "interrupted after %d %s\n", r.events, plural(r.events, "event"))
	}
	return false
}

// cmdRun is :run: advance until nothing but G1 could run.
func cmdRun(r *repl, _ []string) bool {
	r.begin()
	stop := r.session().Run()
	r.end()
	r.memoryNote()
	t := r.now()
	switch stop {
	case lang.Idle:
		fmt.Fprintf(r.out, "ran %d %s to %s; nothing but goroutine 1 can run\n", r.events, plural(r.events, "event"), t)
	case lang.Interrupted:
		fmt.Fprintf(r.errw, "interrupted after %d %s, at %s\n", r.events, plural(r.events, "event"), t)
	}
	return false
}

func cmdTrace(r *repl, args []string) bool {
	if len(args) == 1 {
		switch args[0] {
		case "on":
			r.tracing = true
		case "off":
			r.tracing = false
		default:
			fmt.Fprintf(r.errw, ":trace: got %q, want on or off\n", args[0])
			return false
		}
	}
	fmt.Fprintf(r.out, "trace %s\n", cli.OnOff(r.tracing))
	return false
}

func cmdProcs(r *repl, args []string) bool {
	s := r.session()
	if len(args) == 0 {
		fmt.Fprintf(r.out, "GOMAXPROCS %d\n", s.Machine().GOMAXPROCS())
		return false
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		fmt.Fprintf(r.errw, ":procs: got %q, want a number of Ps from 1\n", args[0])
		return false
	}
	r.begin()
	prev, res := s.GOMAXPROCS(n)
	r.end()
	if res.Err != nil {
		r.printError(res.Err)
		return false
	}
	if res.Stop == lang.Reached {
		fmt.Fprintf(r.out, "GOMAXPROCS %d -> %d\n", prev, s.Machine().GOMAXPROCS())
	}
	return false
}

func cmdSeed(r *repl, args []string) bool {
	if len(args) == 0 {
		fmt.Fprintf(r.out, "seed %d\n", r.session().Seed())
		return false
	}
	seed, err := strconv.ParseUint(args[0], 10, 64)
	if err != nil {
		fmt.Fprintf(r.errw, ":seed: got %q, want a number\n", args[0])
		return false
	}
	r.restart(seed)
	return false
}

func cmdReset(r *repl, _ []string) bool {
	r.restart(r.session().Seed())
	return false
}

// restart replaces the world with a new one with the given seed and the
// command line's other settings, and runs the script again.
func (r *repl) restart(seed uint64) {
	r.session().Close()
	fmt.Fprintf(r.out, "new world: %d P, seed %d\n", r.opts.Run.Procs, seed)
	r.newSession(seed)
}

// cmdTime prints the virtual time as a duration, and in ns when the
// duration does not say it to the nanosecond already.
func cmdTime(r *repl, _ []string) bool {
	ns := r.session().Machine().Now()
	d := runtime.FormatDuration(ns)
	if ns < 1000 {
		fmt.Fprintln(r.out, d) // 0s, 501ns
		return false
	}
	fmt.Fprintf(r.out, "%s (%dns)\n", d, ns)
	return false
}

func cmdStats(r *repl, _ []string) bool {
	tw := tabwriter.NewWriter(r.out, 0, 8, 2, ' ', 0)
	for _, c := range r.session().Machine().Counters() {
		fmt.Fprintf(tw, "%s\t%d\n", c.Name, c.Value)
	}
	tw.Flush()
	return false
}

// cmdGC is :gc: the collector now (its phase, the cycle, who marks, the
// assists) and the heap as the pacer counts it, then the pauses so far
// and the phases of the last cycle, from the Machine's GC statistics
// (runtime.Machine.GCStats, GCNow, LastGCCycle).
func cmdGC(r *repl, _ []string) bool {
	m := r.session().Machine()
	st, now := m.GCStats(), m.GCNow()
	tw := tabwriter.NewWriter(r.out, 0, 8, 2, ' ', 0)
	phase := now.Phase
	switch {
	case now.Cycle == 0:
		phase += ", no cycle yet"
	case now.Phase == "off":
		phase += fmt.Sprintf(", %d %s (%d forced)", st.Cycles, plural(int(st.Cycles), "cycle"), st.Forced)
	default:
		phase += fmt.Sprintf(", cycle %d", now.Cycle)
	}
	fmt.Fprintf(tw, "phase\t%s\n", phase)
	fmt.Fprintf(tw, "heap\tlive %s, goal %s, trigger %s; marked %s by the last cycle, retained %s\n",
		gcBytes(st.HeapLive), gcBytes(st.HeapGoal), gcBytes(st.Trigger), gcBytes(st.HeapMarked), gcBytes(uint64(max(st.Retained, 0))))
	gogc, limit := strconv.Itoa(int(st.GOGC)), "none"
	if st.GOGC < 0 {
		gogc = "off"
	}
	if st.MemoryLimit != runtime.NoMemoryLimit {
		limit = gcBytes(uint64(st.MemoryLimit))
	}
	fmt.Fprintf(tw, "pacer\tGOGC=%s, memory limit %s; stacks %s, globals %s\n", gogc, limit, gcBytes(st.Stacks), gcBytes(st.Globals))
	which := "the last cycle's"
	if now.Phase != "off" {
		which = "this cycle's"
	}
	fmt.Fprintf(tw, "workers\t%d dedicated, %d fractional, %d idle now; %s split: %d dedicated, fractional goal %.2f of a P\n",
		now.Workers[0], now.Workers[1], now.Workers[2], which, st.Dedicated, st.Fractional)
	fmt.Fprintf(tw, "assists\t%d in an assist now, %d of them queued (GC assist wait); %s in all\n",
		now.Assisting, now.AssistQueue, runtime.FormatDuration(st.AssistTime))
	fmt.Fprintf(tw, "pauses\t%s in all, the longest %s\n", runtime.FormatDuration(st.PauseTotal), runtime.FormatDuration(st.PauseMax))
	if c, done, ok := m.LastGCCycle(); ok && done {
		fmt.Fprintf(tw, "cycle %d\tsweep termination %s, mark %s, mark termination %s; heap %s -> %s -> %s, goal %s\n",
			c.N, runtime.FormatDuration(c.SweepTermPause()), runtime.FormatDuration(c.MarkTime()), runtime.FormatDuration(c.MarkTermPause()),
			gcBytes(c.HeapStart), gcBytes(c.HeapMarkTerm), gcBytes(c.HeapMarked), gcBytes(c.HeapGoal))
	}
	tw.Flush()
	return false
}

// gcBytes writes a heap size for :gc: bytes below 1 KiB, else KiB or MiB
// with one decimal.
func gcBytes(n uint64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + "MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + "KiB"
	}
	return strconv.FormatUint(n, 10) + "B"
}

// cmdDump is :dump: Go's goroutine dump, with every goroutine that the
// leak check finds unreachable from the session's globals and the
// goroutines that can still run marked "(leaked)". Nothing is marked in
// the world itself: the session goes on.
func cmdDump(r *repl, _ []string) bool {
	s := r.session()
	lang.WriteLeakDump(r.out, s.Machine(), s.Globals())
	return false
}

func cmdLoad(r *repl, args []string) bool {
	if len(args) != 1 {
		fmt.Fprintln(r.errw, "usage: :load file.star")
		return false
	}
	r.loadFile(args[0])
	return false
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// commandNames returns the names of the commands with their colons, sorted.
func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = ":" + c.name
	}
	sort.Strings(names)
	return names
}
