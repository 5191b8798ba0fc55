// The GC CPU limiter: a cap on the CPU the collector may take, so that a
// program near its memory limit does not spend all its time collecting.
//
// Under a memory limit below what the program keeps live, the heap goal
// is the marked heap and every allocation starts a cycle: the collector
// runs continuously, and without a cap its assists would take all the
// CPU the program has (a death spiral). Go 1.19 added the limiter
// (mgclimit.go, gcCPULimiterState), a leaky bucket of CPU time:
//
//   - the collector's CPU time fills it: a quarter of GOMAXPROCS while the
//     mark is on (the background workers' share, gcBackgroundUtilization,
//     whether or not they ran), every assist, and every P for the whole
//     of a stop-the-world (finishGCTransition);
//   - the program's CPU time drains it: the rest of the time of
//     GOMAXPROCS Ps, less the time Ps spent idle and the idle mark
//     workers' time, which the program did not want;
//   - the bucket holds one second of CPU per P (capacityPerProc); it never
//     goes below empty, so the collector gets no credit for a quiet past;
//   - while the bucket is full the limiter is on (limiting): goroutines
//     do not assist (gcAssistAlloc returns at once, gcDrainN stops), so
//     the collector is held near half the CPU over the bucket's window,
//     and the heap may grow past the memory limit; what did not fit in
//     the bucket is its overflow.
//
// The bucket is brought up to date (update) at most every 10ms when
// findRunnableGCWorker looks for a worker, after each assist, and at each
// transition of the collector (the stop-the-worlds that start and end the
// mark). Time in flight then is counted up to now: each P has at most one
// event open (limiterEvent: idle on the list, an idle mark worker, an
// assist), which update consumes.
//
// The limiter runs only under --gc-cycle=mark: the other models have no
// mark time and no assists, so it could change nothing. What is left out:
// the scavenger's assists, the other source of limited CPU in Go.
//
// Invariants: fill <= capacity; enabled is true exactly when the last
// accumulate left the bucket full; a P's limiter event is open only
// while the P is idle, runs an idle worker or an assist.

package runtime

// capacityPerProc is the limiter's bucket capacity for each P: one second
// of CPU (mgclimit.go's capacityPerProc).
const capacityPerProc = 1e9

// gcCPULimiterUpdatePeriod is the most time between two updates of the
// limiter when findRunnableGCWorker looks (10ms).
const gcCPULimiterUpdatePeriod = 10e6

// gcAssistTimeSlack is how much assist time a P gathers before the
// limiter is told (mgcpacer.go's gcAssistTimeSlack).
const gcAssistTimeSlack = 5000

// gcCPULimiterState is the limiter. Mirrors gcCPULimiterState; one
// goroutine runs at a time, so nothing is atomic and there is no lock.
type gcCPULimiterState struct {
	enabled       bool  // the bucket is full: no assists (limiting)
	gcEnabled     bool  // the mark is on: the background share counts (gcBlackenEnabled's copy)
	transitioning bool  // between startGCTransition and finishGCTransition
	fill          int64 // GC CPU time in the bucket, ns, 0 <= fill <= capacity
	capacity      int64 // capacityPerProc per P
	overflow      int64 // GC CPU time that did not fit in the full bucket
	assistPool    int64 // assist time since the last update (assistTimePool)
	idlePool      int64 // idle P and idle mark time since the last update (idleTimePool)
	lastUpdate    int64 // when the bucket was last brought up to date
	nprocs        int32 // GOMAXPROCS, for the time there was

	lastEnabledCycle int64 // the GC cycle during which the limiter last turned on (0: never)
	broken           bool  // tests only: never on (a broken limiter the tests must see)
}

// limiterEventType is what a P's open limiter event counts. Mirrors
// limiterEventType.
type limiterEventType uint8

// The limiter's events.
const (
	limiterEventNone         limiterEventType = iota
	limiterEventIdleMarkWork                  // an idle mark worker: idle time
	limiterEventMarkAssist                    // a mark assist: GC time
	limiterEventIdle                          // the P on the idle list: idle time
)

// limiterEvent is a P's open event: its type and when it started or was
// last consumed. Mirrors limiterEvent (a stamp there).
type limiterEvent struct {
	typ   limiterEventType
	start int64
}

// limiterOn reports whether the limiter is kept: only under GCMark.
func (m *Machine) limiterOn() bool { return m.cfg.GCCycle == GCMark }

// limiting reports whether the limiter is on. Mirrors
// gcCPULimiterState.limiting.
func (l *gcCPULimiterState) limiting() bool { return l.enabled }

// limiterStart opens pp's limiter event of type typ at the current time,
// unless one is open already, and reports whether it did. Mirrors
// limiterEvent.start.
func (m *Machine) limiterStart(pp *P, typ limiterEventType) bool {
	if !m.limiterOn() || pp.limiterEvent.typ != limiterEventNone {
		return false
	}
	pp.limiterEvent = limiterEvent{typ, m.now}
	return true
}

