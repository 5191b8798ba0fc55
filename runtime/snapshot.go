// Looking inside: snapshots of the scheduler's state and its invariants.

package runtime

import "fmt"

// PState is what a snapshot shows of one P.
type PState struct {
	ID          int
	Status      PStatus
	M           int // the M holding it, -1 if none
	Schedtick   uint32
	Syscalltick uint32
	Runnext     int64   // goid in runnext, 0 if empty
	Runq        []int64 // goids in the ring, head first
	Timers      int     // timers on its heap
	GFree       int     // dead Gs cached
	// GCMarkWorkerMode is the mode of the GC mark worker its M runs:
	// "dedicated", "fractional" or "idle"; "" when it runs none
	// (pp.gcMarkWorkerMode).
	GCMarkWorkerMode string
}

// MState is what a snapshot shows of one M.
type MState struct {
	ID       int
	P        int   // the P it holds, -1 if none
	Curg     int64 // the G it runs, 0 if none
	Spinning bool
	Idle     bool // parked on the idle list
	Syscall  bool // blocked in a syscall
	// SyscallP is the P a syscalling M left in _Psyscall (entersyscall),
	// -1 once sysmon has retaken it (retake, handoffp) or for an M not in
	// a syscall.
	SyscallP int
	// Locked is a locked M asleep in stoplockedm until its G can run
	// again (lockOSThread, startup.go).
	Locked bool
	// LockedG is the G locked to the M (lockOSThread), 0 if none.
	LockedG int64
	// Netpoll is the M blocked in netpoll (findRunnable's "poll network
	// until next timer"), holding nothing, until an arrival or the next
	// timer: at most one M is (netpoll.go).
	Netpoll bool
	// Polled are the Gs an M back from netpoll took from the poller and
	// will run first (one) and inject (the rest) when it schedules
	// (runPolled): still _Gwaiting, on no descriptor and no queue.
	Polled []int64
}

// Activity says what the M is doing, in the words of proc.go's model: an M
// always runs either a goroutine (curg) or its own g0, and on g0 it runs
// the scheduler. So an M is one of:
//
//	"running"        on curg, with its P
//	"syscall"        blocked in a system call on curg, its P left in _Psyscall (SyscallP)
//	"syscall, no P"  blocked in a system call, its P retaken by sysmon or handed off (handoffp)
//	"spinning"       on g0, holding a P, looking for work to steal (findRunnable)
//	"schedule"       on g0, holding a P, in schedule but not spinning
//	"idle"           parked on the idle M list (stopm), holding nothing
//	"starting"       woken by startm with a P to take (nextp), not yet running
//	"locked"         locked to a G that cannot run, asleep in stoplockedm, holding nothing
//	"netpoll"        blocked in netpoll until an arrival or the next timer, holding nothing
//
// The REPL's :ms and the playground's picture show this word; there is one
// definition, here.
func (ms *MState) Activity() string {
	switch {
	case ms.Syscall && ms.SyscallP < 0 && ms.P < 0:
		return "syscall, no P"
	case ms.Syscall:
		return "syscall"
	case ms.Curg != 0:
		return "running"
	case ms.Spinning:
		return "spinning"
	case ms.Netpoll:
		return "netpoll"
	case ms.Idle:
		return "idle"
	case ms.Locked:
		return "locked"
	case ms.P >= 0:
		return "schedule"
	}
	return "starting"
}

// A Snapshot is the scheduler's state at one instant, for :runq, the
// schedtrace lines and tests.
type Snapshot struct {
	Time       int64
	GOMAXPROCS int
	Ps         []PState
	Ms         []MState
	GlobalRunq []int64 // goids, head first
	IdlePs     []int   // in idle-list order, next to be taken last
	NMSpinning int
	Goroutines int // alive
	Runnable   int // on some run queue
	// The network poller: netpollWaiters (the Gs parked in netpollblock),
	// the M blocked in netpoll (-1 if none) and every descriptor with a
	// G parked on it, in fd order (Machine.Netpoll). All zero for a
	// program that never opened a descriptor.
	NetpollWaiters int
	PollM          int
	Polls          []PollState
}

