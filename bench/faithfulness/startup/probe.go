//go:build ignore

// probe.go is built together with a copy of a corpus program by
// startup.sh. It reads the real scheduler's own counters (runtime.sched,
// runtime.allp) at chosen points of the program, without locks, system
// calls or allocation, so that reading them costs a few nanoseconds and
// leaves the schedule as it was, and prints them after the program's
// outcome on the same line. The layouts below mirror go1.26's
// runtime2.go (schedt, p) up to the last field read; startup.sh checks
// the mirror on every run (maxmcount must read 10000, every P's id its
// index). It needs -ldflags=-checklinkname=0.
package main

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"unsafe"
)

type probeListHead struct {
	obj         uintptr
	initialized bool
	nodeOffset  uintptr
}

// probeSchedt mirrors runtime.schedt up to needspinning.
type probeSchedt struct {
	goidgen      uint64
	lastpoll     int64
	pollUntil    int64
	pollingNet   int32
	lock         uintptr
	midle        probeListHead
	nmidle       int32
	nmidlelocked int32
	mnext        int64
	maxmcount    int32
	nmsys        int32
	nmfreed      int64
	ngsys        int32
	nGsyscallNoP int32
	pidle        uintptr
	npidle       int32
	nmspinning   int32
	needspinning uint32
}

// probeP mirrors runtime.p up to runnext.
type probeP struct {
	id           int32
	status       uint32
	link         uintptr
	schedtick    uint32
	syscalltick  uint32
	smSchedtick  uint32
	smSyscall    uint32
	smSchedwhen  int64
	smSyscallw   int64
	m            uintptr
	mcache       uintptr
	pcBase       uintptr
	pcCache      uint64
	pcScav       uint64
	raceprocctx  uintptr
	oldm         uintptr
	deferpool    [3]uintptr
	deferpoolbuf [32]uintptr
	goidcache    uint64
	goidcacheend uint64
	runqhead     uint32
	runqtail     uint32
	runq         [256]uintptr
	runnext      uintptr
}

//go:linkname probeSched runtime.sched
var probeSched probeSchedt

//go:linkname probeAllp runtime.allp
var probeAllp []*probeP

//go:linkname probeInitTime runtime.runtimeInitTime
var probeInitTime int64

//go:linkname probeNanotime runtime.nanotime
func probeNanotime() int64

//go:linkname probeProcPin runtime.procPin
func probeProcPin() int

//go:linkname probeProcUnpin runtime.procUnpin
func probeProcUnpin()

type probePSnap struct {
	status, schedtick, rq uint32
	hasM                  bool
	next                  uint64    // the goid of runnext, 0 for none
	rqG                   [4]uint64 // the goids at the head of runq
}

// probeGoidOffset is the offset of goid in go1.26's runtime.g (stack 16,
// stackguard0/1, _panic, _defer, m, sched (gobuf, 6 words), syscallsp,
// syscallpc, syscallbp, stktopsp, param, atomicstatus, stackLock).
const probeGoidOffset = 152

func probeGoid(gp uintptr) uint64 {
	if gp == 0 {
		return 0
	}
	return *(*uint64)(unsafe.Pointer(gp + probeGoidOffset))
}

type probeSnap struct {
	taken                    bool
	since                    int64 // ns since runtimeInitTime
	spinning, npidle, nmidle int32
	mnext                    int64
	maxm                     int32
	goid                     uint64
	ps                       [8]probePSnap
	np                       int
	mainP                    int
	badID                    bool
}

var probeSnaps [4]probeSnap

