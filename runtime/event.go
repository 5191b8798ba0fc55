// The event stream.
//
// Every scheduling decision the Machine makes is reported as one Event to the
// Tracer named in Config. Events are the only way consumers (the text trace,
// JSON lines, Chrome/Perfetto export, the HTML timeline, schedtrace lines,
// the REPL's :step) learn what happened, so each event carries everything
// needed to reconstruct the state of every P, M and G without looking inside
// the Machine.
//
// Event names follow Go's execution tracer (internal/trace): GoCreate,
// GoStart, GoBlock, GoUnblock, GoSched, GoPreempt, GoSyscallBegin,
// GoSyscallEnd, GoDestroy, ProcStart, ProcStop, ProcSteal, plus a few that
// only a simulator can see (GlobalRunqPut, RunqSteal, MSpinning ...).
//
// Nothing in an event depends on the host: times are virtual nanoseconds,
// ids are the Machine's own counters, and the order of events is the order
// of the simulation, which is fixed by the seed.

package runtime

// EventKind names a scheduling event.
type EventKind uint8

// Event kinds. The comment after each says which fields it uses besides
// Time, P, M and G.
const (
	EvNone           EventKind = iota
	EvGoCreate                 // G created G2 (newproc); Arg = 1 if put in runnext; Reason = function name
	EvGoStart                  // G starts running on P/M (execute); Arg = 1 if it inherits the time slice
	EvGoSched                  // G called gosched and went to the global queue (goschedImpl); Arg = 1: to its P's ring instead (goyield)
	EvGoPreempt                // G was preempted after its time slice and went to the global queue; Arg = 1: kept in its P's runnext, preempted by a stop-the-world (goschedImpl)
	EvGoBlock                  // G parked (gopark); Reason = wait reason
	EvGoUnblock                // G readied G2 (goready; no G: netpoll's injectglist, a timer, the host); Arg = 1 if put in runnext, 0 if on the local ring, 2 if global, 3 if the polling M runs it at once
	EvGoSyscallBegin           // G entered a syscall lasting Arg ns (entersyscall)
	EvGoSyscallEnd             // G left its syscall (exitsyscall); Reason = "fast" (kept its P), "idle p", "old p" (took its P back from another M's syscall) or "no p"
	EvGoDestroy                // G returned and is dead (goexit0)
	EvGoWork                   // G burns Arg ns of CPU (work); the P is busy until Time+Arg
	EvGoSleep                  // G sleeps until Arg (time.Sleep); a GoBlock follows
	EvProcStart                // M acquired P and starts running it (acquirep)
	EvProcStop                 // M released P, which becomes idle (releasep + pidleput)
	EvProcSteal                // the P was taken from the M whose G is in a syscall on it: by sysmon (retake → handoffp; no M) or by M leaving its own syscall (exitsyscall, "old p")
	EvRunqSteal                // P stole Arg Gs from P2's run queue (runqsteal); G2 = the G it will run
	EvGlobalRunqPut            // Arg Gs were moved from P's run queue to the global queue (runqputslow, or procresize destroying P)
	EvGlobalRunqGet            // P took Arg Gs from the global queue (globrunqget/globrunqgetbatch)
	EvMSpinning                // M became spinning (looking for work)
	EvMStop                    // M found nothing to do and parked (stopm); its thread sleeps
	EvMStart                   // M was created (newm) or woken (startm) for P; Arg = 1 if it starts spinning
	EvTimerFire                // a timer expired; G2 = the G it readies (sleep); Arg = its deadline; Reason = "sleep", "after", "timer", "ticker" or "after_func"
	EvProcResize               // gomaxprocs changed from Arg to P2 (procresize)
	EvPrint                    // the program printed Reason (not a scheduling event; for traces that interleave output)
	EvGoStatus                 // G's status changed (casgstatus), only with Config.TraceStates; Arg = old<<8 | new (Status values); Reason = the wait reason when new is _Gwaiting
	EvNetReady                 // the kernel marked descriptor Arg ready (data, a connection, a connect's end, the peer's close); Reason = "r", "w" or "rw"
	EvNetpoll                  // P's M (or sysmon, no P) polled the network and made Arg Gs runnable (netpoll); Reason = "findRunnable", "sysmon", "block" (the M blocked in netpoll returned) or "pollWork" (an idle GC mark worker looking for other work)
	EvMNetpoll                 // M found nothing to do and blocked in netpoll until an arrival or the next timer (findRunnable)
	EvThrottle                 // the process used its CPU quota for the period: every thread stops for Arg ns, until the period ends (CFS bandwidth control, quota.go)
	EvMOffCPU                  // M wants a CPU and has none (Config.CPUs, cpus.go): Reason "busy" (every CPU taken) or "slice" (the OS took it at the end of its time slice); Arg = threads waiting
	EvMOnCPU                   // M got a CPU after waiting Arg ns (cpus.go)
	EvGCBegin                  // G started GC cycle Arg (gcStart), only with --gc-cycle=stw; Reason = "heap" (its allocation reached the trigger) or "forced" (runtime.GC)
	EvGCEnd                    // GC cycle Arg ended (gcMarkTermination), only with --gc-cycle=stw
	EvSTWBegin                 // G stopped the world (stopTheWorldWithSema); Reason = why, in Go's words: "GC sweep termination" or "GC mark termination"
	EvSTWEnd                   // the pause of a stop-the-world ended after Arg ns; Reason = why, as in its STWBegin
	EvGCWorkerStart            // mark worker G started marking on P (gcBgMarkWorker), only with --gc-cycle=mark; Reason = its mode: "dedicated", "fractional" or "idle"
	EvGCWorkerStop             // mark worker G stopped marking on P after Arg ns (markWorkerStop); Reason = its mode
	EvGCAssistBegin            // G, in debt for what it allocated during the mark, began a mark assist owing Arg units of scan work (gcAssistAlloc)
	EvGCAssistEnd              // G's mark assist ended, after Arg ns of marking on its P (parked time not included)
	evKindCount
)

