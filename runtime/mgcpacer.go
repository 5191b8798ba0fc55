// The GC pacer: when a cycle starts, how large the heap may grow, and how
// many Ps the cycle's mark workers take.
//
// Go's collector runs concurrently with the program, so it has to start
// early enough to finish before the heap reaches its goal, but not so early
// that it runs all the time. Since Go 1.18 (design/44167-gc-pacer-redesign)
// gcControllerState decides both from a handful of numbers:
//
//   - the heap goal (heapGoal, heapGoalInternal): the live heap the last
//     cycle marked plus GOGC percent of everything the cycle must scan,
//     heap, stacks and globals together (commit: gcPercentHeapGoal), never
//     below heapMinimum (4 MiB at GOGC=100, scaled with GOGC), and lowered
//     to the memory limit's goal when that is tighter
//     (memoryLimitHeapGoal: the limit less the memory that holds no heap
//     objects, less 3% headroom, never below the marked heap);
//   - the trigger (trigger): the goal less the runway, the bytes the
//     program will allocate while the cycle marks, which commit derives
//     from the cons/mark estimate: how fast the program allocates per CPU
//     against how fast the collector scans, weighted by the 25% of the
//     CPU the collector means to use (gcGoalUtilization). The trigger is
//     kept between 45/64 (~0.7) and 61/64 (~0.95) of the way from the
//     marked heap to the goal (minTriggerRatioNum, maxTriggerRatioNum),
//     and a large heap may trigger as late as its goal less heapMinimum;
//   - the cons/mark estimate itself (endCycle): measured at the end of
//     every cycle from the bytes allocated during it and the scan work
//     done, and taken as the maximum of the last five measurements;
//   - the worker split (startCycle): a quarter of GOMAXPROCS
//     (gcBackgroundUtilization) marks in the background. That many Ps,
//     rounded to the nearest integer, run dedicated workers; when the
//     rounding is off by more than 30% (GOMAXPROCS 1, 2, 3 and 6),
//     dedicated workers are rounded down and every other P runs a
//     fractional worker for the fraction of its time that makes up the
//     difference (fractionalUtilizationGoal).
//
// This file holds the arithmetic and nothing else: every function below
// follows the one of mgcpacer.go it names, on the same fields, and the
// tests (mgcpacer_test.go) check them against the numbers Go's formulas
// give. mgc.go feeds it the heap the program allocates and retains, and
// runs the cycles it asks for.
//
// What the simulation leaves out, and why the numbers stay Go's:
//
//   - Scannable bytes. Go scans only the pointerful part of the heap
//     (heapScan, lastHeapScan). A schedlab byte has no type, so the
//     script says which bytes hold pointers: retain and alloc are
//     scannable unless called with pointers=False (RetainNoscan,
//     AllocNoscan). The heap scan work of a cycle is the scannable
//     retained heap; heapScan is heapLive without its pointer-free
//     bytes, and the bytes allocated black during a mark count as
//     scannable (if they hold pointers) from the next cycle on, where Go
//     counts them once a cycle has scanned them.
//   - Stacks. Go counts the stack space it scanned in the last cycle
//     (lastStackScan) in the goal. A schedlab goroutine has no stack to
//     grow, so each goroutine alive at the cycle's mark counts with Go's
//     starting stack, fixedStack (2 KiB on Linux).
//   - Globals. Go counts the data and bss segments of the binary
//     (addGlobals in modulesinit). A Starlark program has no binary;
//     schedlab counts those of the smallest Go program that prints,
//     measured (globalsScanBytes).
//   - Non-heap memory under a memory limit. Go subtracts from the limit
//     everything mapped that holds no heap object (stacks, metadata, the
//     unscavenged free pages: mappedReady - heapFree - heapAlloc). Here
//     that is the goroutines' stacks alone: no span, no fragmentation, no
//     metadata and no scavenger are modelled, so heapFree is 0.
//   - The time a cycle takes depends on --gc-cycle (mgc.go). Under
//     instant (lang.Options' zero value; the command line's default
//     is mark) and stw (the two pauses only), a cycle
//     marks at once exactly the retained heap: endCycle sees no
//     allocation during the cycle and leaves the cons/mark estimate at
//     0, as Go does for a cycle that short, so the runway is 0 and the
//     trigger is the highest bound. Under mark, the concurrent mark
//     takes the time its workers need (mgc.go); what the program
//     allocates meanwhile is marked too, and the cons/mark estimate
//     follows, and so does the assist ratio (revise), which makes a
//     goroutine that allocates during the mark pay for it (mgcmark.go).
//
// Invariants:
//
//   - heapMarked <= heapLive while no cycle runs (the bytes allocated
//     since the last mark only add to it; a release lowers neither until
//     the next mark, as freeing memory does not in Go);
//   - the trigger never exceeds the goal (trigger throws otherwise, as
//     Go's does).

