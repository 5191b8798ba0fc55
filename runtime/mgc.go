// The garbage collector's side of the Machine: the heap the program
// allocates, and the cycles the pacer starts.
//
// A Go program's heap grows by every allocation (mallocgc) and shrinks
// only when a cycle has marked what is still reachable and the sweeper
// has freed the rest. The pacer (mgcpacer.go) counts the heap as
// heapLive: the bytes the last cycle marked plus every byte allocated
// since. When heapLive reaches the trigger, the allocation that crossed
// it starts a cycle (mallocgc → gcTrigger{kind: gcTriggerHeap}.test →
// gcStart), and runtime.GC starts one whatever the heap
// (gcTriggerCycle).
//
// A Starlark value has no size the program can reason about, so the
// script says what it allocates (the language's alloc, retain and
// release):
//
//   - Alloc(n) is an object that dies young: it adds n to heapLive and is
//     garbage by the next cycle;
//   - Retain(n) is an object that stays reachable: it adds n to heapLive
//     and to the retained heap, which the next cycle marks;
//   - ReleaseHeap(n) drops the last reference to n retained bytes: they stay
//     in heapLive, as garbage, until a cycle finds them unmarked (freeing
//     memory does not shrink the heap in Go either).
//
// Go checks the trigger when an mcache refills a span, so a cycle can
// start a span's worth of bytes late; here every allocation checks it.
//
// The cycle. Until the phases of a cycle are modelled (its two
// stop-the-world pauses, the mark workers on Ps, assists, the sweep), a
// cycle is instantaneous and changes no schedule: gcStart calls
// startCycle (which computes the worker split, kept for stats), the mark
// finds the retained heap, the goroutines' stacks and the globals
// (gcMarkDone → endCycle), and mark termination resets the pacer to the
// marked heap (resetLive) and commits the next goal and trigger
// (gcControllerCommit), with the sweep just begun as in Go
// (commit(isSweepDone() == false)). A program that never allocates never
// reaches the trigger and schedules exactly as before; so does one that
// allocates, since an instant cycle moves no clock and takes no P.
//
// Invariants:
//
//   - 0 <= retained and retained <= heapLive: retained bytes were counted
//     into heapLive when retained, and a cycle resets heapLive to them;
//   - no cycle is running between two builtin calls (gcphase == _GCoff):
//     a cycle starts and ends within the call that triggers it.

package runtime

import (
	"fmt"
	"math"
)

// gcState is the heap and the collector's part of the Machine.
type gcState struct {
	ctl      gcControllerState // the pacer (gcController)
	retained int64             // bytes retained and not released: what the next mark finds

	cycles         int64   // cycles started (work.cycles)
	forced         int64   // of those, by GC (runtime.GC, work.userForced)
	lastDedicated  int64   // the last cycle's dedicated workers
	lastFractional float64 // and its fractional utilization goal
}

// initGC sets up the heap and the pacer with the configuration's GOGC and
// memory limit (gcinit: gcController.init(readGOGC(), readGOMEMLIMIT())).
func (m *Machine) initGC() {
	gogc := int32(DefaultGOGC)
	if m.cfg.GOGC != nil {
		gogc = *m.cfg.GOGC
	}
	limit := int64(NoMemoryLimit)
	if m.cfg.MemoryLimit != nil {
		limit = *m.cfg.MemoryLimit
	}
	m.gc.ctl.init(gogc, limit)
}

// stackBytes is the stack memory of the goroutines alive now: fixedStack
// each, the runtime's own included (they are scanned too).
func (m *Machine) stackBytes() uint64 {
	return uint64(m.ngalive+m.ngsys) * fixedStack
}

// gcSyncMapped brings the memory limit's input up to date: the mapped
// memory is the heap (allocated and not yet swept) and the stacks.
func (m *Machine) gcSyncMapped() {
	c := &m.gc.ctl
	c.mappedReady = c.totalAlloc - c.totalFree + m.stackBytes()
}

// mallocgc counts n more bytes of heap, retained or not, and starts a
// cycle if the heap has reached the trigger. The caller has checked n.
// Mirrors mallocgc's accounting (gcController.update, memstats'
// totalAlloc) and its trigger test (gcTrigger.test with gcTriggerHeap).
func (m *Machine) mallocgc(n int64, retain bool) {
	c := &m.gc.ctl
	c.heapLive += uint64(n)
	c.totalAlloc += uint64(n)
	if retain {
		m.gc.retained += n
	}
	m.gcSyncMapped()
	if trigger, _ := c.trigger(); c.heapLive >= trigger {
		m.gcStart(false)
	}
}

// gcStart runs one cycle, started by the heap reaching the trigger or
// forced by GC. The cycle is instantaneous (see the top of the file).
// Mirrors gcStart, gcMarkDone and gcMarkTermination's pacer calls.
func (m *Machine) gcStart(forced bool) {
	c := &m.gc.ctl
	procs := int(m.gomaxprocs)
	m.gcSyncMapped()

	// Sweep termination, then the start of the mark.
	c.startCycle(m.now, procs)
	m.gc.cycles++
	if forced {
		m.gc.forced++
	}
	m.gc.lastDedicated = c.dedicatedMarkWorkersNeeded
	m.gc.lastFractional = c.fractionalUtilizationGoal

	// The mark: the retained heap, every goroutine's stack, the globals.
	marked := uint64(m.gc.retained)
	c.heapScanWork = int64(marked)
	c.stackScanWork = int64(m.stackBytes())
	c.globalsScanWork = int64(c.globalsScan)
	c.endCycle(m.now, procs)

	// Mark termination: the unmarked bytes are garbage, which the sweep
	// frees; the pacer starts over from the marked heap.
	c.totalFree += c.heapLive - marked
	c.resetLive(marked)
	m.gcSyncMapped()
	c.commit(false)
}

