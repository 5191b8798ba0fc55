package cli

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/trace"
)

func TestDirectives(t *testing.T) {
	src := `#!/usr/bin/env schedlab
# schedlab: --procs=4 --trace

#   schedlab:   --seed 7
# an ordinary comment
x = 1
# schedlab: --procs=8
`
	got := directives([]byte(src))
	want := []directive{
		{line: 2, args: []string{"--procs=4", "--trace"}},
		{line: 4, args: []string{"--seed", "7"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("directives = %+v, want %+v", got, want)
	}
	if got := directives([]byte("print(1)\n# schedlab: --trace\n")); len(got) != 0 {
		t.Errorf("directive after code = %+v, want none", got)
	}
}

func TestSettingsFor(t *testing.T) {
	src := []byte("# schedlab: --procs=4 --trace --max-time=1s\nprint(1)\n")
	for _, test := range []struct {
		args []string
		want string // the trace header, then trace=true|false
	}{
		{[]string{"x.star"}, "procs=4 seed=1 preempt=on costs=default max-time=1s trace=true"},
		{[]string{"--procs=2", "x.star"}, "procs=2 seed=1 preempt=on costs=default max-time=1s trace=true"},
		{[]string{"x.star", "--trace=false", "--seed", "9"}, "procs=4 seed=9 preempt=on costs=default max-time=1s trace=false"},
		{[]string{"--preempt=off", "--max-time=0", "x.star"}, "procs=4 seed=1 preempt=off costs=default trace=true"},
		{[]string{"--costs=zero", "x.star"}, "procs=4 seed=1 preempt=on costs=zero max-time=1s trace=true"},
		{[]string{"--timeout=5s", "--max-goroutines=3", "--max-steps=10", "x.star"},
			"procs=4 seed=1 preempt=on costs=default max-steps=10 max-goroutines=3 max-time=1s timeout=5s trace=true"},
		{[]string{"--gogc=50", "--memlimit=64MiB", "x.star"}, "procs=4 seed=1 preempt=on costs=default gogc=50 memlimit=64MiB max-time=1s trace=true"},
		{[]string{"--gogc=off", "--memlimit=1000", "x.star"}, "procs=4 seed=1 preempt=on costs=default gogc=off memlimit=1000B max-time=1s trace=true"},
		{[]string{"--gogc=100", "--memlimit=off", "x.star"}, "procs=4 seed=1 preempt=on costs=default max-time=1s trace=true"},
		{[]string{"--gc-cycle=stw", "x.star"}, "procs=4 seed=1 preempt=on costs=default gc-cycle=stw max-time=1s trace=true"},
	} {
		s, err := settingsFor("x.star", src, test.args)
		if err != nil {
			t.Errorf("settingsFor(%q): %v", test.args, err)
			continue
		}
		var kv []string
		for _, e := range s.Header().Settings {
			kv = append(kv, e.Key+"="+e.Value)
		}
		got := strings.Join(kv, " ")
		if s.Trace {
			got += " trace=true"
		} else {
			got += " trace=false"
		}
		if got != test.want {
			t.Errorf("settingsFor(%q) = %s, want %s", test.args, got, test.want)
		}
	}
}

// TestCPUsDefaultProcs: without --procs, GOMAXPROCS is the machine's CPUs
// (--cpus), or under a quota the smaller of them and the quota's default;
// the header names the CPUs.
func TestCPUsDefaultProcs(t *testing.T) {
	for _, test := range []struct {
		args []string
		want string
	}{
		{[]string{"--cpus=2", "x.star"}, "procs=2 seed=1 preempt=on costs=default cpus=2"},
		{[]string{"--cpus=8", "--cpu-quota=3", "x.star"}, "procs=3 seed=1 preempt=on costs=default cpu-quota=3 cpus=8"},
		{[]string{"--cpus=2", "--cpu-quota=4", "x.star"}, "procs=2 seed=1 preempt=on costs=default cpu-quota=4 cpus=2"},
		{[]string{"--cpus=1", "--cpu-quota=0.5", "x.star"}, "procs=1 seed=1 preempt=on costs=default cpu-quota=0.5 cpus=1"},
		{[]string{"--cpus=2", "--procs=4", "x.star"}, "procs=4 seed=1 preempt=on costs=default cpus=2"},
		{[]string{"--cpus=0", "x.star"}, "procs=1 seed=1 preempt=on costs=default"},
	} {
		s, err := settingsFor("x.star", []byte("print(1)\n"), test.args)
		if err != nil {
			t.Errorf("settingsFor(%q): %v", test.args, err)
			continue
		}
		if got := s.ScheduleSettings(); got != test.want {
			t.Errorf("settingsFor(%q) = %s, want %s", test.args, got, test.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	s := NewSettings()
	if s.Procs != 1 || s.Seed != 1 || !s.Preempt || s.Trace || s.Timeout != DefaultTimeout {
		t.Errorf("NewSettings() = %+v", s)
	}
	h := s.Header()
	want := trace.Header{Settings: []trace.KV{{Key: "procs", Value: "1"}, {Key: "seed", Value: "1"}, {Key: "preempt", Value: "on"}, {Key: "costs", Value: "default"}}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("default header = %+v, want %+v", h, want)
	}
	if DefaultTimeout != time.Minute {
		t.Errorf("DefaultTimeout = %v; the help text says 1m", DefaultTimeout)
	}
}

func TestBadDirective(t *testing.T) {
	for _, test := range []struct{ src, want string }{
		{"# schedlab: --procs=0\n", "x.star:1: schedlab directive: invalid value \"0\" for flag -procs: out of range, want 1 to 1024"},
		{"\n# schedlab: --bogus\n", "x.star:2: schedlab directive: flag provided but not defined: -bogus"},
		{"# schedlab: --trace other.star\n", "x.star:1: schedlab directive: unexpected argument \"other.star\": a directive holds only flags"},
		{"# schedlab: -h\n", "x.star:1: schedlab directive: -h is not a run flag"},
		{"# schedlab: --max-time=-1s\n", "x.star:1: schedlab directive: invalid value \"-1s\" for flag -max-time: negative duration"},
		{"# schedlab: --gogc=-5\n", "x.star:1: schedlab directive: invalid value \"-5\" for flag -gogc: percent -5 is below -1 (off)"},
		{"# schedlab: --gc-cycle=full\n", "x.star:1: schedlab directive: invalid value \"full\" for flag -gc-cycle: want instant or stw or mark"},
	} {
		_, err := settingsFor("x.star", []byte(test.src), []string{"x.star"})
		if err == nil || err.Error() != test.want {
			t.Errorf("settingsFor(%q) error = %v, want %s", test.src, err, test.want)
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, test := range []struct {
		args []string
		want string // first line of stderr
	}{
		{[]string{"--procs=1025", "x.star"}, `schedlab run: invalid value "1025" for flag -procs: out of range, want 1 to 1024`},
		{[]string{"--procs=two", "x.star"}, `schedlab run: invalid value "two" for flag -procs: want an integer from 1 to 1024`},
		{[]string{"--seed=-1", "x.star"}, `schedlab run: invalid value "-1" for flag -seed: parse error`},
		{[]string{"--preempt=yes", "x.star"}, `schedlab run: invalid value "yes" for flag -preempt: want on or off`},
		{[]string{"--max-time=soon", "x.star"}, `schedlab run: invalid value "soon" for flag -max-time: want a duration such as 1s or 250ms`},
		{[]string{"--timeout=-1s", "x.star"}, `schedlab run: invalid value "-1s" for flag -timeout: negative duration`},
		{[]string{"--max-goroutines=-1", "x.star"}, `schedlab run: invalid value "-1" for flag -max-goroutines: out of range, want 0 to 1073741824`},
		{[]string{"--nope", "x.star"}, `schedlab run: flag provided but not defined: -nope`},
		{[]string{"x.star", "--procs"}, `schedlab run: flag needs an argument: -procs`},
		{[]string{}, `schedlab run: no script named`},
		{[]string{"a.star", "b.star"}, `schedlab run: want one script, got 2: a.star b.star`},
	} {
		var stdout, stderr strings.Builder
		code := Run(test.args, &stdout, &stderr)
		first, rest, _ := strings.Cut(stderr.String(), "\n")
		if code != 2 || first != test.want || rest != "usage: schedlab run [flags] script.star (see 'schedlab run -h')\n" || stdout.Len() != 0 {
			t.Errorf("Run(%q) = %d, stdout %q, stderr %q; want 2 and %s", test.args, code, stdout.String(), stderr.String(), test.want)
		}
	}
}

// TestCheckDirectives: `# schedlab check:` lines set check's search
// flags, the last one counting; anything else is an error naming the
// line, and the run's own directives ignore them.
func TestCheckDirectives(t *testing.T) {
	src := []byte("# a kernel\n# schedlab check: --reduction=none\n# schedlab: --procs=2\n# schedlab check: --stalls=on --reduction=dpor\nprint(1)\n# schedlab check: --reduction=none\n")
	d, err := ParseCheckDirectives("x.star", src)
	if err != nil {
		t.Fatal(err)
	}
	if d.Reduction != "dpor" || d.Stalls != "on" || !reflect.DeepEqual(d.Flags, []string{"--reduction=none", "--stalls=on", "--reduction=dpor"}) {
		t.Errorf("ParseCheckDirectives = %+v, want reduction dpor, stalls on, three flags (not the one after the code)", d)
	}
	if got := directives(src); len(got) != 1 || !reflect.DeepEqual(got[0].args, []string{"--procs=2"}) {
		t.Errorf("the run's directives = %+v, want only --procs=2", got)
	}
	for _, test := range []struct{ src, want string }{
		{"# schedlab check: --bound=2\n", "x.star:1: schedlab check directive: --bound=2 is not a search flag: a check directive takes --reduction and --stalls (run flags go in a `# schedlab:` directive)"},
		{"\n# schedlab check: --reduction dpor\n", "x.star:2: schedlab check directive: --reduction: give its value as --reduction=VALUE"},
		{"# schedlab check: --reduction=full\n", "x.star:1: schedlab check directive: invalid value \"full\" for flag -reduction: want none or dpor"},
		{"# schedlab check: --stalls=yes\n", "x.star:1: schedlab check directive: invalid value \"yes\" for flag -stalls: want on or off"},
		{"# schedlab check: x.star\n", "x.star:1: schedlab check directive: unexpected argument \"x.star\": a directive holds only flags"},
	} {
		_, err := ParseCheckDirectives("x.star", []byte(test.src))
		if err == nil || err.Error() != test.want {
			t.Errorf("ParseCheckDirectives(%q) error = %v, want %s", test.src, err, test.want)
		}
	}
}
