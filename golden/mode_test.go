package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/cli"
)

// modeScript sleeps, so that its trace has times in its lines and in
// their fields (until=, when=), and prints.
const modeScript = "spawn(print, \"x\")\nsleep(\"1ms\")\nprint(\"hi\")\n"

// TestModes checks the golden text of each mode against the run's own
// outputs: the full trace, the trace with no time left in it, the
// program's output alone.
func TestModes(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "m.star")
	if err := os.WriteFile(script, []byte(modeScript), 0o666); err != nil {
		t.Fatal(err)
	}
	trace := string(output(cli.Host{}, script, ModeTrace))
	if !strings.HasPrefix(trace, traceHeader) || !strings.Contains(trace, "µs") {
		t.Fatalf("trace mode: no trace:\n%s", trace)
	}
	events := string(output(cli.Host{}, script, ModeEvents))
	if timeLeft.MatchString(events) || !strings.Contains(events, "\nP0  M0  G1    GoSleep        dur=1ms\n") || !strings.Contains(events, "\nx\n") {
		t.Errorf("events mode: a time left, or an event or a print lost:\n%s", events)
	}
	// A duration stays, whether or not it has three decimals as a time
	// has: a printed line's write(2) under the default profile.
	if !strings.Contains(events, "\nP0  M0  G1    GoSyscallBegin dur=12.073µs\n") {
		t.Errorf("events mode: a duration of three decimals dropped:\n%s", events)
	}
	if n, m := strings.Count(events, "\n"), strings.Count(trace, "\n"); n != m {
		t.Errorf("events mode: %d lines, the trace %d", n, m)
	}
	var stdout, stderr bytes.Buffer
	cli.Run([]string{script}, &stdout, &stderr)
	if got := string(output(cli.Host{}, script, ModeOutput)); got != "x\nhi\n" || got != stdout.String() {
		t.Errorf("output mode: %q, want %q, as schedlab run prints", got, stdout.String())
	}
}

// timeLeft matches what the events mode takes out: the time column, a
// field that holds a time, the start-up's "main.main at".
var timeLeft = regexp.MustCompile(`(?m)^ *[0-9]+\.[0-9]{3}µs |(until|when)=|main\.main at`)

// TestScriptMode checks the choice of a script's mode: its test
// directive over the default, and the directives that are errors.
func TestScriptMode(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want Mode
		err  string
	}{
		{"print(1)\n", ModeEvents, ""},
		{"# schedlab test: -mode=output\nprint(1)\n", ModeOutput, ""},
		{"# schedlab: --procs=2\n# schedlab test: -mode trace\n", ModeTrace, ""},
		{"print(1)\n# schedlab test: -mode=output\n", ModeEvents, ""}, // not at the top: a comment
		{"# schedlab: --trace=false\n", "", `^x.star:1: schedlab directive: --trace=false has no effect under schedlab test, whose mode events shows the trace; write # schedlab test: -mode=output to compare the program's output only$`},
		{"#\n# schedlab: --procs=2 -trace=0\n", "", `^x.star:2: schedlab directive: -trace=0 has no effect`},
		{"# schedlab: --trace\n# schedlab test: -mode=output\n", "", `^x.star:1: schedlab directive: --trace contradicts the mode output of schedlab test, which compares the program's output only; remove it, or write # schedlab test: -mode=trace$`},
		{"# schedlab: --trace --procs=2\n", ModeEvents, ""},
		{"# schedlab: --trace=false\n# schedlab test: -mode=output\n", ModeOutput, ""},
		{"# schedlab: --trace=false --trace\n", ModeEvents, ""}, // the last counts
		{"# schedlab: --trace-format=json\n", "", `^x.star:1: schedlab directive: --trace-format=json: the events mode of schedlab test takes the times out of the text trace only; remove it, or write # schedlab test: -mode=trace$`},
		{"# schedlab: --trace-format json\n", "", `^x.star:1: schedlab directive: --trace-format: the events mode`},
		{"# schedlab: --trace-format=text\n", ModeEvents, ""},
		{"# schedlab: --trace-format text\n", ModeEvents, ""},
		{"# schedlab: --trace-format=json\n# schedlab test: -mode=trace\n", ModeTrace, ""},
		{"# schedlab test: -bogus\n", "", `^x.star:1: schedlab test directive: flag provided but not defined: -bogus$`},
		{"# schedlab test: -mode=fast\n", "", `^x.star:1: schedlab test directive: invalid value "fast" for flag -mode: unknown mode "fast", want trace, events or output$`},
		{"# schedlab test: output\n", "", `^x.star:1: schedlab test directive: unexpected argument "output": a directive holds only flags$`},
	} {
		got, err := ScriptMode("x.star", []byte(tc.src), ModeEvents)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ScriptMode(%q) = %q, %v; want %q", tc.src, got, err, tc.want)
		case tc.err != "" && (err == nil || !regexp.MustCompile(tc.err).MatchString(err.Error())):
			t.Errorf("ScriptMode(%q) = %q, %v; want an error matching %s", tc.src, got, err, tc.err)
		}
	}
}

