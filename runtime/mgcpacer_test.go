package runtime

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const (
	kib = 1 << 10
	mib = 1 << 20
)

// goSplit is the worker split of Go's startCycle as its source reads,
// written again here from the runtime's text, not from schedlab's code:
//
//	totalUtilizationGoal := float64(procs) * gcBackgroundUtilization
//	dedicatedMarkWorkersNeeded := int64(totalUtilizationGoal + 0.5)
//	utilError := float64(dedicatedMarkWorkersNeeded)/totalUtilizationGoal - 1
//	if utilError < -maxUtilError || utilError > maxUtilError {
//		if float64(dedicatedMarkWorkersNeeded) > totalUtilizationGoal { dedicated-- }
//		fractionalUtilizationGoal = (total - dedicated) / procs
//	}
//
// with gcBackgroundUtilization 0.25 and maxUtilError 0.3.
func goSplit(procs int) (dedicated int64, fractional float64) {
	goal := 0.25 * float64(procs)
	dedicated = int64(math.Floor(goal + 0.5))
	miss := float64(dedicated)/goal - 1
	if math.Abs(miss) > 0.3 {
		if float64(dedicated) > goal {
			dedicated--
		}
		fractional = (goal - float64(dedicated)) / float64(procs)
	}
	return dedicated, fractional
}

// The dedicated and fractional split of every GOMAXPROCS from 1 to 64
// equals the runtime's formula; the fractional workers are needed exactly
// for GOMAXPROCS 1, 2, 3 and 6, as startCycle's comment says; and
// dedicated plus fractional always make up a quarter of the Ps.
func TestStartCycleWorkerSplit(t *testing.T) {
	var fractionalAt []int
	for procs := 1; procs <= 64; procs++ {
		var c gcControllerState
		c.init(DefaultGOGC, NoMemoryLimit)
		c.startCycle(0, procs)
		wantD, wantF := goSplit(procs)
		if c.dedicatedMarkWorkersNeeded != wantD || c.fractionalUtilizationGoal != wantF {
			t.Errorf("GOMAXPROCS=%d: %d dedicated, fractional %g; want %d, %g", procs, c.dedicatedMarkWorkersNeeded, c.fractionalUtilizationGoal, wantD, wantF)
		}
		if total := float64(c.dedicatedMarkWorkersNeeded) + c.fractionalUtilizationGoal*float64(procs); c.fractionalUtilizationGoal > 0 && math.Abs(total-0.25*float64(procs)) > 1e-12 {
			t.Errorf("GOMAXPROCS=%d: dedicated plus fractional is %g Ps, want %g", procs, total, 0.25*float64(procs))
		}
		if c.fractionalUtilizationGoal > 0 {
			fractionalAt = append(fractionalAt, procs)
		}
	}
	if got := fmt.Sprint(fractionalAt); got != "[1 2 3 6]" {
		t.Errorf("fractional workers at GOMAXPROCS %s, want [1 2 3 6]", got)
	}
	// A few by hand: 1 P marks a quarter of its time; 4 Ps, one
	// dedicated; 6 Ps, one dedicated and a twelfth of each P; 64, 16.
	for _, tc := range []struct {
		procs int
		d     int64
		f     float64
	}{{1, 0, 0.25}, {2, 0, 0.25}, {3, 0, 0.25}, {4, 1, 0}, {5, 1, 0}, {6, 1, 0.5 / 6}, {7, 2, 0}, {10, 3, 0}, {64, 16, 0}} {
		var c gcControllerState
		c.startCycle(0, tc.procs)
		if c.dedicatedMarkWorkersNeeded != tc.d || c.fractionalUtilizationGoal != tc.f {
			t.Errorf("GOMAXPROCS=%d: %d dedicated, fractional %g; want %d, %g", tc.procs, c.dedicatedMarkWorkersNeeded, c.fractionalUtilizationGoal, tc.d, tc.f)
		}
	}
}