// probeAt records the scheduler's state as snapshot i.
func probeAt(i int) {
	s := &probeSnaps[i]
	s.mainP = probeProcPin()
	probeProcUnpin()
	s.since = probeNanotime() - probeInitTime
	s.spinning = atomic.LoadInt32(&probeSched.nmspinning)
	s.npidle = atomic.LoadInt32(&probeSched.npidle)
	s.nmidle = probeSched.nmidle
	s.mnext = probeSched.mnext
	s.maxm = probeSched.maxmcount
	s.goid = atomic.LoadUint64(&probeSched.goidgen)
	s.np = len(probeAllp)
	for j, p := range probeAllp {
		if j >= len(s.ps) {
			break
		}
		if p.id != int32(j) {
			s.badID = true
		}
		h, t := atomic.LoadUint32(&p.runqhead), atomic.LoadUint32(&p.runqtail)
		ps := probePSnap{
			status:    atomic.LoadUint32(&p.status),
			schedtick: atomic.LoadUint32(&p.schedtick),
			rq:        t - h,
			hasM:      atomic.LoadUintptr(&p.m) != 0,
			next:      probeGoid(atomic.LoadUintptr(&p.runnext)),
		}
		for k := uint32(0); k < t-h && k < 4; k++ {
			ps.rqG[k] = probeGoid(atomic.LoadUintptr(&p.runq[(h+k)%256]))
		}
		s.ps[j] = ps
	}
	s.taken = true
}

// The go statements' returns, when startup.sh -spawns has put a
// probeSpawn after each go statement of the copy: how many returned, and
// when each did, in ns since runtimeInitTime, in the order they returned
// (the first len(probeSpawnTimes)).
var (
	probeSpawnN     atomic.Int32
	probeSpawnTimes [64]int64
)

// probeSpawn records that a go statement returned: a clock read and an
// atomic add, about 30ns.
func probeSpawn() {
	t := probeNanotime() - probeInitTime
	if i := probeSpawnN.Add(1) - 1; int(i) < len(probeSpawnTimes) {
		probeSpawnTimes[i] = t
	}
}

// probePrintf prints the program's outcome, as fmt.Printf would with a
// format that ends in a newline, and the snapshots, as probePrintln.
func probePrintf(format string, args ...any) {
	probePrintln(strings.TrimSuffix(fmt.Sprintf(format, args...), "\n"))
}

var probeStatus = [...]string{"idle", "running", "syscall", "gcstop", "dead"}

// probePrintln prints the program's outcome, a tab, and the snapshots.
func probePrintln(args ...any) {
	out := fmt.Sprint(args...)
	if len(args) > 1 {
		out = fmt.Sprintln(args...)
		out = out[:len(out)-1]
	}
	line := out + "\t|"
	for i := range probeSnaps {
		s := &probeSnaps[i]
		if !s.taken {
			continue
		}
		if s.maxm != 10000 || s.badID {
			fmt.Fprintln(os.Stderr, "probe: the runtime's layout is not the mirror's (maxmcount", s.maxm, ")")
			os.Exit(3)
		}
		line += fmt.Sprintf(" s%d t=%dus on=P%d spin=%d idleP=%d idleM=%d Ms=%d goid=%d", i, s.since/1000, s.mainP, s.spinning, s.npidle, s.nmidle, s.mnext, s.goid)
		for j := 0; j < s.np && j < len(s.ps); j++ {
			p := s.ps[j]
			m := "-"
			if p.hasM {
				m = "M"
			}
			line += fmt.Sprintf(" P%d=%s/%s/tick%d/rq%d", j, probeStatus[p.status%5], m, p.schedtick, p.rq)
			for k := 0; k < int(p.rq) && k < 4; k++ {
				line += fmt.Sprintf(",G%d", p.rqG[k])
			}
			if p.next != 0 {
				line += fmt.Sprintf("+next=G%d", p.next)
			}
		}
		line += " |"
	}
	// The go statements' returns, in ns since snapshot 0 (main.main's
	// first statement).
	if n := min(int(probeSpawnN.Load()), len(probeSpawnTimes)); n > 0 && probeSnaps[0].taken {
		line += " spawns="
		for i, t := range probeSpawnTimes[:n] {
			if i > 0 {
				line += ","
			}
			line += fmt.Sprint(t - probeSnaps[0].since)
		}
	}
	fmt.Println(line)
}