// PollState is what a snapshot shows of one poll descriptor with a
// goroutine parked on it (netpollblock).
type PollState struct {
	FD   int64
	Kind string // "listener" or "conn"
	// ReadG is the G parked on the read semaphore (rg: an accept on a
	// listener, a read on a connection), WriteG the one parked on the
	// write semaphore (wg: a dial's connect; writes never block); 0 if
	// none.
	ReadG, WriteG int64
	// ReadDeadline is the read deadline (pd.rd): 0 none, -1 expired,
	// else the virtual time it expires.
	ReadDeadline int64
}

// Mode says what g, parked on the descriptor, waits for: "accept" or
// "read" for the reader (on a listener, on a connection), "connect" for
// the writer, "" for neither.
func (ps *PollState) Mode(g int64) string {
	switch {
	case g == 0:
		return ""
	case g == ps.ReadG && ps.Kind == "listener":
		return "accept"
	case g == ps.ReadG:
		return "read"
	case g == ps.WriteG:
		return "connect"
	}
	return ""
}

// Netpoll returns every open descriptor with a goroutine parked on it,
// in fd order: what :netpoll, sched().netpoll and the playground show.
// It is nil for a program that never opened one.
func (m *Machine) Netpoll() []PollState {
	var ps []PollState
	for _, pd := range m.np.fds { // in fd order: opened in order, closed in place
		rg, wg := parkedG(pd.rg), parkedG(pd.wg)
		if rg == 0 && wg == 0 {
			continue
		}
		ps = append(ps, PollState{FD: pd.fd, Kind: pd.what, ReadG: rg, WriteG: wg, ReadDeadline: pd.rd})
	}
	return ps
}

// parkedG is the goid of the G a poll semaphore holds, 0 for nil,
// pdReady or pdWait.
func parkedG(gp *G) int64 {
	if gp == nil || gp == pdReady || gp == pdWait {
		return 0
	}
	return gp.goid
}

// Snapshot returns the scheduler's current state.
func (m *Machine) Snapshot() *Snapshot {
	s := &Snapshot{
		Time:       m.now,
		GOMAXPROCS: int(m.gomaxprocs),
		NMSpinning: int(m.nmspinning),
		Goroutines: m.ngalive,
		Runnable:   int(m.runq.size),

		NetpollWaiters: int(m.np.waiters),
		PollM:          -1,
		Polls:          m.Netpoll(),
	}
	if m.np.pollM != nil {
		s.PollM = int(m.np.pollM.id)
	}
	for _, pp := range m.allp[:m.gomaxprocs] {
		ps := PState{
			ID:          int(pp.id),
			Status:      pp.status,
			M:           -1,
			Schedtick:   pp.schedtick,
			Syscalltick: pp.syscalltick,
			Timers:      pp.timers.Len(),
			GFree:       int(pp.gFree.size),
		}
		if pp.m != nil {
			ps.M = int(pp.m.id)
			if pp.m.curg != nil {
				ps.GCMarkWorkerMode = pp.m.curg.GCWorkerMode()
			}
		}
		if pp.runnext != nil {
			ps.Runnext = pp.runnext.goid
			s.Runnable++
		}
		for i := pp.runqhead; i != pp.runqtail; i++ {
			ps.Runq = append(ps.Runq, pp.runq[i%runqSize].goid)
		}
		s.Runnable += len(ps.Runq)
		s.Ps = append(s.Ps, ps)
	}
	for _, mp := range m.allm {
		ms := MState{ID: int(mp.id), P: -1, SyscallP: -1, Spinning: mp.spinning, Idle: mp.idle, Syscall: mp.syscall, Locked: mp.lockedIdle && !mp.lockedWake, Netpoll: mp == m.np.pollM}
		if mp.syscall && mp.oldp != nil && mp.oldp.status == Psyscall && mp.oldp.syscalltick == mp.syscalltick {
			ms.SyscallP = int(mp.oldp.id)
		}
		if mp.p != nil {
			ms.P = int(mp.p.id)
		}
		if mp.curg != nil {
			ms.Curg = mp.curg.goid
		}
		if mp.lockedg != nil {
			ms.LockedG = mp.lockedg.goid
		}
		for gp := mp.polled.head; gp != nil; gp = gp.schedlink {
			ms.Polled = append(ms.Polled, gp.goid)
		}
		s.Ms = append(s.Ms, ms)
	}
	for _, gp := range m.runq.slice() {
		s.GlobalRunq = append(s.GlobalRunq, gp.goid)
	}
	for _, pp := range m.pidle {
		s.IdlePs = append(s.IdlePs, int(pp.id))
	}
	return s
}

