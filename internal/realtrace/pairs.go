// Pairs of events: what measurements of a trace are made of.
//
// One transition alone says little; the cost of a scheduler operation is
// the time between two. A wake-up is a goroutine made runnable and then
// started (Dispatch); a block is a goroutine going to wait and being
// readied (Block); a syscall is the goroutine entering and leaving it
// (SyscallSpan); a P runs from its start to its stop (ProcRun); and a
// thread switches from one goroutine to the next (Switch). Each function
// below walks the transitions once, in trace order. Pairs whose first half
// the trace does not hold (a goroutine already waiting when tracing began)
// are left out.

package realtrace

// A Dispatch is a goroutine becoming runnable and then starting to run.
type Dispatch struct {
	G       int64
	Cause   State  // the state it left to become runnable: NotExist (created), Waiting (readied), Running (stopped), Syscall (lost its P in a syscall)
	Reason  string // for a stop: "preempted", "runtime.Gosched"...
	Ready   int64  // when it became runnable
	ReadyP  int64  // the P of that event, or None
	ReadyM  int64
	By      int64 // the goroutine that made or readied it; None for the runtime or itself
	Start   int64 // when it started
	StartP  int64
	StartM  int64
	Started bool // false if the trace ended first (Start is then End)
}

// Latency is the time from runnable to running.
func (d Dispatch) Latency() int64 { return d.Start - d.Ready }

// Dispatches returns every runnable → running pair of the trace, in the
// order the goroutines became runnable.
func (t *Trace) Dispatches() []Dispatch {
	var out []Dispatch
	open := map[int64]int{} // G -> index in out of its pending dispatch
	for _, tr := range t.Transitions {
		if tr.Status {
			continue // a report of the state it has: nothing changed
		}
		switch {
		case tr.To == Runnable:
			open[tr.G] = len(out)
			out = append(out, Dispatch{
				G: tr.G, Cause: tr.From, Reason: tr.Reason,
				Ready: tr.Time, ReadyP: tr.P, ReadyM: tr.M, By: tr.By,
				Start: t.End, StartP: None, StartM: None,
			})
		case tr.From == Runnable && tr.To == Running:
			if i, ok := open[tr.G]; ok {
				d := &out[i]
				d.Start, d.StartP, d.StartM, d.Started = tr.Time, tr.P, tr.M, true
				delete(open, tr.G)
			}
		}
	}
	return out
}

// A Block is a goroutine going to wait and being readied.
type Block struct {
	G         int64
	Reason    string // "chan receive", "sleep", "select"...
	Begin     int64
	BeginP    int64
	BeginM    int64
	End       int64 // when it was readied (t.End if never)
	By        int64 // who readied it; None for the runtime (a timer, netpoll)
	EndP      int64
	EndM      int64
	Unblocked bool
}

// Blocks returns every running → waiting → runnable pair, in the order the
// goroutines blocked.
func (t *Trace) Blocks() []Block {
	var out []Block
	open := map[int64]int{}
	for _, tr := range t.Transitions {
		if tr.Status {
			continue // a report of the state it has: nothing changed
		}
		switch {
		case tr.To == Waiting && tr.From == Running:
			open[tr.G] = len(out)
			out = append(out, Block{G: tr.G, Reason: tr.Reason, Begin: tr.Time, BeginP: tr.P, BeginM: tr.M,
				End: t.End, By: None, EndP: None, EndM: None})
		case tr.From == Waiting:
			if i, ok := open[tr.G]; ok {
				b := &out[i]
				b.End, b.By, b.EndP, b.EndM, b.Unblocked = tr.Time, tr.By, tr.P, tr.M, true
				delete(open, tr.G)
			}
		}
	}
	return out
}

// A SyscallSpan is a goroutine's time in one system call.
type SyscallSpan struct {
	G       int64
	Begin   int64
	P       int64 // the P it entered with
	M       int64
	End     int64
	EndP    int64 // the P it came back on (None if it lost its P)
	Blocked bool  // it came back without a P and had to queue (exitsyscall's slow path)
	Ended   bool
}