// checkSize returns an error unless n bytes can be added to a heap of
// live bytes.
func checkSize(n int64, live uint64) error {
	if n < 0 {
		return fmt.Errorf("negative size %d", n)
	}
	if live > math.MaxInt64 || uint64(n) > math.MaxInt64-live {
		return fmt.Errorf("the heap would overflow: %d bytes on a heap of %d", n, live)
	}
	return nil
}

// Alloc allocates n bytes that die young: garbage by the next cycle
// (mallocgc of an object nothing keeps). It may start a cycle.
func (g *G) Alloc(n int64) error {
	g.check()
	if err := checkSize(n, g.m.gc.ctl.heapLive); err != nil {
		return err
	}
	g.m.mallocgc(n, false)
	return nil
}

// Retain allocates n bytes that stay reachable until ReleaseHeap (mallocgc of
// an object the program keeps): the live heap that every cycle marks. It
// may start a cycle.
func (g *G) Retain(n int64) error {
	g.check()
	if err := checkSize(n, g.m.gc.ctl.heapLive); err != nil {
		return err
	}
	g.m.mallocgc(n, true)
	return nil
}

// ReleaseHeap drops n retained bytes: the next cycle does not mark them.
// The heap does not shrink before that cycle.
func (g *G) ReleaseHeap(n int64) error {
	g.check()
	if n < 0 {
		return fmt.Errorf("negative size %d", n)
	}
	if n > g.m.gc.retained {
		return fmt.Errorf("%d bytes released, but only %d retained", n, g.m.gc.retained)
	}
	g.m.gc.retained -= n
	return nil
}

// GC runs a garbage collection cycle now, whatever the heap
// (runtime.GC: gcStart with gcTriggerCycle).
func (g *G) GC() {
	g.check()
	g.m.gcStart(true)
}

// SetGCPercent sets GOGC and returns the previous value; a negative
// percent turns the collector off (-1), as debug.SetGCPercent does.
// Mirrors setGCPercent: gcController.setGCPercent, then
// gcControllerCommit with the sweep done (the model sweeps at once).
func (g *G) SetGCPercent(percent int32) int32 {
	g.check()
	c := &g.m.gc.ctl
	out := c.setGCPercent(percent)
	g.m.gcSyncMapped()
	c.commit(true)
	return out
}

// SetMemoryLimit sets the soft memory limit in bytes and returns the
// previous one; a negative limit only asks (debug.SetMemoryLimit).
// Mirrors setMemoryLimit.
func (g *G) SetMemoryLimit(limit int64) int64 {
	g.check()
	c := &g.m.gc.ctl
	out := c.setMemoryLimit(limit)
	g.m.gcSyncMapped()
	c.commit(true)
	return out
}

// GCStats is the heap and the collector at one instant.
type GCStats struct {
	Cycles       int64   // cycles started, forced ones included
	Forced       int64   // cycles started by runtime.GC
	GOGC         int32   // the GC percent; -1 is off
	MemoryLimit  int64   // the soft memory limit in bytes; NoMemoryLimit for none
	HeapLive     uint64  // the pacer's heapLive: marked by the last cycle plus allocated since
	HeapMarked   uint64  // the heap the last cycle marked
	Retained     int64   // bytes retained and not released
	HeapGoal     uint64  // the heap goal now
	Trigger      uint64  // the heap size at which the next cycle starts
	LastHeapGoal uint64  // the heap goal when the last cycle ended
	TotalAlloc   uint64  // bytes ever allocated
	Stacks       uint64  // the goroutines' stacks the pacer counts
	Globals      uint64  // the globals it counts
	Dedicated    int64   // the last cycle's dedicated mark workers
	Fractional   float64 // the last cycle's fractional utilization goal per P
}

// GCStats returns the heap and the collector's counters.
func (m *Machine) GCStats() GCStats {
	c := &m.gc.ctl
	m.gcSyncMapped()
	trigger, goal := c.trigger()
	return GCStats{
		Cycles:       m.gc.cycles,
		Forced:       m.gc.forced,
		GOGC:         c.gcPercent,
		MemoryLimit:  c.memoryLimit,
		HeapLive:     c.heapLive,
		HeapMarked:   c.heapMarked,
		Retained:     m.gc.retained,
		HeapGoal:     goal,
		Trigger:      trigger,
		LastHeapGoal: c.lastHeapGoal,
		TotalAlloc:   c.totalAlloc,
		Stacks:       m.stackBytes(),
		Globals:      c.globalsScan,
		Dedicated:    m.gc.lastDedicated,
		Fractional:   m.gc.lastFractional,
	}
}
