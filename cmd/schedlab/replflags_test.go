package main

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/explore"
)

// replOnly are the REPL's flags that are not settings of a run.
var replOnly = map[string]bool{"echo": true}

// TestREPLFlagsAreSettings checks that every flag of `schedlab repl` but
// --echo is the setting of `schedlab run` of the same name: the same help
// text and default, so one definition serves both. --stalls, a check-only
// setting, is not the REPL's.
func TestREPLFlagsAreSettings(t *testing.T) {
	run := cli.RunFlags()
	var echo bool
	replFlags(cli.NewSettings(), &echo).VisitAll(func(f *flag.Flag) {
		if replOnly[f.Name] {
			return
		}
		r := run.Lookup(f.Name)
		switch {
		case r == nil:
			t.Errorf("repl --%s is not a setting of schedlab run", f.Name)
		case r.Usage != f.Usage || r.DefValue != f.DefValue:
			t.Errorf("repl --%s = %q (default %q), run's = %q (default %q): define it once, in cli.Settings", f.Name, f.Usage, f.DefValue, r.Usage, r.DefValue)
		}
	})
	if replFlags(cli.NewSettings(), &echo).Lookup("stalls") != nil {
		t.Error("repl registers --stalls, a setting of schedlab check only")
	}
}

// TestREPLFlagsDocumented checks that every flag of `schedlab repl`
// appears in its synopsis, in `schedlab repl -h` and in docs/repl.md's
// table of flags.
func TestREPLFlagsDocumented(t *testing.T) {
	var help strings.Builder
	replHelp(&help)
	doc, err := os.ReadFile("../../docs/repl.md")
	if err != nil {
		t.Fatal(err)
	}
	var echo bool
	replFlags(cli.NewSettings(), &echo).VisitAll(func(f *flag.Flag) {
		name := "--" + f.Name
		if !strings.Contains(replSynopsis, "["+name) {
			t.Errorf("the synopsis of schedlab repl omits %s", name)
		}
		if !strings.Contains(help.String(), "\n  "+name+" ") && !strings.Contains(help.String(), "\n  "+name+"\n") {
			t.Errorf("schedlab repl -h omits %s", name)
		}
		if !strings.Contains(string(doc), "\n| `"+name) {
			t.Errorf("docs/repl.md's table of flags omits %s", name)
		}
	})
	if !strings.Contains(string(doc), replSynopsis) {
		t.Errorf("docs/repl.md does not show the synopsis %q", replSynopsis)
	}
}

// TestMaxProcsOnce checks that the packages that cannot import cli check
// --procs against the same limit, cli.MaxProcs.
func TestMaxProcsOnce(t *testing.T) {
	if explore.MaxProcs != cli.MaxProcs {
		t.Errorf("explore.MaxProcs = %d, cli.MaxProcs = %d", explore.MaxProcs, cli.MaxProcs)
	}
}