// Syscalls returns every syscall of the trace, in the order they began.
func (t *Trace) Syscalls() []SyscallSpan {
	var out []SyscallSpan
	open := map[int64]int{}
	for _, tr := range t.Transitions {
		if tr.Status {
			continue // a report of the state it has: nothing changed
		}
		switch {
		case tr.From == Running && tr.To == Syscall:
			open[tr.G] = len(out)
			out = append(out, SyscallSpan{G: tr.G, Begin: tr.Time, P: tr.P, M: tr.M, End: t.End, EndP: None})
		case tr.From == Syscall:
			if i, ok := open[tr.G]; ok {
				s := &out[i]
				s.End, s.Ended = tr.Time, true
				s.Blocked = tr.To != Running
				if !s.Blocked {
					s.EndP = tr.P
				}
				delete(open, tr.G)
			}
		}
	}
	return out
}

// A ProcRun is a P held by a thread from its start to its stop.
type ProcRun struct {
	P       int64
	M       int64
	Start   int64
	Stop    int64 // t.End if it never stopped
	Stopped bool
	Partial bool  // it was running when the trace began: Start is the status report's time
	Starts  int   // goroutines started on the P meanwhile
	First   int64 // the goroutine started first, or None
}

// ProcRuns returns every start → stop of a P, in the order they started.
func (t *Trace) ProcRuns() []ProcRun {
	var out []ProcRun
	open := map[int64]int{}
	ti := 0
	countStarts := func(upto int64) {
		for ; ti < len(t.Transitions) && t.Transitions[ti].Time <= upto; ti++ {
			tr := t.Transitions[ti]
			if tr.Status || tr.To != Running || tr.From != Runnable || tr.P == None {
				continue
			}
			if i, ok := open[tr.P]; ok {
				if out[i].Starts == 0 {
					out[i].First = tr.G
				}
				out[i].Starts++
			}
		}
	}
	for _, pe := range t.Procs {
		// Starts strictly before this event belong to the runs open
		// before it; a start at the same instant as a P's start comes
		// after it in trace order, so count up to just before.
		countStarts(pe.Time - 1)
		if pe.Start {
			if _, ok := open[pe.P]; ok && pe.Status {
				continue // still the run the last status reported
			}
			open[pe.P] = len(out)
			out = append(out, ProcRun{P: pe.P, M: pe.M, Start: pe.Time, Stop: t.End, First: None, Partial: pe.Status})
			continue
		}
		countStarts(pe.Time)
		if i, ok := open[pe.P]; ok {
			out[i].Stop, out[i].Stopped = pe.Time, true
			delete(open, pe.P)
		}
	}
	countStarts(t.End)
	return out
}

// A Switch is a thread going from one goroutine to the next: the first
// stops running (it blocks, yields, is preempted, exits or enters a
// syscall that loses its P) and the thread's next start is the second.
type Switch struct {
	M      int64
	P      int64 // the P of the start
	From   int64 // the goroutine that stopped
	FromTo State // the state it went to
	Reason string
	Left   int64 // when it stopped running
	To     int64 // the goroutine started next on the thread
	Start  int64
	SameP  bool // the start is on the P the first one left
	leftP  int64
}

// Switches returns, for each thread, every stop of a running goroutine
// followed by the next start on that thread, in the order of the stops.
// Syscalls that keep their P are not stops.
func (t *Trace) Switches() []Switch {
	var out []Switch
	open := map[int64]int{} // M -> pending switch
	for _, tr := range t.Transitions {
		if tr.Status || tr.M == None {
			continue
		}
		switch {
		case tr.From == Running && tr.To != Running && tr.To != Syscall:
			open[tr.M] = len(out)
			out = append(out, Switch{M: tr.M, From: tr.G, FromTo: tr.To, Reason: tr.Reason, Left: tr.Time, To: None, leftP: tr.P})
		case tr.From == Runnable && tr.To == Running:
			if i, ok := open[tr.M]; ok {
				s := &out[i]
				s.To, s.Start, s.P = tr.G, tr.Time, tr.P
				s.SameP = tr.P == s.leftP
				delete(open, tr.M)
			}
		}
	}
	// Keep only the completed ones.
	done := out[:0]
	for _, s := range out {
		if s.To != None {
			done = append(done, s)
		}
	}
	return done
}
