package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/schedlab/schedlab/golden"
	"github.com/schedlab/schedlab/internal/cli"
)

const testSynopsis = "schedlab test [-update] [-golden DIR] [-mode trace|events|output] [-v] [-junit FILE] [-json] [paths...]"

const testHelpText = `Test runs scripts and compares what they print with golden files.

Each path is a .star script or a directory, searched recursively (in
lexical order, skipping directories whose name starts with a dot). The
default is the current directory (except with -update, which wants its
paths named). A script named on the command line is
always tested; in a directory, only the scripts that have a golden file
are, unless -update is given.

The golden file of x.star is x.golden beside it, or with -golden DIR the
file under DIR at the script's path relative to the directory searched:
'schedlab test -golden golden examples' checks examples/hello.star against
golden/hello.golden. This is what 'go test ./golden' does for the project's
examples.

A script runs exactly as 'schedlab run --trace x.star' runs it, with the
flags of its '# schedlab:' directives. Its stdout, stderr and exit status
are written into one text:

	stdout: the trace, with the program's output inline
	-- stderr --
	stderr, if the run wrote any
	-- exit N --

The stderr section is there only if stderr is not empty, and the exit line
only if N is not 0. The path of the script's directory is removed from the
output, so that goldens do not depend on where the test runs from.

What of the run is compared is the script's mode:

	trace   the full trace, as above (the default)
	events  the trace without its time column
	output  the program's output only, as 'schedlab run x.star' prints
	        it: a new costs profile leaves it alone

A script chooses its mode with a directive among its '# schedlab:' lines,
'# schedlab test: -mode=output'; -mode chooses for the scripts that have
none. A '--trace' in a '# schedlab:' directive that the mode contradicts
is an error ('--trace=false' would have no effect in the trace and events
modes, '--trace' would add the trace to the output mode's), as is a
'--trace-format=json' in the events mode, which reads the text trace, and
any other flag in a test directive. When the trace header
of a golden file is not the run's (an older schedlab wrote it, or another
costs profile), the diff opens with a line that says so and how to
update. So does it when the golden file was written while a printed line
took no time (before 2026-12-07) and the run's printed lines are the
write(2)s they are in Go (--print=auto, the default).

On a mismatch Test prints a unified diff from the golden file to the
output, coloured when stdout is a terminal and NO_COLOR is not set. It ends
with a line 'N passed, N failed' (and ', N updated' with -update) and exits
with status 1 if any script failed or had no golden file.

With -update, golden files that differ are rewritten and missing ones
created; files that match are not touched. Each file written is named.

For CI systems: -junit FILE also writes a JUnit XML report, one testcase
per script (its path), whose failure message is the first lines of the
diff (or the error) and whose text the whole diff; -json prints, instead
of the report above, one JSON object a line per script: script, golden,
status (pass, fail, no golden, updated, created, error), seconds, and for
a failure message and diff. The exit status is the same.`

// testCmd is `schedlab test`.
func testCmd(h cli.Host, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schedlab test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var opts golden.Options
	fs.BoolVar(&opts.Update, "update", false, "rewrite golden files that differ and create missing ones")
	fs.StringVar(&opts.GoldenDir, "golden", "", "look for golden files under `DIR`, mirroring the scripts' names, instead of beside the scripts")
	fs.BoolVar(&opts.Verbose, "v", false, "name every script tested, not only failures and updates")
	opts.Mode = golden.ModeTrace
	junit := fs.String("junit", "", "also write a JUnit XML report, one testcase per script, to `FILE`")
	asJSON := fs.Bool("json", false, "print one JSON object per script (script, golden, status, seconds, message, diff) instead of the text report")
	fs.Var(&opts.Mode, "mode", "compare by `mode`: trace (the full trace), events (the trace without times) or output (the program's output only), for the scripts without a '# schedlab test:' directive")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printTestHelp(stdout, fs)
			return 0
		}
		fmt.Fprintf(stderr, "schedlab test: %v\nusage: %s (see 'schedlab test -h')\n", err, testSynopsis)
		return 2
	}
	paths := fs.Args()
	if len(paths) == 0 {
		if opts.Update {
			// Walking the current directory would create a golden file
			// beside every script in the tree, libraries included.
			fmt.Fprintf(stderr, "schedlab test: -update wants the scripts or directories to update named\nusage: %s (see 'schedlab test -h')\n", testSynopsis)
			return 2
		}
		paths = []string{"."}
	}
	opts.Out, opts.Host = stdout, h
	opts.Color = useColor(stdout)
	if *asJSON {
		opts.Out, opts.Color = io.Discard, false
	}
	sum, err := golden.Run(paths, opts)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab test: %v\n", err)
		return 1
	}
	if *asJSON {
		if err := golden.WriteJSON(stdout, sum); err != nil {
			fmt.Fprintf(stderr, "schedlab test: %v\n", err)
			return 1
		}
	}
	if *junit != "" {
		if err := writeJUnit(*junit, sum); err != nil {
			fmt.Fprintf(stderr, "schedlab test: -junit: %v\n", err)
			return 1
		}
	}
	if sum.Passed+sum.Failed+sum.Updated == 0 {
		fmt.Fprintf(stderr, "schedlab test: no golden files found for %v (is -golden DIR missing?)\n", paths)
		return 1
	}
	if sum.Failed > 0 {
		return 1
	}
	return 0
}

// writeJUnit writes sum's JUnit report to file, through a temporary file
// renamed into place.
func writeJUnit(file string, sum golden.Summary) error {
	var b bytes.Buffer
	if err := golden.WriteJUnit(&b, "schedlab test", sum); err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o666); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// useColor reports whether output to w is coloured: only on a terminal,
// and never when NO_COLOR is set (https://no-color.org).
func useColor(w io.Writer) bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	return isTerminal(w)
}

func printTestHelp(w io.Writer, fs *flag.FlagSet) { printHelp(w, testSynopsis, testHelpText, fs) }

func testHelp(w io.Writer) { testCmd(cli.Host{}, []string{"-h"}, w, io.Discard) }
