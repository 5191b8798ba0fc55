// Scheduler variants: Go's rejected designs, as rules one can switch.
//
// proc.go's essay "Worker thread parking/unparking" weighs how many threads
// to keep awake against how fast a readied goroutine gets a thread, and
// names three approaches it rejected before settling on spinning Ms:
//
//  1. Centralise all scheduler state: "would inhibit scalability". Go 1.0
//     had one run queue under sched.lock and no per-P queues (Ps came with
//     Go 1.1's scheduler).
//  2. Direct goroutine hand-off: "unpark an idle P and a thread and hand off
//     the readied goroutine to it. This would lead to thread state
//     thrashing, as the thread that readied the goroutine can be out of
//     work the very next moment, we will need to park it. Also, it would
//     destroy locality of computation as we want to preserve dependent
//     goroutines on the same thread; and introduce additional latency."
//  3. Unpark an additional thread whenever a goroutine is readied while a P
//     is idle, without the hand-off: "This would lead to excessive thread
//     parking/unparking as the additional threads will instantly park
//     without discovering any work to do."
//
// The current design wakes a thread only when there is an idle P and no
// spinning M (wakep), and a spinning M that finds work wakes the next one
// (resetspinning).
//
// A Policy names one variant. Each variant changes exactly one rule, at
// the one decision point that rule lives in, and the rest of the scheduler
// is the same code:
//
//	central     runqput puts every G on the global queue, and findRunnable
//	            takes one G at a time from it (globrunqBatch): no per-P
//	            queues, no runnext (putsRunnext)
//	handoff     ready and newproc give the G to an idle P and start a
//	            thread for it (handoffP), instead of queueing it locally and
//	            calling wakep
//	eager       ready and newproc start a thread for an idle P even while
//	            an M spins (wakepReady)
//	no-runnext  no G goes to runnext (putsRunnext)
//	no-steal    stealWork steals nothing, and a spinning M that drops its P
//	            looks again only at the global queue (steals)
//	runq=N      the local ring holds N Gs instead of 256 (runqCap)
//
// The default, go, changes nothing.
//
// SchedStats counts what the essay predicts: thread parks and unparks,
// wake-ups that found nothing, the virtual time spent waking threads, how
// often a readied G runs on the P of the G that readied it, and how often
// the global queue's lock changes hands between threads.

package runtime

import (
	"fmt"
	"strconv"
	"strings"
)

// A Policy is a scheduler variant (--sched). The zero value is Go's own
// scheduler.
type Policy struct {
	Central   bool // one global queue under one lock, no per-P queues (Go 1.0)
	Handoff   bool // hand a readied G directly to a newly woken thread on an idle P
	Eager     bool // wake a thread on every ready while a P is idle, spinning Ms or not
	NoRunnext bool // never put a G in runnext
	NoSteal   bool // never steal from another P
	RunqSize  int  // the local ring's capacity, 1 to 256; 0 means 256
}

// PolicyNames are the variants ParsePolicy takes, as help and errors name
// them.
var PolicyNames = []string{"go", "central", "handoff", "eager", "no-runnext", "no-steal", "runq=N"}

// ParsePolicy returns the variant named s, one of PolicyNames (runq=N with
// N from 1 to 256).
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "go":
		return Policy{}, nil
	case "central":
		return Policy{Central: true}, nil
	case "handoff":
		return Policy{Handoff: true}, nil
	case "eager":
		return Policy{Eager: true}, nil
	case "no-runnext":
		return Policy{NoRunnext: true}, nil
	case "no-steal":
		return Policy{NoSteal: true}, nil
	}
	if v, ok := strings.CutPrefix(s, "runq="); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > runqSize {
			return Policy{}, fmt.Errorf("unknown scheduler variant %q: runq=N wants N from 1 to %d", s, runqSize)
		}
		return Policy{RunqSize: n}, nil
	}
	return Policy{}, fmt.Errorf("unknown scheduler variant %q: want one of %s", s, strings.Join(PolicyNames, ", "))
}