package runtime

import (
	"fmt"
	"math"
)

// Constants of mgcpacer.go (and one of mgc.go), with their values in Go 1.26.
const (
	// gcBackgroundUtilization is the share of GOMAXPROCS that marks in
	// the background; gcGoalUtilization is the share the pacer aims
	// for, the same.
	gcBackgroundUtilization = 0.25
	gcGoalUtilization       = gcBackgroundUtilization

	// defaultHeapMinimum is heapMinimum at GOGC=100: 4 MiB. (The
	// HeapMinimum512KiB experiment, which would make it 512 KiB, is off
	// by default in Go 1.26.)
	defaultHeapMinimum = 4 << 20

	// memoryLimitMinHeapGoalHeadroom and memoryLimitHeapGoalHeadroomPercent
	// are the headroom memoryLimitHeapGoal leaves below the limit: 3%,
	// at least 1 MiB.
	memoryLimitMinHeapGoalHeadroom     = 1 << 20
	memoryLimitHeapGoalHeadroomPercent = 3

	// The trigger's bounds, as fractions of the way from the marked heap
	// to the goal: 45/64 (~0.7) and 61/64 (~0.95).
	triggerRatioDen    = 64
	minTriggerRatioNum = 45
	maxTriggerRatioNum = 61

	// sweepMinHeapDistance is the heap growth the sweeper is given after
	// a cycle before the next may trigger (mgc.go).
	sweepMinHeapDistance = 1 << 20

	// minRunway is the least distance heapGoalInternal keeps between the
	// point a cycle triggered and its goal.
	minRunway = 64 << 10

	// maxUtilError is how far the rounded number of dedicated workers
	// may miss the utilization goal before startCycle adds fractional
	// workers.
	maxUtilError = 0.3

	// gcOverAssistWork is the least scan work an assist does: an
	// assist for less over-assists, to build credit for the
	// allocations that follow (64 KiB of scan work).
	gcOverAssistWork = 64 << 10

	// fixedStack is a new goroutine's stack on Linux: stackMin (2 KiB)
	// plus stackSystem (0), rounded up to a power of 2 (stack.go).
	fixedStack = 2048

	// globalsScanBytes stands for a binary's scannable globals: the data
	// and bss segments (runtime.edata - runtime.data plus runtime.ebss -
	// runtime.bss, which modulesinit hands to addGlobals) of a program
	// whose main is fmt.Println("hi"), built by go1.26.8 linux/amd64:
	// 22,258 + 132,312 bytes.
	globalsScanBytes = 154570
)

// DefaultGOGC is GOGC when it is not set (readGOGC).
const DefaultGOGC = 100

// NoMemoryLimit is the memory limit when GOMEMLIMIT is not set:
// math.MaxInt64, no limit in practice (readGOMEMLIMIT).
const NoMemoryLimit = math.MaxInt64