// pacer returns a pacer at gogc whose last cycle marked marked bytes of
// heap and stack bytes of stacks, with the sweep done.
func pacer(gogc int32, marked, stack uint64) *gcControllerState {
	c := new(gcControllerState)
	c.init(gogc, NoMemoryLimit)
	c.heapScanWork, c.stackScanWork = int64(marked), int64(stack)
	c.resetLive(marked, marked)
	c.totalAlloc = marked
	c.mappedReady = marked + stack
	c.commit(true)
	return c
}

// The heap goal under GOGC 50, 100 and 200: the marked heap plus GOGC
// percent of heap, stacks and globals (commit's gcPercentHeapGoal), and
// never below heapMinimum, 4 MiB scaled by GOGC (setGCPercent).
func TestHeapGoalGOGC(t *testing.T) {
	const stack = 10 * 2048
	for _, tc := range []struct {
		gogc   int32
		marked uint64
		want   uint64
	}{
		// Large heaps: marked + (marked + stacks + globals) * GOGC / 100.
		{50, 100 * mib, 100*mib + (100*mib+stack+154570)*50/100},
		{100, 100 * mib, 100*mib + (100*mib + stack + 154570)},
		{200, 100 * mib, 100*mib + (100*mib+stack+154570)*2},
		// Small heaps: heapMinimum = 4 MiB * GOGC / 100.
		{50, 512 * kib, 2 * mib},
		{100, 512 * kib, 4 * mib},
		{200, 512 * kib, 8 * mib},
		{100, 0, 4 * mib},
	} {
		c := pacer(tc.gogc, tc.marked, stack)
		if got := c.heapGoal(); got != tc.want {
			t.Errorf("GOGC=%d, %d marked: goal %d, want %d", tc.gogc, tc.marked, got, tc.want)
		}
	}
	// GOGC=off: no goal but the memory limit's, which without a limit is
	// MaxInt64 less the stacks and 3%.
	c := pacer(-1, 100*mib, stack)
	limitGoal := uint64(math.MaxInt64) - stack
	limitGoal -= limitGoal / 100 * 3
	if got := c.heapGoal(); got != limitGoal {
		t.Errorf("GOGC=off: goal %d, want %d", got, limitGoal)
	}
	// Between two cycles the sweep is not done: the goal keeps 1 MiB
	// above the live heap (sweepDistMinTrigger), even at GOGC=0, whose
	// goal is the marked heap once swept.
	c = pacer(0, 100*mib, stack)
	if got := c.heapGoal(); got != 100*mib {
		t.Errorf("GOGC=0 after the sweep: goal %d, want %d", got, 100*mib)
	}
	c.commit(false)
	if got := c.heapGoal(); got != 101*mib {
		t.Errorf("GOGC=0 before the sweep: goal %d, want %d", got, 101*mib)
	}
}

// The memory limit's goal: the limit less the non-heap memory (the
// stacks here) and the overage, less 3% (at least 1 MiB), never below the
// marked heap; the tighter of it and the GOGC goal wins
// (memoryLimitHeapGoal, heapGoalInternal).
func TestHeapGoalMemoryLimit(t *testing.T) {
	const stack = 10 * 2048
	for _, tc := range []struct {
		name   string
		limit  int64
		marked uint64
		want   uint64
	}{
		// (100 MiB - 20 KiB) less 3% of it, the percentage taken of the
		// quotient by 100 as Go does.
		{"100MiB", 100 * mib, 10 * mib, (100*mib - stack) - (100*mib-stack)/100*3},
		// 20 MiB: 3% is less than 1 MiB, so 1 MiB.
		{"20MiB", 20 * mib, 10 * mib, 20*mib - stack - mib},
		// Below twice the headroom: the headroom itself, 1 MiB, but not
		// below the marked heap.
		{"1.5MiB", 3 * mib / 2, 512 * kib, mib},
		{"1.5MiB, 1.2MiB marked", 3 * mib / 2, 1200 * kib, 1200 * kib},
		// Under the live heap: the marked heap, a continuous collection.
		{"5MiB, 10MiB live", 5 * mib, 10 * mib, 10 * mib},
	} {
		c := pacer(DefaultGOGC, tc.marked, stack)
		c.setMemoryLimit(tc.limit)
		c.commit(true)
		if got := c.memoryLimitHeapGoal(); got != tc.want {
			t.Errorf("%s: limit goal %d, want %d", tc.name, got, tc.want)
		}
		if got, gogcGoal := c.heapGoal(), c.gcPercentHeapGoal; got != min(tc.want, gogcGoal) {
			t.Errorf("%s: goal %d, want the least of %d and GOGC's %d", tc.name, got, tc.want, gogcGoal)
		}
	}
	// Non-heap memory at the limit on its own: the marked heap.
	c := pacer(DefaultGOGC, 3*mib, 0)
	c.setMemoryLimit(mib)
	c.mappedReady = c.totalAlloc + 2*mib // 2 MiB of stacks
	if got := c.memoryLimitHeapGoal(); got != 3*mib {
		t.Errorf("non-heap over the limit: goal %d, want the marked heap %d", got, 3*mib)
	}
	// setMemoryLimit with a negative limit only asks.
	if old := c.setMemoryLimit(-1); old != mib || c.memoryLimit != mib {
		t.Errorf("setMemoryLimit(-1) = %d and left %d, want %d and unchanged", old, c.memoryLimit, mib)
	}
}

