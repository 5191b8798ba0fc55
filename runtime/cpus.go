// The machine's CPUs: threads beyond them take turns.
//
// Without Config.CPUs every M has a CPU of its own: a thread that runs is
// on a CPU, however many run. That is the machine Go's scheduler assumes
// when GOMAXPROCS is at most the number of CPUs and nothing else runs.
// With CPUs = N, at most N threads of the process run at a time, and the
// others wait for one of them to stop, or for the OS to take a CPU from a
// thread that has run its time slice. That is what GOMAXPROCS above the
// CPU count does (GOMAXPROCS=24 on a 2-CPU machine), and part of what a
// busy host does to a Go program.
//
// Which threads want a CPU: an M from the moment it starts running
// (schedule, after startm's wake-up, or netpoll's return; exitsyscall,
// when the call returns) until it stops: it parks (stopm, stoplockedm),
// blocks in netpoll (netpollBlockM) or enters a system call
// (entersyscall: the call's time is the kernel's waiting, as in the quota
// model, quota.go). A spinning M wants a CPU as a running one does.
//
// The OS's scheduler is Linux's EEVDF, reduced to what matters here: a
// thread that wants a CPU and finds none waits in a FIFO queue; a thread
// that has run its base slice (sysctl_sched_base_slice, 0.75ms scaled by
// 1 + log2 of the CPUs up to 8: 0.75ms on 1 CPU, 1.5ms on 2, 2.25ms on
// 4, 3ms on 8 or more) while others wait gives its CPU to the queue's
// head and joins its tail. A thread that wakes up does not preempt a
// running one. Taking a CPU away sets the thread's work aside: its G's
// work in progress (or the M's own cost: a switch, a steal pass) stops
// where it is, with what is left, and goes on when the thread runs again;
// a preemption sysmon asks for meanwhile lands then, as the signal is
// delivered when the thread next runs. A thread off its CPU keeps its P:
// its run queue can still be stolen, and sysmon may still retake a P in a
// syscall, but nothing runs on the P until the thread comes back.
//
// Not modelled: CPU affinity and migration costs, the OS's own threads,
// other processes (the CPUs are the process's alone), nice levels, and
// EEVDF's lag and eligibility (every waiter is served in turn).
//
// A run without Config.CPUs has no cpu state and schedules exactly as
// before.

package runtime

import (
	"fmt"
	"math/bits"
	"slices"
)

// baseSlice is Linux's sysctl_sched_base_slice before scaling: 0.75ms.
const baseSlice = 750 * 1000

// osSlice returns the base slice of a machine with n CPUs: 0.75ms times
// 1 + log2(min(n, 8)) (SCHED_TUNABLESCALING_LOG, the default).
func osSlice(n int) int64 {
	return baseSlice * int64(bits.Len(uint(min(n, 8))))
}

// cpuState is the machine's CPUs and the threads that want one.
type cpuState struct {
	n     int   // CPUs
	slice int64 // the OS's time slice
	on    []*M  // on a CPU, in the order they got it
	wait  []*M  // want a CPU and have none, first come first served

	tickGen uint64 // the live actCPUTick carries it
	tickAt  int64  // when the live tick is due; -1 none

	preempts int64 // CPUs taken from threads at the end of their slice
	waited   int64 // ns that threads spent waiting for a CPU, in all
}

// initCPUs sets up the CPUs of Config.CPUs.
func (m *Machine) initCPUs() {
	if m.cfg.CPUs <= 0 {
		return
	}
	m.cpu = &cpuState{n: m.cfg.CPUs, slice: osSlice(m.cfg.CPUs), tickAt: -1}
}

// cpuGet gives mp a CPU, if it has none: a free one, or else mp waits for
// one, and cont runs when it gets it (in an action of its own). It reports
// whether mp has a CPU now; if not, the caller returns at once, leaving
// what it was about to do to cont.
func (m *Machine) cpuGet(mp *M, cont func()) bool {
	c := m.cpu
	if mp.cpuOn {
		return true
	}
	if mp.cpuWaiting {
		throw(fmt.Sprintf("cpuGet: M%d already waits for a CPU", mp.id))
	}
	if len(c.on) < c.n {
		m.cpuPut(mp)
		return true
	}
	m.cpuQueue(mp, cont, "busy")
	m.cpuArm()
	return false
}

// cpuPut puts mp on a free CPU.
func (m *Machine) cpuPut(mp *M) {
	c := m.cpu
	mp.cpuOn = true
	mp.cpuSince = m.now
	c.on = append(c.on, mp)
}

// cpuQueue makes mp wait for a CPU, with cont to run when it gets one.
func (m *Machine) cpuQueue(mp *M, cont func(), why string) {
	c := m.cpu
	mp.cpuWaiting = true
	mp.cpuSince = m.now
	mp.cpuCont = cont
	c.wait = append(c.wait, mp)
	m.emit(EvMOffCPU, mp.p, mp, mp.curg, nil, -1, int64(len(c.wait)), why)
}

