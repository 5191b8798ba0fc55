package cli

import (
	"bytes"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// timing samples the calibrated profile's distributions; the zero profile
// has none, so there it keeps the uniform wake-up jitter.
func TestPerturbationForTiming(t *testing.T) {
	p, err := PerturbationFor("timing", runtime.DefaultCosts())
	if err != nil {
		t.Fatal(err)
	}
	if !p.SampleCosts || p.WakeupJitter != 0 || p.Jitter != 0 || !p.QuantumJitter || !p.Stalls || p.PreemptProb != 0 {
		t.Errorf("timing on the default profile = %+v, want SampleCosts, QuantumJitter and stalls, no uniform jitter and no preemption", p)
	}
	for _, zero := range []*runtime.Costs{nil, runtime.ZeroCosts()} {
		p, _ := PerturbationFor("timing", zero)
		if p.SampleCosts || p.WakeupJitter != perturbWakeup || p.Jitter != perturbJitter {
			t.Errorf("timing on the zero profile = %+v, want WakeupJitter %d and no SampleCosts", p, perturbWakeup)
		}
	}
	all, _ := PerturbationFor("all", runtime.DefaultCosts())
	if !all.SampleCosts || !all.RunnextFlip || all.PCTDepth == 0 {
		t.Errorf("all = %+v, want timing's sampling with runnext and pct", all)
	}
	if _, err := PerturbationFor("timeing", nil); err == nil {
		t.Error("an unknown mode: no error")
	}
}

// raceScript readies a goroutine while main burns CPU on the other P, and
// two goroutines race on a plain counter: what it prints depends on the
// wake-up latency, the spawn and switch costs and where the quanta of
// steps fall, all of which --perturb=timing samples.
const raceScript = `x = [0]
order = []
def incr(name):
    order.append(name)
    for i in range(200):
        x[0] = x[0] + 1
wg = waitgroup()
def run(name):
    incr(name)
    wg.done()
wg.add(2)
spawn(run, "a")
spawn(run, "b")
work("3us")
wg.wait()
print(order, x[0])
`

// runRace runs raceScript with args and returns its stdout and trace.
func runRace(t *testing.T, script string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := Run(append(args, "--trace", script), &stdout, &stderr); code != 0 {
		t.Fatalf("run %v: exit %d\n%s", args, code, stderr.String())
	}
	return stdout.String()
}

// Sampled costs are drawn from the run's one seeded PRNG: a seed replays
// the same bytes, with the host's GOMAXPROCS at 1 or 8, and seeds differ
// from each other in what they sample.
func TestTimingSamplesDeterministic(t *testing.T) {
	script := filepath.Join(t.TempDir(), "race.star")
	if err := os.WriteFile(script, []byte(raceScript), 0o644); err != nil {
		t.Fatal(err)
	}
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))
	traces := map[string]bool{}
	for seed := range 12 {
		args := []string{"--procs=2", "--perturb=timing", "--seed=" + strconv.Itoa(seed+1)}
		goruntime.GOMAXPROCS(1)
		a := runRace(t, script, args...)
		goruntime.GOMAXPROCS(8)
		if b := runRace(t, script, args...); a != b {
			t.Fatalf("seed %d: the run differs between host GOMAXPROCS 1 and 8:\n%s\n---\n%s", seed+1, a, b)
		}
		traces[a] = true
	}
	if len(traces) < 10 {
		t.Errorf("12 seeds gave %d different traces, want sampled costs to move them", len(traces))
	}
	// Without perturbation every seed is the medians' one schedule.
	body := func(trace string) string { _, rest, _ := strings.Cut(trace, "\n"); return rest } // less the header, which names the seed
	base := runRace(t, script, "--procs=2", "--seed=1")
	if again := runRace(t, script, "--procs=2", "--seed=2"); body(base) != body(again) {
		t.Error("without --perturb the seed changed a schedule with no random choice in it")
	}
}