// The trigger lies between 45/64 and 61/64 of the way from the marked heap
// to the goal, or as late as the goal less 4 MiB for a large heap; within
// the bounds it is the goal less the runway (trigger).
func TestTriggerBounds(t *testing.T) {
	bounds := func(marked, goal uint64) (lo, hi uint64) {
		lo = marked + (goal-marked)/64*45
		hi = marked + (goal-marked)/64*61
		if goal > 4*mib && goal-4*mib > hi {
			hi = goal - 4*mib
		}
		return lo, hi
	}
	for _, tc := range []struct {
		name   string
		marked uint64
		runway uint64 // set by hand; ^0 means a runway longer than the goal
		want   func(lo, hi, goal uint64) uint64
	}{
		{"no runway, small heap: 61/64", 1 * mib, 0, func(lo, hi, goal uint64) uint64 { return hi }},
		{"no runway, large heap: goal less 4MiB", 100 * mib, 0, func(lo, hi, goal uint64) uint64 { return hi }},
		{"runway past the goal: 45/64", 100 * mib, ^uint64(0), func(lo, hi, goal uint64) uint64 { return lo }},
		{"runway of 60% of the way: below 45/64, so 45/64", 100 * mib, 60 * mib, func(lo, hi, goal uint64) uint64 { return lo }},
		{"runway of 20MiB: within the bounds", 100 * mib, 20 * mib, func(lo, hi, goal uint64) uint64 { return goal - 20*mib }},
	} {
		c := pacer(DefaultGOGC, tc.marked, 2048)
		c.runway = tc.runway
		trigger, goal := c.trigger()
		lo, hi := bounds(tc.marked, goal)
		if want := tc.want(lo, hi, goal); trigger != want {
			t.Errorf("%s: trigger %d (goal %d), want %d (bounds %d..%d)", tc.name, trigger, goal, want, lo, hi)
		}
		if trigger < lo || trigger > hi {
			t.Errorf("%s: trigger %d outside %d..%d", tc.name, trigger, lo, hi)
		}
	}
	// The numbers: 100 MiB marked, GOGC=100, no runway. The goal is
	// 200 MiB plus 2 KiB of stack and 154,570 bytes of globals,
	// 209,871,818; 61/64 of the way from 100 MiB is 4.7 MiB short of it,
	// and the goal less 4 MiB is later: 205,677,514.
	c := pacer(DefaultGOGC, 100*mib, 2048)
	trigger, goal := c.trigger()
	if goal != 209871818 || trigger != 205677514 {
		t.Errorf("100MiB marked: trigger %d, goal %d; want 205677514, 209871818", trigger, goal)
	}
	// A memory limit below the live heap: trigger and goal at the marked
	// heap, a cycle at every allocation.
	c.setMemoryLimit(50 * mib)
	c.commit(true)
	if trigger, goal := c.trigger(); trigger != 100*mib || goal != 100*mib {
		t.Errorf("limit under the live heap: trigger %d, goal %d; want both %d", trigger, goal, 100*mib)
	}
}

