package lang

import (
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// stepKindSrc times three loops of 10,000 turns, each of one kind of
// statement, and prints each one's ns.
const stepKindSrc = `
def inc(v):
    return v + 1

def timed(f):
    t = now()
    f()
    return now() - t

def plain():
    x = 0
    for i in range(10000):
        x = x + 1

def format():
    t = ""
    for i in range(10000):
        t = "n%d" % i

def calls():
    x = 0
    for i in range(10000):
        x = inc(x)

print(timed(plain), timed(format), timed(calls))
`

// With a profile that charges a step by its kind, a loop of formats takes
// the format's cost a step and a loop of increments the plain one's; a
// call charges its own line at the call's cost and the callee's body at
// its kind. Without kinds in the profile every loop of the same steps
// takes the same step_ps.
func TestStepKindsCharged(t *testing.T) {
	byKind := runtime.DefaultCosts()
	byKind.Dists[runtime.CostStepPsPlain] = runtime.Const(20)
	byKind.Dists[runtime.CostStepPsFormat] = runtime.Const(5000)
	byKind.Dists[runtime.CostStepPsCall] = runtime.Const(100)
	times := func(costs *runtime.Costs) []int {
		t.Helper()
		stdout, stderr, res := runSrc(t, stepKindSrc, Options{Procs: 1, Preempt: true, Costs: costs})
		if res.ExitCode != 0 {
			t.Fatalf("exit %d\n%s", res.ExitCode, stderr)
		}
		var ns []int
		for _, f := range strings.Fields(stdout) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("output %q", stdout)
			}
			ns = append(ns, n)
		}
		return ns
	}
	got := times(byKind)
	// A Program compiled without the profile, as explore, check and run
	// compile, charges the same when it runs with it.
	prog, err := Compile("x.star", []byte(stepKindSrc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	prog.Run(Options{Procs: 1, Preempt: true, Costs: byKind, Stdout: &stdout})
	if want := strings.Join([]string{strconv.Itoa(got[0]), strconv.Itoa(got[1]), strconv.Itoa(got[2])}, " ") + "\n"; stdout.String() != want {
		t.Errorf("compiled, then run: %q, want RunFile's %q", stdout.String(), want)
	}
	plain, format, calls := got[0], got[1], got[2]
	// The format loop's steps cost 250 times the plain loop's; its turns
	// are about as many steps.
	if format < 100*plain {
		t.Errorf("by kind: the plain loop took %dns, the format loop %dns: want the format loop 100 times longer or more", plain, format)
	}
	if calls <= plain || calls >= format {
		t.Errorf("by kind: the loop of calls took %dns, want between the plain loop's %dns and the format loop's %dns", calls, plain, format)
	}
	noKinds := pooledSteps(runtime.DefaultCosts())
	if noKinds.ByKind() {
		t.Fatal("the default with no kinds still charges by kind")
	}
	pooled := times(noKinds)
	if pooled[1] > 2*pooled[0] {
		t.Errorf("without kinds: the plain loop took %dns, the format loop %dns: want them alike", pooled[0], pooled[1])
	}
}

// The kinds read off the syntax, the dearest on a line.
func TestStepKindOfLine(t *testing.T) {
	src := `def inc(v):
    return v + 1
f = lambda: 1
x = 1
x = x + 1
a = [0] * 8
a[x % 8] = a[x % 8] + 1
d = {}
d["k"] = 1
a.append(x)
x = inc(x)
y = f()
t = "n%d" % x
t = str(x)
t = ",".join(["a"])
for i in range(3):
    x = len(a)
if d["k"]:
    pass
c = [0]
c[0] = c[0] + 1
c[0] = a[x % 8]
`
	f, err := FileOptions().Parse("k.star", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{}
	r.findStepKinds(f)
	want := map[int32]runtime.StepKind{
		2: runtime.StepPlain, 4: runtime.StepPlain, 5: runtime.StepPlain,
		6: runtime.StepPlain, 7: runtime.StepIndex, 8: runtime.StepMap, 9: runtime.StepMap,
		10: runtime.StepAppend, 11: runtime.StepCall, 12: runtime.StepCall,
		13: runtime.StepFormat, 14: runtime.StepFormat, 15: runtime.StepFormat,
		16: runtime.StepPlain, 17: runtime.StepPlain, 18: runtime.StepMap,
		20: runtime.StepPlain, 21: runtime.StepCell, 22: runtime.StepIndex,
	}
	for line, k := range want {
		if got := r.stepKindAt("k.star", line); got != k {
			t.Errorf("line %d: kind %d, want %d", line, got, k)
		}
	}
	if r.stepKindAt("k.star", 1) != runtime.StepAny {
		t.Errorf("a def's header has a kind of its own")
	}
}

// pooledSteps returns c with its step kinds left out, so that every step
// costs step_ps, the kinds pooled.
func pooledSteps(c *runtime.Costs) *runtime.Costs {
	// Every kind but StepAny: past the last, Cost is step_ps itself.
	for k := runtime.StepPlain; k.Cost() != runtime.CostStepPs; k++ {
		c.Dists[k.Cost()] = runtime.Dist{}
	}
	return c
}