// gcControllerState is the pacer's state. Mirrors gcControllerState, with
// the fields the model uses so far; none is atomic, as one goroutine runs
// at a time.
type gcControllerState struct {
	gcPercent   int32  // GOGC; -1 is off
	memoryLimit int64  // GOMEMLIMIT in bytes; NoMemoryLimit for none
	heapMinimum uint64 // the least goal: defaultHeapMinimum * GOGC / 100

	runway       uint64     // bytes the program may allocate while a cycle marks, from consMark (commit)
	consMark     float64    // the cons/mark estimate: the maximum of the last 5 measurements (endCycle)
	lastConsMark [4]float64 // the 4 measurements before the last

	gcPercentHeapGoal   uint64 // the goal from GOGC alone, ^0 when GOGC is off (commit)
	sweepDistMinTrigger uint64 // the least trigger that leaves the sweeper sweepMinHeapDistance (commit)
	triggered           uint64 // heapLive when the current cycle started; ^0 outside a cycle
	lastHeapGoal        uint64 // the goal when the last cycle ended

	heapLive      uint64 // the heap marked by the last cycle plus every byte allocated since
	heapMarked    uint64 // the heap the last cycle marked
	lastHeapScan  uint64 // the heap scan work of the last cycle
	lastStackScan uint64 // the stack scan work of the last cycle
	globalsScan   uint64 // the scannable globals

	heapScanWork    int64 // this cycle's scan work, by kind
	stackScanWork   int64
	globalsScanWork int64
	assistTime      int64 // ns of mark assists this cycle
	bgScanCredit    int64 // scan work the background workers did beyond what assists took: credit assists may steal
	idleMarkTime    int64 // ns of idle mark workers this cycle
	markStartTime   int64 // when this cycle's marking began

	// The assist ratio (revise): scan work owed per byte allocated
	// during the mark, and its inverse.
	assistWorkPerByte  float64
	assistBytesPerWork float64
	heapScan           uint64 // the scannable heap: heapLive but its pointer-free bytes; fixed while a cycle is on
	maxStackScan       uint64 // the stack space that could be scanned: every stack alive

	dedicatedMarkWorkersNeeded int64   // dedicated workers this cycle (startCycle)
	fractionalUtilizationGoal  float64 // the share of each other P's time for fractional marking (startCycle)

	// The memory limit's inputs (memoryLimitHeapGoal).
	mappedReady uint64 // memory mapped and not released: heap plus stacks here
	heapFree    uint64 // free, unscavenged heap pages: none here
	totalAlloc  uint64 // bytes ever allocated
	totalFree   uint64 // bytes ever freed (swept)
}

// init sets the pacer up for a program starting with gcPercent and
// memoryLimit. Mirrors gcControllerState.init.
func (c *gcControllerState) init(gcPercent int32, memoryLimit int64) {
	c.heapMinimum = defaultHeapMinimum
	c.triggered = ^uint64(0)
	c.globalsScan = globalsScanBytes
	c.setGCPercent(gcPercent)
	c.setMemoryLimit(memoryLimit)
	c.commit(true) // the first cycle has no sweep before it
}

// setGCPercent sets GOGC and heapMinimum with it, and returns the old
// GOGC; any negative value is off (-1). commit must follow. Mirrors
// gcControllerState.setGCPercent.
func (c *gcControllerState) setGCPercent(in int32) int32 {
	out := c.gcPercent
	if in < 0 {
		in = -1
	}
	// Go computes defaultHeapMinimum * uint64(in) / 100, which wraps for
	// in = -1 to a huge minimum that the goal ^0 (off) never misses.
	c.heapMinimum = defaultHeapMinimum * uint64(in) / 100
	c.gcPercent = in
	return out
}

// setMemoryLimit sets the memory limit and returns the old one; a
// negative limit only asks. commit must follow. Mirrors
// gcControllerState.setMemoryLimit.
func (c *gcControllerState) setMemoryLimit(in int64) int64 {
	out := c.memoryLimit
	if in >= 0 {
		c.memoryLimit = in
	}
	return out
}

// commit recomputes the GOGC goal, the sweep distance and the runway.
// Mirrors gcControllerState.commit.
func (c *gcControllerState) commit(isSweepDone bool) {
	if isSweepDone {
		c.sweepDistMinTrigger = 0
	} else {
		c.sweepDistMinTrigger = c.heapLive + sweepMinHeapDistance
	}

	// The goal: the marked heap grown by GOGC percent of all the
	// cycle's scan work, heap, stacks and globals.
	goal := ^uint64(0)
	if c.gcPercent >= 0 {
		goal = c.heapMarked + (c.heapMarked+c.lastStackScan+c.globalsScan)*uint64(c.gcPercent)/100
	}
	if goal < c.heapMinimum {
		goal = c.heapMinimum
	}
	c.gcPercentHeapGoal = goal

	// The runway: the scan work expected, in bytes the program will
	// allocate meanwhile (cons/mark), when the collector takes
	// gcGoalUtilization of the CPU and the program the rest.
	c.runway = uint64((c.consMark * (1 - gcGoalUtilization) / gcGoalUtilization) * float64(c.lastHeapScan+c.lastStackScan+c.globalsScan))
}

// heapGoal returns the heap goal. Mirrors gcControllerState.heapGoal.
func (c *gcControllerState) heapGoal() uint64 {
	goal, _ := c.heapGoalInternal()
	return goal
}

