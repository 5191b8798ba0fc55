package lang

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// TestSched: sched() from a script, on 2 Ps. The value names the calling
// goroutine as its M's curg, is frozen, takes no arguments, and reading
// it is not a scheduling point: the same run with the calls and without
// them makes the same events (with the zero profile, so that the steps
// of the calls take no time either).
func TestSched(t *testing.T) {
	const body = `
out = []
def f():
    work("1ms")

spawn(f)
%s
gosched()
%s
sleep("2ms")
print(out)
`
	call := `s = sched()
mine = [m for m in s.ms if m.curg == current().id]
out.append((len(s.ps), s.gomaxprocs, len(mine), mine[0].activity, s.ps[mine[0].p].curg == current().id))`
	opts := func(tr runtime.Tracer) Options {
		return Options{Procs: 2, Preempt: true, Costs: runtime.ZeroCosts(), Tracer: tr}
	}
	var with, without eventLog
	stdout, stderr, res := runSrc(t, strings.ReplaceAll(body, "%s", call), opts(&with))
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, stderr)
	}
	if want := "[(2, 2, 1, \"running\", True), (2, 2, 1, \"running\", True)]\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	if _, stderr, res := runSrc(t, strings.ReplaceAll(body, "%s", "pass"), opts(&without)); res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, stderr)
	}
	noPrint := func(l *eventLog) string {
		var keep []string
		for _, line := range strings.SplitAfter(l.b.String(), "\n") {
			if !strings.Contains(line, " Print ") {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "")
	}
	if noPrint(&with) != noPrint(&without) {
		t.Errorf("sched() changed the schedule:\nwith:\n%s\nwithout:\n%s", noPrint(&with), noPrint(&without))
	}
	for src, want := range map[string]string{
		"sched(1)\n":                   "sched: got 1 arguments, want at most 0",
		"s = sched()\ns.ps[0].m = 1\n": "can't assign to .m field of struct",
		"sched().ps.append(1)\n":       "has no .append field or method",
	} {
		if _, stderr, res := runSrc(t, src, Options{Procs: 2}); res.ExitCode == 0 || !strings.Contains(stderr, want) {
			t.Errorf("%q: exit %d, stderr %q; want an error with %q", src, res.ExitCode, stderr, want)
		}
	}
}
