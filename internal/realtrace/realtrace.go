// Package realtrace reads an execution trace of a real Go program (the
// format runtime/trace writes, Go 1.22 to 1.26) into the terms schedlab
// thinks in: goroutines changing state on Ps and Ms, goroutines made by
// others, wake-ups and the dispatch that follows them, Ps starting and
// stopping, syscalls, and user log lines.
//
// The parsing and the validation are golang.org/x/exp/trace's, the same
// reader `go tool trace` uses: a trace that reads here without error is one
// the Go tools accept. Read walks its events once, in the order the reader
// returns them (timestamp order, consistent with every resource's state
// machine), and keeps:
//
//   - Transitions: every goroutine state change, with the P and the M
//     (thread) of the event and the goroutine that caused it (the creator
//     of a new G, the G that readied a waiting one);
//   - Procs: every P start and stop, with its thread;
//   - Logs: runtime/trace.Log lines, which a program writes to mark where
//     its phases begin;
//   - Threads: each M, with the time of its first event.
//
// From those it derives the pairs that measurements want (see Dispatches,
// Blocks, Syscalls, ProcRuns). The package knows nothing of schedlab's own
// simulation; `schedlab calibrate` measures the runtime's costs with it,
// and `schedlab timeline` draws a real trace with it.
//
// Times are nanoseconds on the trace's clock, which is monotonic and
// shared by all threads; only differences mean anything.
package realtrace

import (
	"errors"
	"fmt"
	"io"

	xtrace "golang.org/x/exp/trace"
)

// State is a goroutine's state as the trace knows it. The names are the
// runtime's (runtime2.go's _Grunnable and so on).
type State uint8

// States of a goroutine.
const (
	Undetermined State = iota // not known: the trace began after it was made
	NotExist                  // not made yet, or dead
	Runnable                  // in a run queue, waiting for an M and a P
	Running                   // running on an M with a P
	Waiting                   // blocked: channel, lock, sleep, select...
	Syscall                   // in a system call, holding its M
)

var stateNames = [...]string{"undetermined", "notexist", "runnable", "running", "waiting", "syscall"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", s)
}

func stateOf(s xtrace.GoState) State {
	switch s {
	case xtrace.GoNotExist:
		return NotExist
	case xtrace.GoRunnable:
		return Runnable
	case xtrace.GoRunning:
		return Running
	case xtrace.GoWaiting:
		return Waiting
	case xtrace.GoSyscall:
		return Syscall
	}
	return Undetermined
}

// None is the ID of no goroutine, P or M.
const None int64 = -1

// A Transition is one change of a goroutine's state.
type Transition struct {
	Time     int64
	G        int64  // the goroutine whose state changed
	From, To State  // From is Undetermined for a status report (Status)
	Reason   string // why it stopped or blocked: "chan receive", "sleep", "preempted", "runtime.Gosched"...
	P        int64  // the P of the event's context, or None
	M        int64  // the thread of the event's context, or None
	By       int64  // the goroutine running in that context: the creator, the readier; None for the runtime (a timer, netpoll)
	Status   bool   // a report of a state already held, at the start of a generation, not a change
	Func     string // for a creation, the function the new goroutine starts in ("main.worker"), if the trace has its stack
}

// A ProcEvent is a P starting (an M acquired it) or stopping.
type ProcEvent struct {
	Time  int64
	P     int64
	M     int64 // the thread that started or stopped it, or None
	Start bool  // true for a start, false for a stop
	Steal bool  // a stop because another thread took it from a syscall (ProcSteal)
	// Status is a report, at the start of a generation, that the P is
	// already running, not a start.
	Status bool
}

// A Log is one runtime/trace.Log line.
type Log struct {
	Time     int64
	G        int64
	P        int64
	M        int64
	Category string
	Message  string
}

// A Thread is one M seen in the trace.
type Thread struct {
	M     int64
	First int64 // the time of its first event
}

// A Trace is a real Go execution trace, read.
type Trace struct {
	Start, End  int64 // the first and the last event's time
	Transitions []Transition
	Procs       []ProcEvent
	Logs        []Log
	Threads     []Thread // in the order of their first event

	threadSeen map[int64]bool
}

// Read reads and validates a whole execution trace from r.
func Read(r io.Reader) (*Trace, error) {
	rd, err := xtrace.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("reading trace: %w", err)
	}
	t := &Trace{threadSeen: map[int64]bool{}}
	first := true
	for {
		ev, err := rd.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading trace: %w", err)
		}
		if ev.Kind() == xtrace.EventSync {
			continue // generation boundaries: nothing schedlab keeps
		}
		t.add(&ev, first)
		first = false
	}
	if first {
		return nil, errors.New("reading trace: no events")
	}
	return t, nil
}

func id[T ~int64](x, none T) int64 {
	if x == none {
		return None
	}
	return int64(x)
}

// add keeps what ev says.
func (t *Trace) add(ev *xtrace.Event, first bool) {
	ts := int64(ev.Time())
	if first {
		t.Start = ts
	}
	t.End = max(t.End, ts)
	g := id(ev.Goroutine(), xtrace.NoGoroutine)
	p := id(ev.Proc(), xtrace.NoProc)
	m := id(ev.Thread(), xtrace.NoThread)
	if m != None && !t.threadSeen[m] {
		t.threadSeen[m] = true
		t.Threads = append(t.Threads, Thread{M: m, First: ts})
	}
	switch ev.Kind() {
	case xtrace.EventLog:
		l := ev.Log()
		t.Logs = append(t.Logs, Log{Time: ts, G: g, P: p, M: m, Category: l.Category, Message: l.Message})
	case xtrace.EventStateTransition:
		st := ev.StateTransition()
		switch st.Resource.Kind {
		case xtrace.ResourceGoroutine:
			from, to := st.Goroutine()
			tr := Transition{
				Time: ts, G: int64(st.Resource.Goroutine()),
				From: stateOf(from), To: stateOf(to), Reason: st.Reason,
				P: p, M: m, By: g,
			}
			if from == xtrace.GoUndetermined || from == to {
				tr.Status = true
			}
			if tr.By == tr.G {
				tr.By = None // its own change (block, syscall, stop)
			}
			if from == xtrace.GoNotExist {
				for f := range st.Stack.Frames() {
					tr.Func = f.Func
					break
				}
			}
			t.Transitions = append(t.Transitions, tr)
		case xtrace.ResourceProc:
			from, to := st.Proc()
			pid := int64(st.Resource.Proc())
			switch {
			case to == xtrace.ProcRunning && from != xtrace.ProcRunning:
				t.Procs = append(t.Procs, ProcEvent{Time: ts, P: pid, M: m, Start: true, Status: from == xtrace.ProcUndetermined})
			case from == xtrace.ProcRunning && to != xtrace.ProcRunning:
				// A ProcSteal names the thief's context; the P
				// stopped is the resource.
				steal := pid != p
				t.Procs = append(t.Procs, ProcEvent{Time: ts, P: pid, M: m, Steal: steal})
			}
		}
	}
}

// ThreadStart returns the time of m's first event in the trace. A thread
// made during the trace (newm) first shows up then; so does every thread
// that existed before the trace began, at its first event.
func (t *Trace) ThreadStart(m int64) (int64, bool) {
	for _, th := range t.Threads {
		if th.M == m {
			return th.First, true
		}
	}
	return 0, false
}
