package check

import (
	"fmt"
	"slices"
	"testing"
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