// TestPrintNote checks the line that opens the diff of a golden file
// written when printing was free, against a run whose printed lines are
// system calls; it is not there when both or neither are, or when a
// system call follows an event rather than a printed line.
func TestPrintNote(t *testing.T) {
	c := Case{Script: "x.star"}
	const h = "# schedlab trace v1 procs=1 seed=1 preempt=on costs=default\n"
	free := h + "     10.000µs P0  M0  G1    GoStart        slice=new\nhi\n     10.065µs P0  M0  G1    GoDestroy\n"
	writes := h + "     10.000µs P0  M0  G1    GoStart        slice=new\nhi\n     48.000µs P0  M0  G1    GoSyscallBegin dur=31.86µs\n     79.860µs P0  M0  G1    GoSyscallEnd   exit=fast\n"
	events := h + "P0  M0  G1    GoStart        slice=new\nhi\nP0  M0  G1    GoSyscallBegin dur=31.86µs\n"
	syscall := h + "     10.000µs P0  M0  G1    GoStart        slice=new\n     10.000µs P0  M0  G1    GoSyscallBegin dur=1ms\nhi\n"
	for _, tc := range []struct {
		want, got string
		note      bool
	}{
		{free, writes, true},
		{free, events, true},
		{writes, writes + "ho\n", false},
		{free, free + "ho\n", false},
		{free, syscall, false},
		{"hi\n", "hi\n", false},
	} {
		note := printNote(c, []byte(tc.want), []byte(tc.got))
		if (note != "") != tc.note || tc.note && !strings.Contains(note, "'schedlab test -update x.star' rewrites it; '# schedlab: --print=free' in the script keeps printing free)") {
			t.Errorf("printNote(%q, %q) = %q, want a note: %v", tc.want, tc.got, note, tc.note)
		}
	}
}

// TestHeaderNote checks the line that opens the diff of a golden file
// whose trace header is not the run's.
func TestHeaderNote(t *testing.T) {
	c := Case{Script: "x.star"}
	run := []byte("# schedlab trace v1 procs=1 seed=1 preempt=on costs=default\nhi\n")
	for _, tc := range []struct {
		want string
		note string // a regexp; "" for no note
	}{
		{"# schedlab trace v1 procs=1 seed=1 preempt=on\nhi\n", `^\(the golden file was written by an older schedlab: its trace header has no costs=; .*'schedlab test -update x\.star' rewrites it; '# schedlab test: -mode=output' in the script`},
		{"# schedlab trace v1 procs=1 seed=1 preempt=on costs=old\nhi\n", `^\(the golden file was written with other settings or costs, or by another schedlab; its header is "# schedlab trace v1 procs=1 seed=1 preempt=on costs=old", the run's "# schedlab trace v1 procs=1 seed=1 preempt=on costs=default"`},
		{"# schedlab trace v1 procs=1 seed=1 preempt=on costs=default\nho\n", ""},
		{"hi\n", ""},
	} {
		note := headerNote(c, []byte(tc.want), run)
		if tc.note == "" && note != "" || tc.note != "" && !regexp.MustCompile(tc.note).MatchString(note) {
			t.Errorf("headerNote of %q: %q, want %s", tc.want, note, tc.note)
		}
	}
}
