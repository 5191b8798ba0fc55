package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/repl"
)

// replSynopsis is the one-line usage of `schedlab repl`.
const replSynopsis = "schedlab repl [--procs N] [--seed S] [--preempt=on|off] [--costs FILE|default|zero] [--sched VARIANT] [--startup bare|go] [--gogc PERCENT|off] [--memlimit SIZE|off] [--gc-cycle instant|stw|mark] [--gc-assist=on|off] [--print auto|free|syscall] [--choices LIST] [--trace-states] [--max-memory SIZE] [--echo] [script.star]"

// replCmd is `schedlab repl`: the interactive shell on the terminal, or
// the same statements and commands read from a file or pipe, without
// prompts and colour.
func replCmd(h cli.Host, args []string, stdout, stderr io.Writer) int {
	s := cli.NewSettings() // the world's settings, as a script's
	var echo bool
	fs := replFlags(s, &echo)
	files, err := cli.ParseInterspersed(fs, args) // flags may follow the script
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			replHelp(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "schedlab repl: %v\nusage: %s\n", err, replSynopsis)
		return 2
	}
	if len(files) > 1 {
		fmt.Fprintf(stderr, "schedlab repl: want at most one script, got %d\nusage: %s\n", len(files), replSynopsis)
		return 2
	}
	script := ""
	if len(files) == 1 {
		script = files[0]
	}
	// The world's settings become its run's options as a script's do.
	opts := repl.Options{
		Run:    h.Options(s, "", stdout, stderr),
		Script: script,
		Stdin:  os.Stdin,
		Stdout: stdout,
		Stderr: stderr,
		Echo:   echo,
	}
	if stdout == io.Writer(os.Stdout) && repl.IsTerminal(os.Stdin) && repl.IsTerminal(os.Stdout) {
		opts.Interactive = true
		opts.Color = repl.ColorWanted(os.Stdout)
		opts.HistoryFile = repl.HistoryFile()
	}
	return repl.Run(opts)
}

// replSettings are the flags of `schedlab repl` that are Settings': the
// settings a world's session uses (lang.SessionOptions). A session has no
// --timeout, --max-time, --max-steps or --perturb (it drops them), writes
// no trace files and has no check-only --stalls; --max-memory it watches
// itself.
var replSettings = []string{"procs", "seed", "preempt", "costs", "sched", "startup", "gogc", "memlimit", "gc-cycle", "gc-assist", "print", "choices", "trace-states", "max-memory"}

// replFlags returns the flag set of `schedlab repl`, bound to s and echo:
// the settings' own flags (one name, help text, default and parser each,
// as `schedlab run` has them) and --echo. It reports nothing itself.
func replFlags(s *cli.Settings, echo *bool) *flag.FlagSet {
	fs := flag.NewFlagSet("repl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s.RegisterFlags(fs, replSettings...)
	fs.BoolVar(echo, "echo", false, "without a terminal, print the prompts and the input as a terminal shows them (to record a session)")
	return fs
}

func replHelp(w io.Writer) {
	fmt.Fprintf(w, `usage: %s

Repl is an interactive shell on the simulated Go scheduler. Each statement
runs as the main goroutine G1; a statement that blocks (ch.recv(),
sleep(d), wg.wait()) runs the scheduler until G1 can go on, and between
statements G1 waits for input ("repl input"). Commands start with ':':
:step advances one scheduling event at a time, :runq shows every run
queue, :ps every goroutine; :help lists them all. With a script, its
statements run first and its globals stay.

On a terminal the shell edits lines, completes names with Tab, keeps its
history in $XDG_STATE_HOME/schedlab/history (or ~/.schedlab_history) and
colours states and events unless NO_COLOR is set. Ctrl-C cancels the
statement, :step or :run in progress, Ctrl-D leaves.

Without a terminal (schedlab repl < session.txt) it runs the same
statements and commands and prints the same output, without prompts and
colour. A compound statement (def, for, if, while) ends at a blank line.
docs/repl.md says more.

Flags:
  --procs N         number of Ps (GOMAXPROCS) at start, from 1 to %d (default 1)
  --seed S          seed of the world's one PRNG: steal order, select (default 1)
  --preempt on|off  preempt a goroutine after its 10ms time slice (default on)
  --costs FILE|default|zero
                    the costs profile that moves the virtual clock: the one
                    that ships with schedlab (default), zero (only work,
                    syscall, sleep and timers take time) or a profile file
                    (docs/runtime.md)
  --sched VARIANT   the world's scheduler variant: go (default), central,
                    handoff, eager, no-runnext, no-steal, runq=N
                    (docs/variants.md)
  --startup bare|go how the world starts: go (default) runs runtime.main's
                    start-up first, its own goroutines and the threads they
                    woke, as every Go program starts; bare starts G1 alone
                    on M0 and P0, the textbook start (docs/runtime.md)
  --gogc PERCENT|off
                    the garbage collector's GOGC at start (default 100)
  --memlimit SIZE|off
                    the soft memory limit at start, GOMEMLIMIT (default off)
  --gc-cycle instant|stw|mark
                    how much of a GC cycle the world models (default mark;
                    docs/runtime.md)
  --gc-assist on|off
                    with --gc-cycle=mark, goroutines that allocate pay mark
                    assists (default on)
  --print auto|free|syscall
                    what a printed line costs: the write(2) it is in Go,
                    a system call, when the costs profile charges a
                    write, as the default does (auto, the default);
                    always (syscall); or nothing (free; docs/runtime.md)
  --max-memory SIZE interrupt a statement, :step or :run when the process
                    holds more than SIZE, such as 512MiB (0: no limit;
                    default 4GiB); the world stays
  --choices LIST    give the world's choice points these answers, as
                    schedlab check prints them: the script runs the
                    failing schedule check found (docs/check.md)
  --trace-states    :trace and :step also print a GoStatus event for every
                    change of a goroutine's status (casgstatus)
  --echo            without a terminal, print the prompts and the input as a
                    terminal shows them, to record a session
`, replSynopsis, cli.MaxProcs)
}
