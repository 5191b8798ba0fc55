// Command schedlab runs scheduling experiments written in Starlark on a
// deterministic simulation of Go's scheduler.
//
// Usage:
//
//	schedlab <command> [arguments]
//
// The commands are:
//
//	run      run a script, optionally printing every scheduling event
//	check    run a script under every schedule up to a bound and report the first failure
//	explore  run a script under many seeds and find the schedules that break it
//	lab      run a script over a grid of GOMAXPROCS, CPU quota and parameters: one latency table
//	repl     explore the scheduler interactively: statements as G1, :step, :runq
//	play     serve the playground: the engine in the browser
//	test     compare scripts' output with golden files
//	calibrate measure this machine's Go runtime and write a costs profile
//	timeline draw a Go execution trace as an HTML timeline
//	version  print the version of schedlab, Go and the trace format
//	help     show help for a command
//
// Run "schedlab help <command>" for the flags of each.
package main

import (
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"runtime/debug"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/trace"
)

func main() {
	// This process runs one command, and so one script or one REPL
	// session: its run has the process to itself and may end it.
	tuneGC(os.Args[1:])
	os.Exit(dispatch(cli.Host{OwnsProcess: true}, os.Args[1:], os.Stdout, os.Stderr))
}

// A command is one subcommand of schedlab.
type command struct {
	name  string
	short string                                                        // one line for `schedlab help`
	run   func(h cli.Host, args []string, stdout, stderr io.Writer) int // returns the exit status
	help  func(w io.Writer)                                             // the text of `schedlab help name`
}

// commands is every subcommand, in the order `schedlab help` lists them.
// It is filled in by init to break the cycle through helpCmd.
var commands []*command

func init() {
	commands = []*command{
		{name: "run", short: "run a script, optionally printing every scheduling event", run: cli.Host.Run, help: cli.RunHelp},
		{name: "compare", short: "run a script under several scheduler variants and print one table of their counters", run: hostless(cli.Compare), help: cli.CompareHelp},
		{name: "check", short: "run a script under every schedule up to a bound on preemptions and report the first that fails", run: checkCmd, help: checkHelp},
		{name: "explore", short: "run a script under many seeds and find the schedules that break it", run: exploreIn, help: exploreHelp},
		{name: "lab", short: "run a script over a grid of GOMAXPROCS, CPU quota and parameters and print one latency table", run: labCmd, help: labHelp},
		{name: "repl", short: "explore the scheduler interactively: statements as G1, :step, :runq", run: replCmd, help: replHelp},
		{name: "play", short: "serve the playground: the engine in the browser, the M:P:G picture live", run: hostless(playCmd), help: playHelp},
		{name: "test", short: "compare scripts' output with golden files", run: testCmd, help: testHelp},
		{name: "calibrate", short: "measure this machine's Go runtime and write a costs profile", run: hostless(calibrateCmd), help: calibrateHelp},
		{name: "timeline", short: "draw a Go execution trace (a real program's, or --go-trace's) as an HTML timeline", run: hostless(timelineCmd), help: timelineHelp},
		{name: "version", short: "print the version of schedlab, Go and the trace format", run: hostless(versionCmd), help: versionHelp},
		{name: "help", short: "show help for a command", run: hostless(helpCmd), help: helpHelp},
	}
}

// hostless adapts a command whose runs, if any, never need the process
// to themselves (calibrate, version and help run no script) to the
// signature of command.run.
func hostless(f func(args []string, stdout, stderr io.Writer) int) func(cli.Host, []string, io.Writer, io.Writer) int {
	return func(_ cli.Host, args []string, stdout, stderr io.Writer) int { return f(args, stdout, stderr) }
}

// doMain runs the command line args (without the program name) in a
// process shared with other work, as the tests do, and returns the exit
// status.
func doMain(args []string, stdout, stderr io.Writer) int {
	return dispatch(cli.Host{}, args, stdout, stderr)
}

// dispatch runs the command line args (without the program name) in host
// h and returns the exit status.
func dispatch(h cli.Host, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return 0
	}
	c := lookup(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "schedlab: unknown command %q\nRun 'schedlab help' for usage.\n", args[0])
		return 2
	}
	return c.run(h, args[1:], stdout, stderr)
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// usage prints the top-level help.
func usage(w io.Writer) {
	fmt.Fprint(w, `schedlab runs scheduling experiments written in Starlark on a
deterministic simulation of Go's scheduler (its Ps, Ms and Gs, run queues,
stealing, syscalls, timers and channels). The same script, flags and seed
always print the same bytes.

Usage:

	schedlab <command> [arguments]

The commands are:

`)
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-9s %s\n", c.name, c.short)
	}
	fmt.Fprint(w, `
Run 'schedlab help <command>' (or 'schedlab <command> -h') for more about
a command.
`)
}

// helpCmd is `schedlab help [command]`.
func helpCmd(args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		usage(stdout)
		return 0
	case 1:
		if c := lookup(args[0]); c != nil {
			c.help(stdout)
			return 0
		}
		if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
			helpHelp(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "schedlab help: unknown command %q\nRun 'schedlab help' for usage.\n", args[0])
		return 2
	}
	fmt.Fprintf(stderr, "schedlab help: want at most one command, got %d arguments\nusage: schedlab help [command]\n", len(args))
	return 2
}

func helpHelp(w io.Writer) {
	fmt.Fprint(w, `usage: schedlab help [command]

Help prints the help of a command, the same text as 'schedlab command -h',
or without a command the list of commands.
`)
}

// versionCmd is `schedlab version`.
func versionCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
			versionHelp(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "schedlab version: want no arguments, got %q\nusage: schedlab version\n", args[0])
		return 2
	}
	fmt.Fprintf(stdout, "schedlab %s %s %s/%s trace-format v%d\n",
		moduleVersion(), goruntime.Version(), goruntime.GOOS, goruntime.GOARCH, trace.FormatVersion)
	return 0
}

func versionHelp(w io.Writer) {
	fmt.Fprint(w, `usage: schedlab version

Version prints schedlab's module version ("devel" when built from a source
tree rather than installed at a version), the Go version and platform it
was built with, and the version of the trace formats it writes, which is
the one named in the first line of every trace:

	schedlab devel go1.26.8 linux/amd64 trace-format v1
`)
}

// moduleVersion returns the version of the main module as recorded in the
// binary, or "devel".
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
	}
	return "devel"
}
