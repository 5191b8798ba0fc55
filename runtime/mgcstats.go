// The record of each GC cycle, for the views that show cycles one by one
// (--gctrace's line, the REPL's :gc).
//
// Go keeps what GODEBUG=gctrace=1 prints of a cycle in the work struct
// of mgc.go: the nanotime of each phase's start (tSweepTerm, tMark,
// tMarkTerm, tEnd), the heap at three points (heap0 when the cycle
// starts, heap1 at mark termination, heap2 the bytes marked), the procs
// (stwprocs, maxprocs), the CPU of each kind of marking (the
// gcController's assistTime, dedicatedMarkTime, fractionalMarkTime,
// idleMarkTime) and the cumulative CPU statistics (cpuStats) behind
// gc_cpu_fraction; gcMarkTermination prints them. Here the same numbers
// come from the model: gcStart and gcMarkDone (mgc.go) each call two small
// hooks of this file, which fill a GCCycleStats on the virtual clock, and
// the last hands the finished record to the function set with
// Machine.OnGCCycle.
//
// The CPU statistics follow cpuStats: a pause counts its length times
// GOMAXPROCS (accumulateGCPauseTime with maxprocs), marking counts the
// time each worker and assist marked, and the total CPU is GOMAXPROCS
// integrated over the virtual time since the run began, kept up to date
// by procresize (sched.totaltime, sched.procresizetime).
//
// Invariants:
//
//   - between gcStatsStart and gcStatsDone of a cycle, cur.N is that
//     cycle's number; no other cycle starts meanwhile (mgc.go);
//   - totalTime + (now - resizeTime) × gomaxprocs is the CPU time the
//     process's Ps had since the run began.

package runtime

// GCCycleStats is one GC cycle as Go's gctrace line tells it: when each
// phase began, the heap at its start, at mark termination and marked, the
// CPU each kind of marking took, and the pacer's numbers at its end. Times
// are virtual ns since the run began. Mirrors the fields of mgc.go's work
// that gcMarkTermination prints.
type GCCycleStats struct {
	N      int64 // the cycle's number, from 1 (memstats.numgc once it ends)
	Forced bool  // started by GC, runtime.GC (work.userForced)

	Start         int64 // when it began, before sweep termination's stop-the-world (work.tSweepTerm)
	MarkStart     int64 // when the concurrent mark began, the world started again (work.tMark)
	MarkTermStart int64 // when mark termination began, before its stop-the-world (work.tMarkTerm)
	End           int64 // when the world started after mark termination (work.tEnd)

	Procs    int32 // GOMAXPROCS during the cycle (work.maxprocs)
	STWProcs int32 // the CPUs the pauses used: Procs, at most the machine's CPUs (work.stwprocs)

	AssistTime     int64 // ns of mark assists (gcController.assistTime)
	DedicatedTime  int64 // ns dedicated workers marked (dedicatedMarkTime)
	FractionalTime int64 // ns fractional workers marked (fractionalMarkTime)
	IdleTime       int64 // ns idle workers marked (idleMarkTime)

	HeapStart    uint64 // heapLive when the cycle began (work.heap0)
	HeapMarkTerm uint64 // heapLive at mark termination (work.heap1)
	HeapMarked   uint64 // the bytes the cycle marked (work.heap2, bytesMarked)
	HeapGoal     uint64 // the goal the cycle ran against (gcController.lastHeapGoal)
	Stacks       uint64 // the stack bytes it scanned (lastStackScan)
	Globals      uint64 // the globals it scanned (globalsScan)

	// CPUFraction is the share of the process's CPU the collector has
	// used since the run began, idle marking left out, as of this
	// cycle's end (memstats.gc_cpu_fraction).
	CPUFraction float64
}

// SweepTermPause is the cycle's first stop-the-world, sweep termination,
// in ns.
func (c *GCCycleStats) SweepTermPause() int64 { return c.MarkStart - c.Start }

