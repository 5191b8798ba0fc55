package lang

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// TestStackCheckPreempt: with preemption off (Go before 1.14,
// GODEBUG=asyncpreemptoff=1), sysmon's request (here the step-counted
// slice of the zero profile, and sysmon's 10ms with the default one) is
// honoured at the next call's stack check (newstack → gopreempt_m): a
// Starlark function call and a builtin call both are one, a loop without
// calls is not. other, in runnext, reports how far main's loop had got
// when it ran.
func TestStackCheckPreempt(t *testing.T) {
	const head = `st = {"i": 0}
def inc(x):
    return x + 1
done = chan()
def other():
    at = st["i"]
    done.send(at)
spawn(other)
`
	for _, tc := range []struct {
		name  string
		loop  string
		costs *runtime.Costs
		want  string
	}{
		// A loop of Starlark calls, no builtin in it.
		{"starlark call", "for _ in range(N):\n    st[\"i\"] = inc(st[\"i\"])\n", runtime.ZeroCosts(), "other at middle"},
		// A loop of builtin calls, no Starlark function in it.
		{"builtin call", "for _ in range(N):\n    st[\"i\"] += 1\n    now()\n", runtime.ZeroCosts(), "other at middle"},
		// A loop without calls keeps the P to its end; the request
		// waits for the first call after it (the recv).
		{"no call", "for _ in range(N):\n    st[\"i\"] += 1\n", runtime.ZeroCosts(), "other at end"},
		// With the default profile the request is sysmon's, after 10ms
		// of the P's virtual time, in the middle of work.
		{"sysmon, work", "def f(x):\n    work(100)\n    return x + 1\nfor _ in range(N):\n    st[\"i\"] = f(st[\"i\"])\n", runtime.DefaultCosts(), "other at middle"},
		{"sysmon, no call", "work(\"20ms\")\nst[\"i\"] = N\n", runtime.DefaultCosts(), "other at end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "N = 300000\n" + head + tc.loop + "print(\"other at\", \"end\" if done.recv() == N else \"middle\")\n"
			log := &eventLog{}
			stdout, stderr, res := runSrc(t, src, Options{Procs: 1, Costs: tc.costs, Tracer: log})
			if res.ExitCode != 0 {
				t.Fatalf("exit %d:\n%s", res.ExitCode, stderr)
			}
			if !strings.Contains(stdout, tc.want+"\n") {
				t.Errorf("stdout:\n%s\nwant %q", stdout, tc.want)
			}
			if tc.want == "other at middle" && !strings.Contains(log.b.String(), "G1 GoPreempt") {
				t.Errorf("no GoPreempt of G1:\n%s", log.b.String())
			}
		})
	}
}

// TestStackCheckPreemptNoWedge: with preemption off, a goroutine looping
// over calls while another waits is preempted at its calls, and never runs
// into the wedge limit; one looping without calls does, WedgeSteps after
// the request.
func TestStackCheckPreemptNoWedge(t *testing.T) {
	src := `def f(x):
    return x + 1
def spin():
    i = 0
    for _ in range(2000000):
        i = f(i)
spawn(spin)
spin()
`
	_, stderr, res := runSrc(t, src, Options{Procs: 1, Costs: runtime.ZeroCosts(), WedgeSteps: 50000})
	if res.ExitCode != 0 {
		t.Fatalf("a loop of calls: exit %d:\n%s", res.ExitCode, stderr)
	}
	src = "def spin():\n    while True:\n        pass\nspawn(spin)\nspin()\n"
	_, stderr, res = runSrc(t, src, Options{Procs: 1, Costs: runtime.ZeroCosts(), WedgeSteps: 50000})
	if res.Run.Outcome != runtime.Limit || !strings.Contains(stderr, "goroutine 1 ran 50000 steps without a scheduling point") {
		t.Errorf("a loop without calls: outcome %v, stderr:\n%s", res.Run.Outcome, stderr)
	}
}