// The cons/mark estimate: bytes allocated during a cycle per CPU the
// program had, over scan work per CPU the collector had (endCycle). With
// the background's 25% and no assist that is allocated / (3 × scanned),
// and commit turns it into a runway of exactly the bytes allocated during
// the cycle when the scan work stays the same. The estimate is the
// maximum of the last five.
func TestConsMark(t *testing.T) {
	c := pacer(DefaultGOGC, 100*mib, 0)
	cycle := func(allocated uint64) {
		c.triggered = c.heapLive
		c.startCycle(0, 4)
		c.heapLive += allocated
		c.heapScanWork = int64(c.heapMarked)
		c.globalsScanWork = int64(c.globalsScan)
		c.endCycle(1000, 4)
		c.resetLive(c.heapMarked, c.heapMarked)
		c.commit(true)
	}
	cycle(30 * mib)
	scan := float64(100*mib + globalsScanBytes)
	if want := float64(30*mib) / (3 * scan); math.Abs(c.consMark-want) > 1e-12 {
		t.Errorf("cons/mark %g, want %g", c.consMark, want)
	}
	if d := int64(c.runway) - 30*mib; d < -1 || d > 1 {
		t.Errorf("runway %d, want %d", c.runway, 30*mib)
	}
	// Four quieter cycles keep the busy one's estimate; the fifth after
	// it forgets it.
	for i := range 5 {
		cycle(10 * mib)
		want := 30.0
		if i == 4 {
			want = 10
		}
		if got := c.consMark * 3 * scan / mib; math.Abs(got-want) > 1e-6 {
			t.Errorf("cycle %d after the busy one: cons/mark gives %g MiB, want %g", i+1, got, want)
		}
	}
	// A cycle with nothing allocated changes nothing.
	before := c.consMark
	cycle(0)
	if c.consMark != before {
		t.Errorf("an empty cycle moved cons/mark from %g to %g", before, c.consMark)
	}
}

// setGCPercent returns the old value, maps every negative to -1 (off),
// and scales heapMinimum; GOGC=0 collects at every allocation.
func TestSetGCPercent(t *testing.T) {
	c := pacer(DefaultGOGC, 0, 0)
	if old := c.setGCPercent(50); old != 100 {
		t.Errorf("setGCPercent(50) returned %d, want 100", old)
	}
	if c.heapMinimum != 2*mib {
		t.Errorf("heapMinimum at GOGC=50: %d, want %d", c.heapMinimum, 2*mib)
	}
	if old := c.setGCPercent(-7); old != 50 || c.gcPercent != -1 {
		t.Errorf("setGCPercent(-7) returned %d and set %d, want 50 and -1", old, c.gcPercent)
	}
	c.setGCPercent(0)
	c.commit(true)
	if trigger, goal := c.trigger(); trigger != 0 || goal != 0 {
		t.Errorf("GOGC=0 with nothing marked: trigger %d, goal %d, want 0 and 0", trigger, goal)
	}
}

// goSourceConst reads the value of a constant from Go's own mgcpacer.go or
// mgc.go, or skips the test when the toolchain's source is not there.
func goSourceConst(t *testing.T, file, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "src", "runtime", file))
	if err != nil {
		t.Skipf("Go's source: %v", err)
	}
	m := regexp.MustCompile(`(?m)^\s*` + name + `\s*=\s*([^/\n]+?)\s*(//.*)?$`).FindSubmatch(src)
	if m == nil {
		t.Fatalf("no constant %s in runtime/%s", name, file)
	}
	return string(m[1])
}