// MarkTime is the clock time of the concurrent mark, in ns.
func (c *GCCycleStats) MarkTime() int64 { return c.MarkTermStart - c.MarkStart }

// MarkTermPause is the cycle's second stop-the-world, mark termination,
// in ns.
func (c *GCCycleStats) MarkTermPause() int64 { return c.End - c.MarkTermStart }

// gcCycleState is the record of the cycle under way and what the CPU
// fraction accumulates over the run.
type gcCycleState struct {
	cur     GCCycleStats        // the cycle under way, or the last one
	done    bool                // cur has ended
	stage   gcStage             // where the cycle under way is
	onCycle func(*GCCycleStats) // Machine.OnGCCycle's function, or nil

	// cpuStats, cumulative since the run began.
	gcTime     int64 // GC CPU less idle marking: pauses × GOMAXPROCS, assists, dedicated and fractional marking
	totalTime  int64 // CPU of the Ps up to resizeTime (sched.totaltime)
	resizeTime int64 // when GOMAXPROCS last changed (sched.procresizetime)
}

// gcStage is where a cycle is: Go's gcphase, with the two pauses told
// apart.
type gcStage uint8

// The stages of a cycle.
const (
	gcStageOff       gcStage = iota // no cycle (_GCoff)
	gcStageSweepTerm                // sweep termination: the first stop-the-world
	gcStageMark                     // the concurrent mark (_GCmark)
	gcStageMarkTerm                 // mark termination: the second stop-the-world (_GCmarktermination)
)

var gcStageNames = [...]string{"off", "sweep termination", "mark", "mark termination"}

// OnGCCycle sets a function called at the end of each GC cycle, after
// mark termination has started the world again, with the cycle's record
// (--gctrace prints its line from it). The record is only valid during
// the call. nil stops the calls.
func (m *Machine) OnGCCycle(f func(c *GCCycleStats)) { m.gcCycle.onCycle = f }

// LastGCCycle returns the record of the last GC cycle, or of the cycle
// under way when ok is false for it: done reports whether it has ended.
// Before the first cycle it returns the zero record and false, false.
func (m *Machine) LastGCCycle() (c GCCycleStats, done, ok bool) {
	if m.gcCycle.cur.N == 0 {
		return GCCycleStats{}, false, false
	}
	return m.gcCycle.cur, m.gcCycle.done, true
}

// gcStatsProcResize brings the total CPU up to now before GOMAXPROCS
// changes from old. Mirrors procresize's sched.totaltime update.
func (m *Machine) gcStatsProcResize(old int32) {
	s := &m.gcCycle
	s.totalTime += int64(old) * (m.now - s.resizeTime)
	s.resizeTime = m.now
}

// gcStatsStart opens the record of cycle n, which g's gcStart is about
// to run. Mirrors gcStart's work.tSweepTerm, heap0, stwprocs, maxprocs
// and userForced.
func (m *Machine) gcStatsStart(forced bool) {
	procs := m.gomaxprocs
	stwProcs := procs
	if n := int32(m.cfg.CPUs); n > 0 && n < stwProcs {
		stwProcs = n // numCPUStartup
	}
	m.gcCycle.cur = GCCycleStats{
		N:         m.gc.cycles,
		Forced:    forced,
		Start:     m.now,
		Procs:     procs,
		STWProcs:  stwProcs,
		HeapStart: m.gc.ctl.heapLive,
	}
	m.gcCycle.done = false
	m.gcCycle.stage = gcStageSweepTerm
	m.gc.markTime = [3]int64{} // a cycle without workers marks nothing (startCycle's reset)
}

// gcStatsMarkStart marks the end of sweep termination: the world starts
// again with the mark on. Mirrors gcStart's work.tMark.
func (m *Machine) gcStatsMarkStart() {
	m.gcCycle.cur.MarkStart = m.now
	m.gcCycle.stage = gcStageMark
}

