// State keys: an engine object's state, and the timers', written out so
// that schedlab check can tell that a stretch of one goroutine left them
// as they were (internal/check, stutter.go).
//
// A key names goroutines by their ids and says nothing of the clock: two
// states whose keys are equal differ at most in the virtual time, and in
// what the time drives (sysmon's ticks, the costs model's counters). A
// key is exact or refused: AppendStateKey reports false for a state it
// cannot write out whole (a channel holding values), never a key that
// two different states share.

package runtime

import "strconv"

// A StateTracker is a Tracker that also compares states: just before a
// ChoicePreempt is asked (after Alternative), it is told the running G,
// so that it can read the G's state and the Machine's.
type StateTracker interface {
	Tracker
	Preempting(gp *G)
}

// AppendStateKey appends the state of obj, an engine object a Tracker is
// shown (*Chan, *Mutex, *WaitGroup, *RWMutex, *Cond, *Weighted), to b.
// It reports false for any other obj, and for a state it does not write
// out: a channel with values in its buffer, a sender waiting with one,
// or a timer's channel.
func AppendStateKey(b []byte, obj any) ([]byte, bool) {
	switch o := obj.(type) {
	case *Chan:
		if o.qcount > 0 || o.tmr != nil {
			return b, false
		}
		b = append(b, 'c')
		b = appendBool(b, o.closed)
		var ok bool
		if b, ok = appendWaitq(b, &o.recvq); !ok {
			return b, false
		}
		return appendWaitq(b, &o.sendq)
	case *Mutex:
		return appendMutex(b, o), true
	case *WaitGroup:
		b = append(b, 'w')
		b = strconv.AppendInt(b, o.count, 10)
		return appendGs(b, o.sema.gs), true
	case *RWMutex:
		b = append(b, 'r')
		b = appendMutex(b, &o.w)
		b = appendSema(b, &o.writerSem)
		b = appendSema(b, &o.readerSem)
		b = strconv.AppendInt(b, int64(o.readerCount), 10)
		b = append(b, ',')
		return strconv.AppendInt(b, int64(o.readerWait), 10), true
	case *Cond:
		b = append(b, 'k')
		b = strconv.AppendUint(b, uint64(o.wait), 10)
		b = append(b, ',')
		b = strconv.AppendUint(b, uint64(o.notify), 10)
		for _, w := range o.list {
			b = append(b, ' ')
			b = strconv.AppendUint(b, uint64(w.ticket), 10)
			b = append(b, ':')
			b = strconv.AppendInt(b, w.g.goid, 10)
		}
		return append(b, ';'), true
	case *Weighted:
		b = append(b, 'x')
		b = strconv.AppendInt(b, o.size, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, o.cur, 10)
		for _, w := range o.waiters {
			b = append(b, ' ')
			b = strconv.AppendInt(b, w.n, 10)
			b = append(b, ':')
			b = strconv.AppendInt(b, w.g.goid, 10)
			b = appendBool(b, w.ready)
		}
		return append(b, ';'), true
	}
	return b, false
}

// AppendTimersKey appends to b what of the timers a switch now would see:
// for each P, its timers and how many of them are due, and how many of
// the Machine's actions other than sysmon's ticks are due.
func (m *Machine) AppendTimersKey(b []byte) []byte {
	b = append(b, 't')
	for _, pp := range m.allp[:m.gomaxprocs] {
		due := 0
		for _, t := range pp.timers {
			if t.when <= m.now {
				due++
			}
		}
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(len(pp.timers)), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(due), 10)
	}
	due := 0
	for _, a := range m.actions {
		if a.kind != actSysmon && a.when <= m.now {
			due++
		}
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(due), 10)
	return append(b, ';')
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}

func appendGs(b []byte, gs []*G) []byte {
	for _, gp := range gs {
		b = append(b, ' ')
		b = strconv.AppendInt(b, gp.goid, 10)
	}
	return append(b, ';')
}

func appendMutex(b []byte, mu *Mutex) []byte {
	b = append(b, 'm')
	b = appendBool(b, mu.locked)
	b = appendBool(b, mu.starving)
	if mu.handoff != nil {
		b = strconv.AppendInt(b, mu.handoff.goid, 10)
	}
	return appendGs(b, mu.sema.gs)
}

func appendSema(b []byte, s *sema) []byte {
	b = append(b, 's')
	b = strconv.AppendUint(b, uint64(s.count), 10)
	return appendGs(b, s.q.gs)
}

// appendWaitq appends a channel's waiters: each G, and its select case;
// it reports false if one carries a value (a sender's).
func appendWaitq(b []byte, q *waitq) ([]byte, bool) {
	for sg := q.first; sg != nil; sg = sg.next {
		if sg.elem != nil {
			return b, false
		}
		b = append(b, ' ')
		b = strconv.AppendInt(b, sg.g.goid, 10)
		if sg.isSelect {
			b = append(b, '/')
			b = strconv.AppendInt(b, int64(sg.caseIdx), 10)
		}
	}
	return append(b, ';'), true
}