// The constants are the toolchain's: read from its runtime's source.
func TestPacerConstantsMatchGoSource(t *testing.T) {
	for _, tc := range []struct{ file, name, want string }{
		{"mgcpacer.go", "gcBackgroundUtilization", "0.25"},
		{"mgcpacer.go", "gcGoalUtilization", "gcBackgroundUtilization"},
		{"mgcpacer.go", "const maxUtilError", "0.3"},
		{"mgcpacer.go", "triggerRatioDen", "64"},
		{"mgcpacer.go", "minTriggerRatioNum", "45"},
		{"mgcpacer.go", "maxTriggerRatioNum", "61"},
		{"mgcpacer.go", "memoryLimitMinHeapGoalHeadroom", "1 << 20"},
		{"mgcpacer.go", "memoryLimitHeapGoalHeadroomPercent", "3"},
		{"mgcpacer.go", "const minRunway", "64 << 10"},
		{"mgcpacer.go", "gcOverAssistWork", "64 << 10"},
		{"mgc.go", "sweepMinHeapDistance", "1024 * 1024"},
	} {
		if got := goSourceConst(t, tc.file, tc.name); got != tc.want {
			t.Errorf("runtime/%s: %s = %s, schedlab has %s", tc.file, tc.name, got, tc.want)
		}
	}
	// And schedlab's values are those.
	if gcBackgroundUtilization != 0.25 || gcGoalUtilization != 0.25 || maxUtilError != 0.3 ||
		triggerRatioDen != 64 || minTriggerRatioNum != 45 || maxTriggerRatioNum != 61 ||
		memoryLimitMinHeapGoalHeadroom != 1<<20 || memoryLimitHeapGoalHeadroomPercent != 3 ||
		minRunway != 64<<10 || sweepMinHeapDistance != 1<<20 || defaultHeapMinimum != 4<<20 ||
		gcOverAssistWork != 64<<10 {
		t.Error("a pacer constant differs from Go 1.26's")
	}
}

// The assist ratio, worked by hand from revise's rules, on a controller
// that marked 4 MiB last cycle (no stacks, no globals, GOGC=100: a goal
// of 8 MiB) and started this one at 6 MiB:
//
//   - no work done at 6 MiB live: 4 MiB of work left over 2 MiB of heap
//     left, 2 units a byte;
//   - 3 MiB done: 1 MiB over 2 MiB, 0.5;
//   - 5 MiB done, more than the 4 MiB expected: the heap grew, so the
//     runway from the trigger (6 MiB) to the goal (2 MiB for 4 MiB of
//     work) is stretched over the worst case, the 6 MiB scannable heap:
//     a goal of 9 MiB, 1 MiB of work left over 3 MiB of heap, 1/3;
//   - the same at 10 MiB live, past even that goal: the goal gets 10%
//     (9.9 MiB), still below the heap, so 1 byte of heap is left: 1 MiB
//     of work a byte;
//   - nothing left to do: at least 1000 units are assumed left.
func TestReviseAssistRatio(t *testing.T) {
	var c gcControllerState
	c.init(100, NoMemoryLimit)
	c.globalsScan = 0
	c.heapMarked, c.lastHeapScan = 4*mib, 4*mib
	c.commit(true)
	c.heapLive = 6 * mib
	c.heapScan, c.triggered = 6*mib, 6*mib
	if g := c.heapGoal(); g != 8*mib {
		t.Fatalf("goal %d, want 8 MiB", g)
	}
	for _, tc := range []struct {
		live     uint64
		work     int64
		workByte float64
	}{
		{6 * mib, 0, 2},
		{6 * mib, 3 * mib, 0.5},
		{6 * mib, 5 * mib, 1.0 / 3},
		{10 * mib, 5 * mib, mib},
		{7 * mib, 4*mib - 10, 1000.0 / mib},
	} {
		c.heapLive = tc.live
		c.revise(tc.work)
		if math.Abs(c.assistWorkPerByte-tc.workByte) > 1e-9*tc.workByte || math.Abs(c.assistBytesPerWork*tc.workByte-1) > 1e-9 {
			t.Errorf("live %d, work %d: %v units a byte, %v bytes a unit; want %v and its inverse",
				tc.live, tc.work, c.assistWorkPerByte, c.assistBytesPerWork, tc.workByte)
		}
	}
}