// gcStatsMarkTerm marks the start of mark termination, before its
// stop-the-world. Mirrors gcMarkDone's work.tMarkTerm; heap1, which Go
// reads with the world stopped, is the same here, as nothing allocates
// during the pause.
func (m *Machine) gcStatsMarkTerm() {
	c := &m.gcCycle.cur
	c.MarkTermStart = m.now
	c.HeapMarkTerm = m.gc.ctl.heapLive
	m.gcCycle.stage = gcStageMarkTerm
}

// gcStatsDone closes the record once mark termination has started the
// world: the heap marked, the pacer's numbers, the CPU of the cycle's
// marking and the run's GC CPU fraction, and hands it to OnGCCycle's
// function. Mirrors the end of gcMarkTermination (work.tEnd, heap2,
// cpuStats.accumulate, gc_cpu_fraction) up to its gctrace print.
func (m *Machine) gcStatsDone(marked uint64) {
	s := &m.gcCycle
	c := &s.cur
	ctl := &m.gc.ctl
	c.End = m.now
	c.HeapMarked = marked
	c.HeapGoal = ctl.lastHeapGoal
	c.Stacks = ctl.lastStackScan
	c.Globals = ctl.globalsScan
	c.AssistTime = ctl.assistTime
	c.DedicatedTime = m.gc.markTime[gcMarkWorkerDedicated-1]
	c.FractionalTime = m.gc.markTime[gcMarkWorkerFractional-1]
	c.IdleTime = m.gc.markTime[gcMarkWorkerIdle-1]
	pauses := c.SweepTermPause() + c.MarkTermPause()
	s.gcTime += pauses*int64(c.Procs) + c.AssistTime + c.DedicatedTime + c.FractionalTime
	total := s.totalTime + (m.now-s.resizeTime)*int64(m.gomaxprocs)
	c.CPUFraction = 0
	if total > 0 {
		c.CPUFraction = float64(s.gcTime) / float64(total)
	}
	s.done = true
	s.stage = gcStageOff
	if s.onCycle != nil {
		s.onCycle(c)
	}
}

// GCNow is what the collector is doing at one instant, for the REPL's :gc:
// Go's gcphase, with the two pauses told apart, and who marks.
type GCNow struct {
	Phase       string // "off", "sweep termination", "mark" or "mark termination" (gcphase: _GCoff, the first pause, _GCmark, _GCmarktermination)
	Cycle       int64  // the cycle under way, or the last one; 0 before the first
	Workers     [3]int // mark workers given a mode now (marking, or taken to mark), by mode: dedicated, fractional, idle
	Assisting   int    // goroutines in a mark assist (gp.inMarkAssist), parked ones included
	AssistQueue int    // goroutines parked on the assist queue, in debt (work.assistQueue)
	MarkLeft    int64  // units of scan work no worker or assist has taken yet this cycle
}

// GCNow returns what the collector is doing now.
func (m *Machine) GCNow() GCNow {
	s := &m.gcCycle
	n := GCNow{Phase: gcStageNames[s.stage], Cycle: s.cur.N}
	if s.stage != gcStageOff {
		n.MarkLeft = m.gc.markLeft
	}
	for _, wp := range m.gc.workers {
		if wp.markMode != gcMarkWorkerNotWorker {
			n.Workers[wp.markMode-1]++
		}
	}
	for _, gp := range m.allg {
		if gp.inMarkAssist && gp.status != Gdead {
			n.Assisting++
		}
	}
	n.AssistQueue = int(m.gc.assistQueue.size)
	return n
}

// GCWorkerMode returns the mode of a mark worker that marks, or is taken
// to mark, now: "dedicated", "fractional" or "idle"; "" for any other G
// (the P's gcMarkWorkerMode, which Go's trace labels "GC (dedicated)").
func (g *G) GCWorkerMode() string { return g.markMode.String() }