// CheckInvariants verifies the scheduler's invariants (see runtime2.go)
// and returns the first one broken. It is meant for tests and fuzzing, to be
// called between Steps. It is long by design (gocyclo 34): a checklist of
// independent checks, one after another, each a few lines, read best in
// one place.
func (m *Machine) CheckInvariants() error {
	where := make(map[*G]string)
	put := func(gp *G, place string) error {
		if prev, ok := where[gp]; ok {
			return fmt.Errorf("invariant: G%d is in two places: %s and %s", gp.goid, prev, place)
		}
		where[gp] = place
		return nil
	}
	for _, pp := range m.allp[:m.gomaxprocs] {
		if n := pp.runqtail - pp.runqhead; n > runqSize {
			return fmt.Errorf("invariant: P%d: ring holds %d > %d", pp.id, n, runqSize)
		}
		if pp.runnext != nil {
			if err := put(pp.runnext, fmt.Sprintf("runnext of P%d", pp.id)); err != nil {
				return err
			}
		}
		for i := pp.runqhead; i != pp.runqtail; i++ {
			if err := put(pp.runq[i%runqSize], fmt.Sprintf("ring of P%d", pp.id)); err != nil {
				return err
			}
		}
		if pp.status == Pidle && !runqempty(pp) {
			return fmt.Errorf("invariant: P%d is idle with a non-empty run queue", pp.id)
		}
		if pp.m != nil && pp.m.p != pp && pp.m.nextp != pp {
			return fmt.Errorf("invariant: P%d says M%d holds it, M%d disagrees", pp.id, pp.m.id, pp.m.id)
		}
	}
	for _, gp := range m.runq.slice() {
		if err := put(gp, "the global queue"); err != nil {
			return err
		}
	}
	idle := make(map[*P]bool)
	for _, pp := range m.pidle {
		if pp.status != Pidle {
			return fmt.Errorf("invariant: P%d is on the idle list but %v", pp.id, pp.status)
		}
		idle[pp] = true
	}
	for _, pp := range m.allp[:m.gomaxprocs] {
		if pp.status == Pidle && !idle[pp] {
			return fmt.Errorf("invariant: P%d is idle but not on the idle list", pp.id)
		}
	}
	spinning := int32(0)
	for _, mp := range m.allm {
		if mp.spinning {
			spinning++
		}
		if mp.curg != nil {
			if err := put(mp.curg, fmt.Sprintf("curg of M%d", mp.id)); err != nil {
				return err
			}
			if mp.curg.status != Grunning && mp.curg.status != Gsyscall {
				return fmt.Errorf("invariant: G%d is curg of M%d but %v", mp.curg.goid, mp.id, mp.curg.status)
			}
		}
		if mp.p != nil && mp.p.m != mp {
			return fmt.Errorf("invariant: M%d holds P%d, which says M%v", mp.id, mp.p.id, mp.p.m)
		}
	}
	if spinning != m.nmspinning {
		return fmt.Errorf("nmspinning is %d but %d Ms spin", m.nmspinning, spinning)
	}
	for _, gp := range m.allg {
		_, queued := where[gp]
		switch gp.status {
		case Grunnable:
			if !queued && !(gp.lockedm != nil && gp.lockedm.lockedWake) {
				return fmt.Errorf("invariant: G%d is runnable but on no run queue (lost)", gp.goid)
			}
		case Gwaiting, Gdead, Gleaked:
			if queued {
				return fmt.Errorf("invariant: G%d is %v but %s", gp.goid, gp.status, where[gp])
			}
		}
	}
	return nil
}
