// Which fields each event kind uses.
//
// runtime.Event is one flat struct for every kind; the comment after each
// kind in runtime/event.go says which of G2, P2, Arg and Reason it fills.
// This file turns those comments into a table, so that the JSON writer can
// write exactly the fields that apply (plus any that unexpectedly hold a
// value, so nothing is ever lost) and the docs and tests can check that
// every kind is covered. Time, P, M and G are not in the table: they are
// written whenever they hold an id.
//
// The table must follow event.go. A kind added there and not here is still
// written losslessly by the JSON writer and rendered by the text writer's
// fallback, which the tests catch.

package trace

import "github.com/schedlab/schedlab/runtime"

// A fieldSet says which of an Event's kind-specific fields a kind uses.
type fieldSet uint8

const (
	useG2     fieldSet = 1 << iota // G2: a second goroutine
	useP2                          // P2: a second P or a new GOMAXPROCS
	useArg                         // Arg: a count, a duration, a time or a queue
	useReason                      // Reason: a wait reason, a function name, text

	listed fieldSet = 1 << 7 // set on every kind in the table, so a kind using no field is told apart from a missing one
)

// kindFields lists, for each kind of runtime/event.go, the fields it uses.
// Every entry has the listed bit; a kind missing from the table has entry 0
// and is rendered by the writers' fallbacks.
var kindFields = [...]fieldSet{
	runtime.EvGoCreate:       listed | useG2 | useArg | useReason, // new G, runnext?, fn
	runtime.EvGoStart:        listed | useArg,                     // inherits time slice?
	runtime.EvGoSched:        listed | useArg,                     // 1: to the local ring (goyield)
	runtime.EvGoPreempt:      listed | useArg,                     // 1: kept in runnext (a stop-the-world)
	runtime.EvGoBlock:        listed | useReason,                  // wait reason
	runtime.EvGoUnblock:      listed | useG2 | useArg,             // readied G, where it went
	runtime.EvGoSyscallBegin: listed | useArg,                     // duration
	runtime.EvGoSyscallEnd:   listed | useReason,                  // "fast", "idle p", "old p", "no p"
	runtime.EvGoDestroy:      listed,
	runtime.EvGoWork:         listed | useArg, // duration
	runtime.EvGoSleep:        listed | useArg, // wake-up time
	runtime.EvProcStart:      listed,
	runtime.EvProcStop:       listed,
	runtime.EvProcSteal:      listed,
	runtime.EvRunqSteal:      listed | useG2 | useP2 | useArg, // G to run, victim, count
	runtime.EvGlobalRunqPut:  listed | useArg,                 // count
	runtime.EvGlobalRunqGet:  listed | useArg,                 // count
	runtime.EvMSpinning:      listed,
	runtime.EvMStop:          listed,
	runtime.EvMStart:         listed | useArg,                     // starts spinning?
	runtime.EvTimerFire:      listed | useG2 | useArg | useReason, // G readied, deadline, sleep|after
	runtime.EvProcResize:     listed | useP2 | useArg,             // old (Arg) and new (P2) GOMAXPROCS
	runtime.EvPrint:          listed | useReason,                  // printed text
	runtime.EvGoStatus:       listed | useArg | useReason,         // old<<8 | new, wait reason
	runtime.EvNetReady:       listed | useArg | useReason,         // descriptor, mode
	runtime.EvNetpoll:        listed | useArg | useReason,         // Gs made runnable, who polled
	runtime.EvMNetpoll:       listed,
	runtime.EvThrottle:       listed | useArg,             // how long
	runtime.EvMOffCPU:        listed | useArg | useReason, // threads waiting, busy|slice
	runtime.EvMOnCPU:         listed | useArg,             // how long it waited
	runtime.EvGCBegin:        listed | useArg | useReason, // cycle, "heap" or "forced"
	runtime.EvGCEnd:          listed | useArg,             // cycle
	runtime.EvSTWBegin:       listed | useReason,          // why, in Go's words
	runtime.EvSTWEnd:         listed | useArg | useReason, // how long, why
	runtime.EvGCWorkerStart:  listed | useReason,          // mode
	runtime.EvGCWorkerStop:   listed | useArg | useReason, // how long, mode
	runtime.EvGCAssistBegin:  listed | useArg,             // scan work owed
	runtime.EvGCAssistEnd:    listed | useArg,             // ns marked
}

// kindListed reports whether k is in kindFields.
func kindListed(k runtime.EventKind) bool {
	return fieldsOf(k)&listed != 0
}

// fieldsOf returns the fields that kind k uses.
func fieldsOf(k runtime.EventKind) fieldSet {
	if int(k) < len(kindFields) {
		return kindFields[k]
	}
	return 0
}

// Where a readied or created G was put: the Arg of GoCreate and GoUnblock.
const (
	queueRunq    = 0  // the tail of the P's local ring
	queueRunnext = 1  // the P's runnext slot
	queueGlobal  = 2  // the global run queue
	queueRun     = 3  // none: the M that polled the network runs it at once (netpoll)
	queueUnknown = -1 // not known: a real trace read back does not say (internal/realtrace)
)

// queueName names the queue of a GoCreate or GoUnblock Arg, or returns ""
// for a value event.go does not define.
func queueName(arg int64) string {
	switch arg {
	case queueRunq:
		return "runq"
	case queueRunnext:
		return "runnext"
	case queueGlobal:
		return "global"
	case queueRun:
		return "run"
	case queueUnknown:
		return "unknown"
	}
	return ""
}
