// Spans: from point events to intervals on P and M tracks.
//
// The event stream reports instants ("G5 starts on P1", "G5 blocks"); the
// Chrome export and the HTML timeline draw intervals. spanTracker turns one
// into the other, the same way for both, so the two pictures always agree.
//
// Every P and every M is a track. A track has at most one open span at a
// time, and opening a span on a track closes the one that was open there,
// so the spans of a track never overlap and come out in time order. That
// is what the Chrome format needs of complete ("X") events on one thread,
// and what lets the timeline find the span under the mouse by binary
// search.
//
// Spans and the events that open and close them:
//
//   - run (P and M tracks): G runs. Opened by GoStart on the event's P and
//     M, and by GoSyscallEnd when the G comes back from its syscall with a P
//     ("fast", "idle p", "old p": exitsyscall returns straight to the G, no GoStart).
//     A GoStart for the G that already runs there continues the span. Closed
//     by the events that take the G off its P: GoSched, GoPreempt, GoBlock,
//     GoDestroy, GoSyscallBegin; by ProcStop of its P; by ProcResize that
//     destroys its P; by another GoStart on the same track; and by a GoStart
//     of the same G anywhere else (a G runs in one place at a time).
//   - syscall (M tracks): the M is blocked in a syscall on behalf of G, from
//     GoSyscallBegin to that G's GoSyscallEnd. The M keeps it even when
//     sysmon retakes the P (ProcSteal).
//   - spin (M tracks): the M is spinning, looking for work, from MSpinning
//     to the M's next GoStart, ProcStop or MStop.
//   - netpoll (M tracks): the M is blocked in netpoll, holding nothing,
//     from MNetpoll to the M's next event (the Netpoll of what it found
//     when epoll_wait returns, or its MStart or MStop when a timer woke
//     it): neither parked nor running, it is the thread that will see the
//     network first.
//
// At the end of the stream (finish) every span still open is closed at the
// time of the last event. The closing event's kind and reason travel with
// the span, so a run span can say why it ended ("GoBlock: chan receive").
//
// The tracker keeps no maps: tracks are slices indexed by id, and finding
// where a G runs scans the P tracks (there are GOMAXPROCS of them) and the
// M tracks, after checking the event's own P and M first.

package trace

import "github.com/schedlab/schedlab/runtime"

// trackKind says whether a track is a P or an M.
type trackKind uint8

const (
	trackP trackKind = iota // a P (processor); id is the P's id
	trackM                  // an M (thread); id is the M's id
)

// spanKind says what a span shows.
type spanKind uint8

const (
	spanRun     spanKind = iota // G ran on the P, or on the M
	spanSyscall                 // the M was in a syscall for G
	spanSpin                    // the M was spinning, looking for work
	spanNetpoll                 // the M was blocked in netpoll
)

// maxTrackID bounds the ids that get a track, so that a corrupt event
// cannot make the tracker allocate gigabytes.
const maxTrackID = 1 << 16

// A span is one interval on one track.
type span struct {
	track      trackKind
	id         int32 // the P's or the M's id
	kind       spanKind
	g          int64 // the G that ran or was in the syscall; 0 for spin and netpoll
	start, end int64 // virtual ns
	startSeq   uint64
	endSeq     uint64            // 0 when closed by finish
	startIdx   int               // index of the opening event in the stream
	endIdx     int               // index of the closing event, -1 when closed by finish
	startKind  runtime.EventKind // the opening event's kind
	inherit    bool              // run: the GoStart inherited the time slice
	endKind    runtime.EventKind // the closing event's kind, EvNone when closed by finish
	endReason  string            // the closing event's Reason (a wait reason, ...)
}

// openSpan is a track's current span, if active.
type openSpan struct {
	active bool
	span
}

// A spanTracker builds spans from events and hands each to emit when it
// closes. The *span passed to emit is only valid during the call.
type spanTracker struct {
	p, m []openSpan
	emit func(s *span)
	idx  int   // index of the event being handled
	last int64 // time of the latest event
	seen bool  // an event has been seen
}

// tracks returns the track slice for k.
func (t *spanTracker) tracks(k trackKind) *[]openSpan {
	if k == trackP {
		return &t.p
	}
	return &t.m
}

// slot returns the open-span slot of track (k, id), growing the slice as
// needed, or nil if id is none or out of bounds.
func (t *spanTracker) slot(k trackKind, id int32) *openSpan {
	if id < 0 || id >= maxTrackID {
		return nil
	}
	ts := t.tracks(k)
	for int(id) >= len(*ts) {
		*ts = append(*ts, openSpan{})
	}
	return &(*ts)[id]
}

// close closes the span open in o, if any, at the time of ev (nil: at the
// last event) and emits it.
func (t *spanTracker) close(o *openSpan, ev *runtime.Event) {
	if o == nil || !o.active {
		return
	}
	o.active = false
	s := &o.span
	if ev != nil {
		s.end, s.endSeq, s.endIdx, s.endKind, s.endReason = ev.Time, ev.Seq, t.idx, ev.Kind, ev.Reason
	} else {
		s.end, s.endSeq, s.endIdx, s.endKind, s.endReason = t.last, 0, -1, runtime.EvNone, ""
	}
	if s.end < s.start {
		s.end = s.start
	}
	t.emit(s)
}