var eventNames = [...]string{
	EvNone:           "None",
	EvGoCreate:       "GoCreate",
	EvGoStart:        "GoStart",
	EvGoSched:        "GoSched",
	EvGoPreempt:      "GoPreempt",
	EvGoBlock:        "GoBlock",
	EvGoUnblock:      "GoUnblock",
	EvGoSyscallBegin: "GoSyscallBegin",
	EvGoSyscallEnd:   "GoSyscallEnd",
	EvGoDestroy:      "GoDestroy",
	EvGoWork:         "GoWork",
	EvGoSleep:        "GoSleep",
	EvProcStart:      "ProcStart",
	EvProcStop:       "ProcStop",
	EvProcSteal:      "ProcSteal",
	EvRunqSteal:      "RunqSteal",
	EvGlobalRunqPut:  "GlobalRunqPut",
	EvGlobalRunqGet:  "GlobalRunqGet",
	EvMSpinning:      "MSpinning",
	EvMStop:          "MStop",
	EvMStart:         "MStart",
	EvTimerFire:      "TimerFire",
	EvProcResize:     "ProcResize",
	EvPrint:          "Print",
	EvGoStatus:       "GoStatus",
	EvNetReady:       "NetReady",
	EvNetpoll:        "Netpoll",
	EvMNetpoll:       "MNetpoll",
	EvThrottle:       "Throttle",
	EvMOffCPU:        "MOffCPU",
	EvMOnCPU:         "MOnCPU",
	EvGCBegin:        "GCBegin",
	EvGCEnd:          "GCEnd",
	EvSTWBegin:       "STWBegin",
	EvSTWEnd:         "STWEnd",
	EvGCWorkerStart:  "GCWorkerStart",
	EvGCWorkerStop:   "GCWorkerStop",
	EvGCAssistBegin:  "GCAssistBegin",
	EvGCAssistEnd:    "GCAssistEnd",
}

func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "EventKind(?)"
}

// EventKinds returns every event kind, in declaration order (for docs and
// tests that must cover them all).
func EventKinds() []EventKind {
	ks := make([]EventKind, 0, evKindCount-1)
	for k := EvNone + 1; k < evKindCount; k++ {
		ks = append(ks, k)
	}
	return ks
}

// An Event is one scheduling decision. Ids that do not apply are -1 (P, M,
// P2) or 0 (G, G2).
type Event struct {
	Seq    uint64    // position in the stream, from 1
	Time   int64     // virtual time in ns
	P      int32     // the P involved, -1 if none
	M      int32     // the M involved, -1 if none
	G      int64     // the goroutine involved, 0 if none
	Kind   EventKind // what happened
	G2     int64     // a second goroutine (created, readied, stolen), 0 if none
	P2     int32     // a second P (steal victim, new GOMAXPROCS), -1 if none
	Arg    int64     // a count or a duration, see the kind's comment
	Reason string    // a wait reason, a function name, printed text
}

// A Tracer receives every event of a run, in order. The Event is only valid
// during the call: a Tracer that keeps it must copy it.
type Tracer interface {
	Event(ev *Event)
}

// TracerFunc adapts a function to the Tracer interface.
type TracerFunc func(ev *Event)

// Event calls f(ev).
func (f TracerFunc) Event(ev *Event) { f(ev) }

// MultiTracer returns a Tracer that passes every event to each of ts in
// order. Nil tracers are skipped.
func MultiTracer(ts ...Tracer) Tracer {
	var live []Tracer
	for _, t := range ts {
		if t != nil {
			live = append(live, t)
		}
	}
	switch len(live) {
	case 0:
		return nil
	case 1:
		return live[0]
	}
	return TracerFunc(func(ev *Event) {
		for _, t := range live {
			t.Event(ev)
		}
	})
}