// heapGoalInternal returns the heap goal and the least trigger the
// sweeper needs; the trigger bound is never above the goal. Mirrors
// gcControllerState.heapGoalInternal.
func (c *gcControllerState) heapGoalInternal() (goal, minTrigger uint64) {
	goal = c.gcPercentHeapGoal
	if limitGoal := c.memoryLimitHeapGoal(); limitGoal < goal {
		// The memory limit is tighter: none of the adjustments below,
		// which can only push the goal up.
		return limitGoal, 0
	}
	sweepDist := c.sweepDistMinTrigger
	if sweepDist > goal {
		goal = sweepDist
	}
	minTrigger = sweepDist
	if c.triggered != ^uint64(0) && goal < c.triggered+minRunway {
		goal = c.triggered + minRunway
	}
	return goal, minTrigger
}

// memoryLimitHeapGoal returns the heap goal the memory limit allows: the
// limit less the memory that holds no heap objects and less what the
// mapped memory is over the limit, less 3% (at least 1 MiB) of headroom,
// never below the marked heap. Mirrors
// gcControllerState.memoryLimitHeapGoal.
func (c *gcControllerState) memoryLimitHeapGoal() uint64 {
	limit := uint64(c.memoryLimit)
	heapAlloc := c.totalAlloc - c.totalFree
	nonHeap := c.mappedReady - c.heapFree - heapAlloc
	var overage uint64
	if c.mappedReady > limit {
		overage = c.mappedReady - limit
	}
	if nonHeap+overage >= limit {
		// Nothing is left for the heap: collect continuously.
		return c.heapMarked
	}
	goal := limit - (nonHeap + overage)
	headroom := max(goal/100*memoryLimitHeapGoalHeadroomPercent, memoryLimitMinHeapGoalHeadroom)
	if goal < headroom || goal-headroom < headroom {
		goal = headroom
	} else {
		goal -= headroom
	}
	return max(goal, c.heapMarked)
}

// trigger returns the heap size at which the next cycle starts, and the
// goal. Mirrors gcControllerState.trigger.
func (c *gcControllerState) trigger() (trigger, goal uint64) {
	goal, minTrigger := c.heapGoalInternal()
	if c.heapMarked >= goal {
		// Only a continuous collection can meet such a goal.
		return goal, goal
	}
	minTrigger = max(minTrigger, c.heapMarked)

	// Not below 45/64 of the runway from the marked heap to the goal...
	runwayBytes := goal - c.heapMarked
	lower := runwayBytes/triggerRatioDen*minTriggerRatioNum + c.heapMarked
	minTrigger = max(minTrigger, lower)

	// ... nor above 61/64 of it, or the goal less heapMinimum's default
	// for a heap large enough.
	maxTrigger := runwayBytes/triggerRatioDen*maxTriggerRatioNum + c.heapMarked
	if goal > defaultHeapMinimum && goal-defaultHeapMinimum > maxTrigger {
		maxTrigger = goal - defaultHeapMinimum
	}
	maxTrigger = max(maxTrigger, minTrigger)

	if c.runway > goal {
		trigger = minTrigger
	} else {
		trigger = goal - c.runway
	}
	trigger = min(max(trigger, minTrigger), maxTrigger)
	if trigger > goal {
		throw(fmt.Sprintf("produced a trigger greater than the heap goal: trigger=%d heapGoal=%d minTrigger=%d maxTrigger=%d", trigger, goal, minTrigger, maxTrigger))
	}
	return trigger, goal
}

// startCycle resets the cycle's counters and splits the background mark
// work among procs Ps: dedicated workers, rounded to a quarter of procs,
// and a fractional goal when the rounding is off by more than 30%.
// Mirrors gcControllerState.startCycle (without GODEBUG=gcstoptheworld).
func (c *gcControllerState) startCycle(markStartTime int64, procs int) {
	c.heapScanWork, c.stackScanWork, c.globalsScanWork = 0, 0, 0
	c.assistTime, c.idleMarkTime = 0, 0
	c.bgScanCredit = 0
	c.markStartTime = markStartTime
	c.triggered = c.heapLive

	total := float64(procs) * gcBackgroundUtilization
	dedicated := int64(total + 0.5)
	if utilError := float64(dedicated)/total - 1; utilError < -maxUtilError || utilError > maxUtilError {
		// Rounding missed by too much: round down and make up the rest
		// with fractional workers on the other Ps.
		if float64(dedicated) > total {
			dedicated--
		}
		c.fractionalUtilizationGoal = (total - float64(dedicated)) / float64(procs)
	} else {
		c.fractionalUtilizationGoal = 0
	}
	c.dedicatedMarkWorkersNeeded = dedicated
	c.revise(0)
}