// String returns the policy's name, as ParsePolicy takes it.
func (p Policy) String() string {
	switch {
	case p.Central:
		return "central"
	case p.Handoff:
		return "handoff"
	case p.Eager:
		return "eager"
	case p.NoRunnext:
		return "no-runnext"
	case p.NoSteal:
		return "no-steal"
	case p.RunqSize != 0 && p.RunqSize != runqSize:
		return "runq=" + strconv.Itoa(p.RunqSize)
	}
	return "go"
}

// SchedStats are the counters of the variants (Machine.SchedStats).
type SchedStats struct {
	Parks          int64 // stopm: a thread parked
	Unparks        int64 // startm woke a parked thread
	NewMs          int64 // startm made a new thread (newm)
	SpuriousWakes  int64 // a woken thread parked again before running any G
	WakeupTime     int64 // virtual ns from startm to the thread running schedule, summed
	Readied        int64 // Gs readied by a running G (ready) that have since run
	ReadiedLocal   int64 // of those, the ones that ran on the readying G's P
	LockAcquires   int64 // global queue operations (each takes sched.lock)
	LockHandoffs   int64 // of those, the ones by another thread than the one before
	DirectHandoffs int64 // handoff: Gs handed to a newly woken thread
	EagerWakes     int64 // eager: threads woken that wakep would not have woken
}

// SchedStats returns the variants' counters so far.
func (m *Machine) SchedStats() SchedStats { return m.sstats }

// Policy returns the scheduler variant the Machine runs.
func (m *Machine) Policy() Policy { return m.cfg.Sched }

// initPolicy derives the ring's capacity and the global batch from the
// policy.
func (m *Machine) initPolicy() {
	m.runqCap = runqSize
	if n := m.cfg.Sched.RunqSize; n > 0 && n < runqSize {
		m.runqCap = uint32(n)
	}
	m.globBatch = int32(max(1, m.runqCap/2)) // findRunnable asks for len(runq)/2
	if m.cfg.Sched.Central {
		m.globBatch = 1
	}
}

// putsRunnext reports whether a G readied into runnext goes there: not
// under no-runnext or central, nor when the runnext perturbation flips it
// to the ring (flipRunnext).
func (m *Machine) putsRunnext() bool {
	return m.runnextOn() && !m.flipRunnext()
}

// runnextOn reports whether the variant has runnext at all (not
// no-runnext, not central). A G preempted by a stop-the-world, which Go
// 1.26 keeps in its P's runnext, goes to the global queue without it.
func (m *Machine) runnextOn() bool {
	return !m.cfg.Sched.NoRunnext && !m.cfg.Sched.Central
}

// steals reports whether Ms may steal from other Ps (not under no-steal).
func (m *Machine) steals() bool { return !m.cfg.Sched.NoSteal }

// handoffP is the handoff variant's rule: it takes an idle P for a G just
// made runnable, or returns nil (always, under the other variants). The
// caller queues the G on that P and starts a thread for it.
func (m *Machine) handoffP() *P {
	if !m.cfg.Sched.Handoff {
		return nil
	}
	pp := m.pidleget()
	if pp != nil {
		m.sstats.DirectHandoffs++
	}
	return pp
}

// wakepReady is wakep after ready and newproc. Under eager it starts a
// spinning thread on an idle P even when an M spins already.
func (m *Machine) wakepReady() {
	if m.cfg.Sched.Eager && m.nmspinning != 0 && len(m.pidle) != 0 {
		m.sstats.EagerWakes++
		m.nmspinning++
		m.startm(m.pidleget(), true)
		return
	}
	m.wakep()
}

// schedLock counts one acquisition of sched.lock for the global queue, by
// mp (nil when no thread of the program does it: the host, or a timer or
// sysmon action), and whether it changed hands.
func (m *Machine) schedLock(mp *M) {
	m.sstats.LockAcquires++
	if m.lockHolder != mp || m.sstats.LockAcquires == 1 {
		if m.sstats.LockAcquires > 1 {
			m.sstats.LockHandoffs++
		}
		m.lockHolder = mp
	}
}

// runningM is the M of the goroutine running now, or nil.
func (m *Machine) runningM() *M {
	if m.curg != nil {
		return m.curg.mp
	}
	return nil
}