// open opens a span of kind k for g on track (tk, id) at ev, closing the
// span open there. It reports whether a span was opened.
func (t *spanTracker) open(tk trackKind, id int32, k spanKind, g int64, ev *runtime.Event) bool {
	o := t.slot(tk, id)
	if o == nil {
		return false
	}
	t.close(o, ev)
	o.active = true
	o.span = span{
		track: tk, id: id, kind: k, g: g,
		start: ev.Time, startSeq: ev.Seq, startIdx: t.idx, startKind: ev.Kind,
		inherit: ev.Kind == runtime.EvGoStart && ev.Arg == 1,
	}
	return true
}

// isOpen reports whether track (tk, id) has a span of kind k for g open.
func (t *spanTracker) isOpen(tk trackKind, id int32, k spanKind, g int64) bool {
	ts := *t.tracks(tk)
	if id < 0 || int(id) >= len(ts) {
		return false
	}
	o := &ts[id]
	return o.active && o.kind == k && o.g == g
}

// closeAll closes every span of kind k for g, on tracks of kind tk, except
// on track id keep.
func (t *spanTracker) closeAll(tk trackKind, k spanKind, g int64, keep int32, ev *runtime.Event) {
	ts := *t.tracks(tk)
	for i := range ts {
		if int32(i) != keep && ts[i].active && ts[i].kind == k && ts[i].g == g {
			t.close(&ts[i], ev)
		}
	}
}

// run opens (or continues) the run span of ev.G on ev.P and ev.M and closes
// any other run span of that G. It reports whether a span was opened, that
// is, whether ev starts a span rather than continuing one.
func (t *spanTracker) run(ev *runtime.Event) bool {
	g := ev.G
	if g == 0 {
		return false
	}
	t.closeAll(trackP, spanRun, g, ev.P, ev)
	t.closeAll(trackM, spanRun, g, ev.M, ev)
	opened := false
	if !t.isOpen(trackP, ev.P, spanRun, g) {
		opened = t.open(trackP, ev.P, spanRun, g, ev)
	}
	if !t.isOpen(trackM, ev.M, spanRun, g) {
		opened = t.open(trackM, ev.M, spanRun, g, ev) || opened
	}
	return opened
}

// event handles one event. It reports whether the event is a GoStart that
// opened a run span, which then carries it: such a GoStart needs no other
// mark. It is long by design: one flat switch on the event's kind.
func (t *spanTracker) event(ev *runtime.Event, idx int) bool {
	t.idx = idx
	if !t.seen || ev.Time > t.last {
		t.last = ev.Time
		t.seen = true
	}
	if ev.M >= 0 && ev.Kind != runtime.EvMNetpoll {
		// Any event of an M blocked in netpoll is its return.
		if o := t.slot(trackM, ev.M); o != nil && o.active && o.kind == spanNetpoll {
			t.close(o, ev)
		}
	}
	switch ev.Kind {
	case runtime.EvGoStart:
		return t.run(ev)
	case runtime.EvGoSched, runtime.EvGoPreempt, runtime.EvGoBlock, runtime.EvGoDestroy:
		t.closeAll(trackP, spanRun, ev.G, -1, ev)
		t.closeAll(trackM, spanRun, ev.G, -1, ev)
	case runtime.EvGoSyscallBegin:
		t.closeAll(trackP, spanRun, ev.G, -1, ev)
		t.closeAll(trackM, spanRun, ev.G, -1, ev)
		if ev.G != 0 {
			t.open(trackM, ev.M, spanSyscall, ev.G, ev)
		}
	case runtime.EvGoSyscallEnd:
		t.closeAll(trackM, spanSyscall, ev.G, -1, ev)
		if ev.P >= 0 && ev.Reason != "no p" {
			t.run(ev)
		}
	case runtime.EvProcStop:
		t.close(t.slot(trackP, ev.P), ev)
		if o := t.slot(trackM, ev.M); o != nil && o.kind != spanSyscall {
			t.close(o, ev)
		}
	case runtime.EvProcSteal:
		t.close(t.slot(trackP, ev.P), ev)
	case runtime.EvMSpinning:
		if !t.isOpen(trackM, ev.M, spanSpin, 0) {
			t.open(trackM, ev.M, spanSpin, 0, ev)
		}
	case runtime.EvMStop:
		t.close(t.slot(trackM, ev.M), ev)
	case runtime.EvMNetpoll:
		t.open(trackM, ev.M, spanNetpoll, 0, ev)
	case runtime.EvProcResize:
		// Ps with ids >= the new GOMAXPROCS are destroyed.
		for i := int(max(ev.P2, 0)); i < len(t.p); i++ {
			t.close(&t.p[i], ev)
		}
	}
	return false
}

// finish closes every open span at the time of the last event, P tracks
// first, each kind in id order.
func (t *spanTracker) finish() {
	for i := range t.p {
		t.close(&t.p[i], nil)
	}
	for i := range t.m {
		t.close(&t.m[i], nil)
	}
}