// limiterStop closes pp's limiter event of type typ and adds its time to
// the pool it belongs to. Mirrors limiterEvent.stop.
func (m *Machine) limiterStop(pp *P, typ limiterEventType) {
	if !m.limiterOn() {
		return
	}
	ev := pp.limiterEvent
	if ev.typ != typ {
		throw("limiterEvent.stop: found wrong event in p's limiter event slot")
	}
	pp.limiterEvent = limiterEvent{}
	d := max(m.now-ev.start, 0)
	switch typ {
	case limiterEventIdle, limiterEventIdleMarkWork:
		m.gc.limiter.idlePool += d
	case limiterEventMarkAssist:
		m.gc.limiter.assistPool += d
	}
}

// limiterStopIdle closes pp's idle event, if it has one (a P taken off
// the idle list). Mirrors pidleget's limiterEvent.stop.
func (m *Machine) limiterStopIdle(pp *P) {
	if pp.limiterEvent.typ == limiterEventIdle {
		m.limiterStop(pp, limiterEventIdle)
	}
}

// limiterCycle is the cycle the limiter's lastEnabledCycle names: the
// one after the last that ended (memstats.numgc + 1).
func (m *Machine) limiterCycle() int64 { return m.gc.ended + 1 }

// limiterUpdate brings the bucket up to date at the current time, the
// events still open counted up to now. Mirrors gcCPULimiterState.update
// and updateLocked.
func (m *Machine) limiterUpdate() {
	l := &m.gc.limiter
	if !m.limiterOn() || l.transitioning {
		return
	}
	m.limiterUpdateLocked()
}

// limiterUpdateLocked is limiterUpdate's work, also done at a
// transition's start.
func (m *Machine) limiterUpdateLocked() {
	l := &m.gc.limiter
	now := m.now
	if now < l.lastUpdate {
		return
	}
	windowTotal := (now - l.lastUpdate) * int64(l.nprocs)
	l.lastUpdate = now
	assist, idle := l.assistPool, l.idlePool
	l.assistPool, l.idlePool = 0, 0
	for _, pp := range m.allp[:m.gomaxprocs] {
		ev := &pp.limiterEvent
		if ev.typ == limiterEventNone {
			continue
		}
		d := max(now-ev.start, 0)
		ev.start = now
		switch ev.typ {
		case limiterEventIdle, limiterEventIdleMarkWork:
			idle += d
		case limiterEventMarkAssist:
			assist += d
		}
	}
	windowGC := assist
	if l.gcEnabled {
		windowGC += int64(float64(windowTotal) * gcBackgroundUtilization)
	}
	// Idle time is subtracted after the background share is taken: that
	// share is of the real total.
	windowTotal -= idle
	l.accumulate(windowTotal-windowGC, windowGC, m.limiterCycle())
}

// accumulate adds gcTime to the bucket and drains mutatorTime from it,
// and turns the limiter on when the bucket is full, off when it is not.
// Mirrors gcCPULimiterState.accumulate.
func (l *gcCPULimiterState) accumulate(mutatorTime, gcTime, cycle int64) {
	headroom := l.capacity - l.fill
	enabled := headroom == 0
	change := gcTime - mutatorTime
	if change > 0 && headroom <= change && !l.broken {
		l.overflow += change - headroom
		l.fill = l.capacity
		if !enabled {
			l.enabled = true
			l.lastEnabledCycle = cycle
		}
		return
	}
	if change < 0 && l.fill <= -change {
		l.fill = 0
	} else {
		l.fill += change
	}
	if change != 0 && enabled {
		l.enabled = false
	}
}

// limiterStartGCTransition flushes the bucket at the start of a
// stop-the-world that turns the mark on (enableGC) or off. Mirrors
// startGCTransition.
func (m *Machine) limiterStartGCTransition(enableGC bool) {
	l := &m.gc.limiter
	if !m.limiterOn() {
		return
	}
	if l.gcEnabled == enableGC {
		throw("transitioning GC to the same state as before?")
	}
	m.limiterUpdateLocked()
	l.gcEnabled = enableGC
	l.transitioning = true
}

// limiterFinishGCTransition counts the stop-the-world since the
// transition started as GC time on every P: the program could not run.
// Mirrors finishGCTransition.
func (m *Machine) limiterFinishGCTransition() {
	l := &m.gc.limiter
	if !m.limiterOn() {
		return
	}
	if !l.transitioning {
		throw("finishGCTransition called without starting one?")
	}
	if now := m.now; now >= l.lastUpdate {
		l.accumulate(0, (now-l.lastUpdate)*int64(l.nprocs), m.limiterCycle())
	}
	l.lastUpdate = m.now
	l.transitioning = false
}

// limiterResetCapacity sets the bucket's capacity for nprocs Ps, after
// counting the time so far with the old number. Mirrors resetCapacity,
// which procresize calls when GOMAXPROCS changes.
func (m *Machine) limiterResetCapacity(nprocs int32) {
	l := &m.gc.limiter
	if !m.limiterOn() {
		return
	}
	if l.nprocs > 0 && !l.transitioning {
		m.limiterUpdateLocked()
	}
	l.nprocs = nprocs
	l.capacity = int64(nprocs) * capacityPerProc
	if l.fill > l.capacity {
		l.fill = l.capacity
		l.enabled = true
		l.lastEnabledCycle = m.limiterCycle()
	} else if l.fill < l.capacity {
		l.enabled = false
	}
}
