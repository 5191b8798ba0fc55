package check

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// stutterPrograms poll a channel in a loop that never blocks, as
// kubernetes11298's Notify does, until a goroutine that sleeps closes
// it; work moves the clock, and sysmon preempts the loop at the end of
// its 10ms slice. Turn after turn the loop comes back to the same state:
// spin's leaves the mutex unlocked; counter's differs in its count, which
// the output shows.
var stutterPrograms = map[string]string{
	"spin": `done = chan()
def closer():
    sleep("2500us")
    done.close()
def spin(mu):
    while True:
        k, _, _ = select(done.on_recv(), default = True)
        if k == 0:
            return
        mu.lock()
        work("1ms")
        mu.unlock()
spawn(closer)
spawn(spin, mutex())
sleep("50ms")
`,
	"counter": `done = chan()
def closer():
    done.close()
def spin():
    i = 0
    while True:
        k, _, _ = select(done.on_recv(), default = True)
        if k == 0:
            print("closed after", i)
            return
        work("1ms")
        i = i + 1
spawn(spin)
spawn(closer)
sleep("50ms")
`,
}

// stutterDiffs compares, on stutterPrograms at one and two Ps and bounds
// 0 to 2, DPOR with the naive walk: the verdict, the outcomes, and no
// more schedules. It also returns the schedules of both on spin at one P
// and bound 1.
func stutterDiffs(t *testing.T) (diffs []string, naive1, dpor1 int) {
	t.Helper()
	for name, src := range stutterPrograms {
		prog := compile(t, src)
		for _, procs := range []int{1, 2} {
			for _, bound := range []int{0, 1, 2} {
				v := walkBoth(t, prog, procs, bound)
				var keys [2][]string
				for i := range v {
					for _, c := range v[i].Classes {
						keys[i] = append(keys[i], fmt.Sprint(c.Key))
					}
					slices.Sort(keys[i])
				}
				switch {
				case !v[0].Complete || !v[1].Complete:
					diffs = append(diffs, fmt.Sprintf("%s procs %d bound %d: incomplete", name, procs, bound))
				case v[1].Schedules > v[0].Schedules:
					diffs = append(diffs, fmt.Sprintf("%s procs %d bound %d: dpor %d schedules, naive %d", name, procs, bound, v[1].Schedules, v[0].Schedules))
				case !slices.Equal(keys[0], keys[1]):
					diffs = append(diffs, fmt.Sprintf("%s procs %d bound %d: outcomes naive %v, dpor %v", name, procs, bound, keys[0], keys[1]))
				}
				if name == "spin" && procs == 1 && bound == 1 {
					naive1, dpor1 = v[0].Schedules, v[1].Schedules
				}
			}
		}
	}
	slices.Sort(diffs)
	return diffs, naive1, dpor1
}

// TestStutter: DPOR with the stutter keys meets the naive walk's outcomes
// on loops that come back to one state, and runs spin's preemptions of
// one state once: 25 schedules at bound 1 for the naive walk's 69.
func TestStutter(t *testing.T) {
	diffs, naive, dpor := stutterDiffs(t)
	for _, d := range diffs {
		t.Error(d)
	}
	t.Logf("spin at bound 1: naive %d schedules, dpor %d", naive, dpor)
	// Without the keys DPOR takes 66: spin's turns touch the mutex, and
	// the close makes a race with each poll.
	if 2*dpor > naive {
		t.Errorf("spin at bound 1: dpor %d schedules, naive %d: the stutter keys merged too little", dpor, naive)
	}
}

// TestStutterNeedsTheLocals: with the goroutine's locals left out of the
// keys, counter's turns, which differ in their count, are merged, and
// DPOR misses outputs that the naive walk meets.
func TestStutterNeedsTheLocals(t *testing.T) {
	ignoreLocals = true
	defer func() { ignoreLocals = false }()
	diffs, _, _ := stutterDiffs(t)
	if len(diffs) == 0 {
		t.Fatal("the comparison finds nothing wrong with the locals left out")
	}
	t.Logf("with the locals left out:\n%v", diffs)
}

// cycleWalks walks the stutter programs at one and two Ps, and
// kubernetes11298's first schedules at the default profile with one
// instance (its Notify loop's half a million turns a run), with DPOR, and
// returns each walk's schedules, one line each.
func cycleWalks(t *testing.T) []string {
	t.Helper()
	var out []string
	record := func(name string, cfg Config) {
		v, err := Walk(cfg, func(r *Run) bool {
			out = append(out, fmt.Sprintf("%s: %s after %d points, %v", name, r.Result.Outcome, len(r.Points), r.Schedule()))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s: %d schedules, complete %v", name, v.Schedules, v.Complete))
	}
	for _, name := range []string{"counter", "spin", "choice"} {
		src := stutterPrograms[name]
		if name == "choice" {
			src = choiceLoop
		}
		prog := compile(t, src)
		for _, procs := range []int{1, 2} {
			record(fmt.Sprintf("%s procs %d", name, procs), Config{Program: prog, Options: lang.Options{Procs: procs, Costs: runtime.ZeroCosts()}, Bound: 1, Reduction: DPOR})
		}
	}
	const kernel = "../../bench/goker/kubernetes11298.star"
	src, err := os.ReadFile(kernel)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := lang.Compile(kernel, src, lang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	set, err := cli.ScriptSettings(kernel, src, []string{"--param=instances=2"})
	if err != nil {
		t.Fatal(err)
	}
	set.MaxMemory = 0 // the walks share this process
	opts := set.Options(nil, nil)
	opts.Timeout = 0 // a loaded machine must not cut a run short
	record("kubernetes11298", Config{Program: prog, Options: opts, Bound: 1, MaxSchedules: 3, Reduction: DPOR})
	return out
}

// choiceLoop's turns come back to one state, with a select between two
// closed channels at each: the walk's schedules answer 1 at one turn after
// the other, and the turn that takes c2 leaves another state. A goroutine
// waits in the run queue all along, so that each turn has preempt points.
const choiceLoop = `c1, c2 = chan(), chan()
c1.close()
c2.close()
def spin():
    took = False
    while True:
        k, _, _ = select(c1.on_recv(), c2.on_recv())
        if k == 1:
            took = True
        work("1ms")
spawn(lambda: None)
spawn(spin)
sleep("6500us")
`

// TestCycles: keying a loop's points from its cycle (stretch.predict)
// gives every point the representative that keying it in full gives
// (checkCycles panics where they differ), and the walks are the same
// schedule for schedule as with every point keyed in full.
func TestCycles(t *testing.T) {
	if testing.Short() {
		t.Skip("kubernetes11298's runs take seconds")
	}
	checkCycles, cycleChecked, cycleMismatch = true, 0, ""
	checked := cycleWalks(t)
	checkCycles = false
	if cycleMismatch != "" {
		t.Error(cycleMismatch)
	}
	// Three runs of 1.7 million points, nearly all of them the loop's
	// turns, four preempt points each.
	if cycleChecked < 3_000_000 {
		t.Errorf("%d points keyed from a cycle, want most of kubernetes11298's", cycleChecked)
	}
	noCycles = true
	full := cycleWalks(t)
	noCycles = false
	if diff := cmp.Diff(full, checked); diff != "" {
		t.Errorf("walks keyed from the cycle (+) against keyed in full (-):\n%s", diff)
	}
	t.Logf("%d points keyed from a cycle; %s", cycleChecked, full[len(full)-1])
}