// revise sets the assist ratio from the scan work done so far this cycle
// (work): the scan work left, over the bytes the program may still
// allocate before the heap reaches its goal, so that the mark finishes
// at the goal if every byte allocated pays its share. When the cycle has
// already done more work than the last one marked, the heap is growing:
// the goal is stretched in proportion, up to (1+GOGC/100) times; past
// the goal, the goal gets 10% more and the work left is the worst case.
// Go calls it when the mark starts, each time heapLive changes during
// the mark and when the goal is recommitted, and so does the model
// (mgc.go's mallocgc and gcControllerCommit); the assists and the
// workers' credit use the ratio it last set. Mirrors
// gcControllerState.revise.
func (c *gcControllerState) revise(work int64) {
	gcPercent := c.gcPercent
	if gcPercent < 0 {
		gcPercent = 100000 // a forced cycle with GOGC off: as if GOGC were huge
	}
	live := c.heapLive
	heapGoal := int64(c.heapGoal())

	// The work expected: the last cycle's heap and stacks and the globals.
	scanWorkExpected := int64(c.lastHeapScan + c.lastStackScan + c.globalsScan)
	// The worst case: every scannable byte and every stack live.
	maxScanWork := int64(c.heapScan + c.maxStackScan + c.globalsScan)
	if work > scanWorkExpected {
		// More work than expected: the heap grew. Stretch the runway
		// from the trigger to the goal over the worst case, bounded by
		// the hard goal.
		extHeapGoal := int64(float64(heapGoal-int64(c.triggered))/float64(scanWorkExpected)*float64(maxScanWork)) + int64(c.triggered)
		scanWorkExpected = maxScanWork
		hardGoal := int64((1.0 + float64(gcPercent)/100.0) * float64(heapGoal))
		heapGoal = min(extHeapGoal, hardGoal)
	}
	if int64(live) > heapGoal {
		// Past even that goal: 10% more, and the worst case of work.
		const maxOvershoot = 1.1
		heapGoal = int64(float64(heapGoal) * maxOvershoot)
		scanWorkExpected = maxScanWork
	}

	scanWorkRemaining := max(scanWorkExpected-work, 1000)
	heapRemaining := max(heapGoal-int64(live), 1)
	c.assistWorkPerByte = float64(scanWorkRemaining) / float64(heapRemaining)
	c.assistBytesPerWork = float64(heapRemaining) / float64(scanWorkRemaining)
}

// endCycle measures this cycle's cons/mark ratio, on procs Ps, and updates
// the estimate to the maximum of it and the four before. Mirrors
// gcControllerState.endCycle.
func (c *gcControllerState) endCycle(now int64, procs int) {
	c.lastHeapGoal = c.heapGoal()

	// The background workers are assumed to have met their goal; the
	// assists add theirs.
	assistDuration := now - c.markStartTime
	utilization := gcBackgroundUtilization
	if assistDuration > 0 {
		utilization += float64(c.assistTime) / float64(assistDuration*int64(procs))
	}
	if c.heapLive <= c.triggered {
		// Nothing was allocated during the cycle: nothing to measure.
		return
	}
	idleUtilization := 0.0
	if assistDuration > 0 {
		idleUtilization = float64(c.idleMarkTime) / float64(assistDuration*int64(procs))
	}
	// Bytes allocated per CPU the program had, over bytes scanned per
	// CPU the collector had (idle workers included).
	scanWork := c.heapScanWork + c.stackScanWork + c.globalsScanWork
	current := (float64(c.heapLive-c.triggered) * (utilization + idleUtilization)) /
		(float64(scanWork) * (1 - utilization))

	c.consMark = current
	for _, v := range c.lastConsMark {
		c.consMark = max(c.consMark, v)
	}
	copy(c.lastConsMark[:], c.lastConsMark[1:])
	c.lastConsMark[len(c.lastConsMark)-1] = current
}

// resetLive sets up the next cycle after mark termination: the marked
// heap is what is live now, and scanMarked of it holds pointers. Mirrors
// gcControllerState.resetLive (Go sets heapScan to the heap scan work
// done; here what was allocated black during the mark counts as
// scannable too, if it holds pointers, as it will be scanned next cycle).
func (c *gcControllerState) resetLive(bytesMarked, scanMarked uint64) {
	c.heapMarked = bytesMarked
	c.heapLive = bytesMarked
	c.heapScan = scanMarked
	c.lastHeapScan = uint64(c.heapScanWork)
	c.lastStackScan = uint64(c.stackScanWork)
	c.triggered = ^uint64(0)
}