// cpuDrop is mp stopping (parking, blocking in netpoll or in a system
// call): its CPU goes to the first thread waiting, or mp leaves the queue
// if it was waiting (a stop-the-world stopped it there).
func (m *Machine) cpuDrop(mp *M) {
	c := m.cpu
	if c == nil {
		return
	}
	mp.cpuGen++ // a queued cpuRun of mp is stale
	if mp.cpuWaiting {
		mp.cpuWaiting = false
		mp.cpuCont = nil
		c.wait = slices.DeleteFunc(c.wait, func(x *M) bool { return x == mp })
		m.cpuArm()
		return
	}
	if !mp.cpuOn {
		return
	}
	mp.cpuOn = false
	c.on = slices.DeleteFunc(c.on, func(x *M) bool { return x == mp })
	m.cpuGiveNext()
}

// cpuGiveNext gives the free CPUs to the threads waiting, first come first
// served; each goes on with what it set aside, in an action of its own.
func (m *Machine) cpuGiveNext() {
	c := m.cpu
	for len(c.on) < c.n && len(c.wait) > 0 {
		mp := c.wait[0]
		c.wait = c.wait[1:]
		mp.cpuWaiting = false
		waited := m.now - mp.cpuSince
		c.waited = addWhen(c.waited, waited)
		m.cpuPut(mp)
		m.emit(EvMOnCPU, mp.p, mp, mp.curg, nil, -1, waited, "")
		if cont := mp.cpuCont; cont != nil {
			mp.cpuCont = nil
			mp.cpuGen++
			m.after(0, action{kind: actCPURun, mp: mp, gen: mp.cpuGen, fn: cont})
		}
	}
	m.cpuArm()
}

// cpuArm queues the OS's next tick: when the first thread on a CPU has run
// its slice, if any thread waits.
func (m *Machine) cpuArm() {
	c := m.cpu
	if len(c.wait) == 0 || len(c.on) == 0 {
		c.tickAt = -1
		return
	}
	at := c.on[0].cpuSince
	for _, mp := range c.on[1:] {
		at = min(at, mp.cpuSince)
	}
	at = max(addWhen(at, c.slice), m.now)
	if at == c.tickAt {
		return
	}
	c.tickAt = at
	c.tickGen++
	m.after(at-m.now, action{kind: actCPUTick, gen: c.tickGen})
}

// cpuTick is the OS's scheduler at the end of a slice: each thread that
// has run its slice while others wait gives its CPU to the first of them
// and waits in turn.
func (m *Machine) cpuTick(gen uint64) {
	c := m.cpu
	if gen != c.tickGen {
		return
	}
	c.tickAt = -1
	for i := 0; i < len(c.on) && len(c.wait) > 0; {
		mp := c.on[i]
		if m.now-mp.cpuSince < c.slice {
			i++
			continue
		}
		cont, ok := m.cpuSetAside(mp)
		if !ok {
			i++ // nothing of its own is in progress: it stops on its own soon
			continue
		}
		mp.cpuOn = false
		c.on = slices.Delete(c.on, i, i+1)
		c.preempts++
		m.cpuQueue(mp, cont, "slice")
		m.cpuGiveNext()
	}
	m.cpuArm()
}

// cpuSetAside stops what mp is doing, as the OS does when it takes the
// thread's CPU: the one action in progress on mp (its G's work, or its own
// cost before it schedules) is made stale, and the returned continuation
// does what is left of it. It reports false if mp has nothing in progress.
func (m *Machine) cpuSetAside(mp *M) (func(), bool) {
	for i := range m.actions {
		a := &m.actions[i]
		switch {
		case a.kind == actResume && a.gp.mp == mp && a.gen == a.gp.gen:
			gp := a.gp
			left := a.when - m.now
			preemptible := gp.workUntil > m.now
			gp.gen++
			gp.workLeft = left
			if preemptible {
				gp.workUntil = m.now // sysmon's preemption only posts a request meanwhile
			}
			gp.cpuFrozen = true
			return func() { m.cpuResumeWork(gp, preemptible) }, true
		case a.kind == actSchedule && a.mp == mp && a.gen == mp.gen:
			left := a.when - m.now
			mp.gen++
			return func() { m.scheduleAfter(mp, left) }, true
		}
	}
	return nil, false
}

// cpuResumeWork goes on with gp's work, set aside when its thread lost the
// CPU: the rest of the work, unless sysmon asked to preempt it meanwhile
// (the signal lands now), as preemptone would have.
func (m *Machine) cpuResumeWork(gp *G, preemptible bool) {
	gp.cpuFrozen = false
	if preemptible && gp.preempt && !m.cfg.NoPreempt {
		gp.gen++
		m.goschedImpl(gp, true)
		return
	}
	m.resume(gp) // the work loop (G.Work, G.spend) queues what is left
}

// CPUs returns the machine's CPU count (Config.CPUs), 0 when every thread
// has a CPU of its own, and how often the OS took a CPU from a thread at
// the end of its slice and how long threads waited for one, in all.
func (m *Machine) CPUs() (n int, preempts, waited int64) {
	if m.cpu == nil {
		return 0, 0, 0
	}
	return m.cpu.n, m.cpu.preempts, m.cpu.waited
}

// resumeOnCPU resumes gp on mp, back from a system call, once mp has a
// CPU again.
func (m *Machine) resumeOnCPU(mp *M, gp *G) {
	if m.cpu != nil && !m.cpuGet(mp, func() { m.resume(gp) }) {
		return
	}
	m.resume(gp)
}
