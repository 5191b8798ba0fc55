// The CPU quota: Linux's CFS bandwidth control, as a container sets it.
//
// A container with a CPU limit of Q CPUs gets Q × period of CPU time in
// each period (cpu.cfs_quota_us over cpu.cfs_period_us, 100ms by
// default). Every thread of the process that runs on a CPU draws on that
// budget. Once the period's budget is used up, the kernel throttles the
// whole group: no thread of the process runs until the period ends and
// the budget is refilled. A Go program with more busy threads than its
// quota burns the budget early in each period and then stands still for
// the rest, with requests queueing behind it: the p99 of
// uber-go/automaxprocs's README, and the reason Go 1.25 sets GOMAXPROCS
// from the quota by default (defaultGOMAXPROCS, cgroup_linux.go:
// ceil(quota), at least 2, at most the CPUs).
//
// In the simulation a thread is on a CPU while it holds a P that is
// running (a G, the scheduler, a spinning search), and not while it is
// parked, blocked in netpoll or in a system call (whose time is the
// kernel's waiting, not computing). So the budget drains at the rate of
// the running Ps, and the moment it runs out is known in advance: the
// run loop never moves the clock past it (Step, runAhead). At that moment
// the Machine is throttled until the period's end: each G's work in
// progress is pushed back by the throttled time, and every other action of
// the process due before the end (a thread's wake-up, a syscall's return,
// a timer, sysmon) waits until then. The world outside (the network, the
// traffic) goes on; what it readies waits for the process to run again.
// Periods are aligned to time 0.
//
// A run without a quota has no cfs state and schedules exactly as before.

package runtime

import (
	"cmp"
	"math"
	"slices"
)

// DefaultCPUPeriod is cpu.cfs_period_us's default, 100ms.
const DefaultCPUPeriod = 100 * 1000 * 1000

// cfsBandwidth is the process's CFS bandwidth state.
type cfsBandwidth struct {
	quota     int64 // ns of CPU per period
	period    int64 // ns
	periodIdx int64 // the period the usage is of
	usage     int64 // CPU ns used in that period
	until     int64 // throttled until then, or 0

	throttles     int64 // times the process was throttled
	throttledTime int64 // ns spent throttled in all
}

// DefaultGOMAXPROCS returns the GOMAXPROCS a Go 1.26 program gets by
// default on a machine with cpus CPUs under a quota of quota CPUs (0 for
// none): the CPUs, or the quota rounded up, at least 2, if that is fewer.
// Mirrors defaultGOMAXPROCS and adjustCgroupGOMAXPROCS (cgroup_linux.go).
func DefaultGOMAXPROCS(cpus int, quota float64) int {
	procs := cpus
	if quota > 0 {
		limit := max(math.Ceil(quota), 2)
		if limit < float64(procs) {
			procs = int(limit)
		}
	}
	return max(procs, 1)
}

// initQuota sets up the bandwidth control of Config.CPUQuota.
func (m *Machine) initQuota() {
	q := m.cfg.CPUQuota
	if q <= 0 {
		return
	}
	period := m.cfg.CPUPeriod
	if period <= 0 {
		period = DefaultCPUPeriod
	}
	quota := int64(math.Round(q * float64(period)))
	m.cfs = &cfsBandwidth{quota: max(quota, 1), period: period}
}

// onCPU returns how many threads of the process are on a CPU now: the Ps
// that are running, each held by an M that is not still waking up.
func (m *Machine) onCPU() int64 {
	var n int64
	for _, pp := range m.allp[:m.gomaxprocs] {
		if pp.status == Prunning && pp.m != nil && pp.m.nextp != pp && (m.cpu == nil || pp.m.cpuOn) {
			n++
		}
	}
	return n
}

// quotaRunsOut returns the time, after now and at or before t, at which
// the period's budget runs out if the clock moves from now to t with the
// threads on a CPU now, and whether it does.
func (m *Machine) quotaRunsOut(t int64) (int64, bool) {
	c := m.cfs
	if t <= m.now || m.now < c.until {
		return 0, false
	}
	n := m.onCPU()
	if n == 0 {
		return 0, false
	}
	now, usage := m.now, c.usage
	if now/c.period != c.periodIdx {
		usage = 0 // a new period began since the last account
	}
	for now < t {
		end := (now/c.period + 1) * c.period // this period's end
		seg := min(t, end) - now
		if left := c.quota - usage; left < seg*n {
			return now + (left+n-1)/n, true
		}
		now, usage = min(t, end), 0
	}
	return 0, false
}

// account charges the threads on a CPU for the clock's move from now to t
// (no later than quotaRunsOut allows).
func (m *Machine) account(t int64) {
	c := m.cfs
	if t <= m.now {
		return
	}
	n := m.onCPU()
	if m.now < c.until {
		n = 0 // throttled: nothing runs
	}
	now := m.now
	for now < t {
		idx := now / c.period
		if idx != c.periodIdx {
			c.periodIdx, c.usage = idx, 0
		}
		end := min(t, (idx+1)*c.period)
		c.usage += (end - now) * n
		now = end
	}
}

// throttle stops the process at now, when its budget ran out, until the
// period ends: work in progress resumes that much later, and every other
// action of the process due before the end waits for it.
func (m *Machine) throttle() {
	c := m.cfs
	end := (m.now/c.period + 1) * c.period
	shift := end - m.now
	c.until = end
	c.throttles++
	c.throttledTime = addWhen(c.throttledTime, shift)
	m.emit(EvThrottle, nil, nil, nil, nil, -1, shift, "")
	for i := range m.actions {
		a := &m.actions[i]
		switch {
		case a.kind == actWorld:
			// Outside the process: not throttled.
		case a.kind == actResume:
			a.when = addWhen(a.when, shift) // the rest of the work, after the pause
		case a.when < end:
			a.when = end
		}
	}
	for _, pp := range m.allp[:m.gomaxprocs] {
		if pp.m != nil && pp.m.curg != nil && pp.m.curg.workUntil > m.now {
			pp.m.curg.workUntil = addWhen(pp.m.curg.workUntil, shift)
		}
	}
	// The order of the heap changed: rebuild it, (when, seq) as before.
	slices.SortFunc(m.actions, func(a, b action) int {
		if c := cmp.Compare(a.when, b.when); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

// throttledWhen returns when an action of the process queued for when
// can run: not before the throttling ends.
func (m *Machine) throttledWhen(when int64) int64 {
	if m.cfs != nil && when < m.cfs.until {
		return m.cfs.until
	}
	return when
}

// Throttling returns how often the process was throttled and for how long
// in all (0, 0 without a quota).
func (m *Machine) Throttling() (count, ns int64) {
	if m.cfs == nil {
		return 0, 0
	}
	return m.cfs.throttles, m.cfs.throttledTime
}
