// The Chrome Trace Event Format export.
//
// Perfetto (ui.perfetto.dev) and chrome://tracing open JSON in the Trace
// Event Format ("JSON Object Format": an object with a "traceEvents"
// array). They already know how to zoom, search, select and measure, so
// this export only has to lay the run out as processes and threads:
//
//   - pid 0 "Ps": one thread per P (tid = P id, named "P0", "P1", ...). A
//     complete event ("ph":"X") for every run of a G on the P, named
//     "G12 worker" (G id and the function it was spawned with).
//   - pid 1 "Ms": one thread per M (tid = M id, named "M0", ...), with the
//     same run spans, plus "syscall G12" spans while the M is blocked in a
//     syscall, "spinning" spans while it looks for work and "netpoll"
//     spans while it is blocked in netpoll, holding no P.
//   - pid 2 "Sched": a counter track ("ph":"C") "queues" with the global
//     run queue length and the runnable count (derived as queues.go says),
//     written once per virtual time at which they changed, and the
//     instants of events that name neither a P nor an M.
//
// G1, the main goroutine, is named "main" unless a GoCreate names it: the
// Machine creates it without a GoCreate.
//
// Every event of the stream appears: a GoStart as the start of its run
// span (args.start_seq), every other event as an instant ("ph":"i", "s":"t")
// on its P's thread, else its M's, else pid 2, named after its kind, with
// the JSON-lines fields as args (args.seq is the event's Seq). Spans are
// derived by spans.go; their args say how they started and ended
// (start: "GoStart", slice: "inherit", start_seq, end: "GoBlock",
// reason: "chan receive", end_seq; end: "end of trace" for a span still
// open when the run ended).
//
// Times: the format's "ts" and "dur" are microseconds; virtual nanoseconds
// are written as microseconds with exactly three decimals (12345ns →
// 12.345), computed with integers, so the bytes are deterministic and no
// nanosecond is lost. "displayTimeUnit":"ns" asks the viewer to show
// nanoseconds.
//
// The export streams: each event is written when it arrives, a span when it
// closes (with its start time, which the viewers sort). Metadata naming a
// P's or M's thread is written when the P or M first appears. Close closes
// the spans still open at the time of the last event and ends the JSON
// document; without it the file is not valid JSON. One array element per
// line keeps the file diffable.

package trace

import (
	"bufio"
	"io"
	"strconv"

	"github.com/schedlab/schedlab/runtime"
)

// Process ids of the Chrome export.
const (
	chromePidP     = 0 // "Ps": a thread per P
	chromePidM     = 1 // "Ms": a thread per M
	chromePidSched = 2 // "Sched": queue counters and events with no P or M
)

// A Chrome writes a trace in the Chrome Trace Event Format, for Perfetto
// and chrome://tracing. It implements runtime.Tracer. Close must be called
// at the end of the run to close open spans and finish the document.
type Chrome struct {
	w      *bufio.Writer
	spans  spanTracker
	queues queueModel
	fn     map[int64]string // G → the function it was created with
	pSeen  []bool           // thread_name written for P i
	mSeen  []bool           // thread_name written for M i
	n      int              // events seen
	first  bool             // no traceEvents element written yet
	closed bool
	global int64 // last global queue length written
	runq   int64 // last runnable count written
	counts bool  // a counter event has been written

	// The counters are written once per virtual time at which they
	// changed, with the values they have after the last event at that
	// time, when an event with a later time (or Close) comes.
	pending  bool
	pendingT int64
}

var _ runtime.Tracer = (*Chrome)(nil)

// NewChrome returns a Chrome writing to w and writes the start of the
// document: the settings of h (as "otherData") and the names of the
// processes.
func NewChrome(w io.Writer, h Header) *Chrome {
	c := &Chrome{w: bufio.NewWriterSize(w, 64<<10), fn: map[int64]string{1: "main"}, first: true}
	c.spans.emit = c.writeSpan
	b := c.w.AvailableBuffer()
	b = append(b, `{"displayTimeUnit":"ns","otherData":{"schedlab_trace":`...)
	b = strconv.AppendInt(b, int64(h.version()), 10)
	b = append(b, `,"settings":`...)
	b = appendSettingsObject(b, h.Settings, false)
	b = append(b, "},\"traceEvents\":["...)
	c.w.Write(b)
	for pid, name := range [...]string{chromePidP: "Ps", chromePidM: "Ms", chromePidSched: "Sched"} {
		c.metadata("process_name", pid, 0, "name", name, 0)
		c.metadata("process_sort_index", pid, 0, "sort_index", "", pid)
	}
	c.metadata("thread_name", chromePidSched, 0, "name", "queues and global events", 0)
	return c
}

// Event writes one event.
func (c *Chrome) Event(ev *runtime.Event) {
	if c.closed {
		return
	}
	idx := c.n
	c.n++
	if ev.P >= 0 {
		c.thread(chromePidP, ev.P, &c.pSeen, 'P')
	}
	if ev.M >= 0 {
		c.thread(chromePidM, ev.M, &c.mSeen, 'M')
	}
	if ev.Kind == runtime.EvGoCreate && ev.G2 != 0 {
		c.fn[ev.G2] = ev.Reason
	}
	if !c.spans.event(ev, idx) {
		c.instant(ev)
	}
	if c.pending && ev.Time != c.pendingT {
		c.counter(c.pendingT)
	}
	if c.queues.event(ev) || !c.counts && !c.pending {
		c.pending, c.pendingT = true, ev.Time
	}
}

// Close closes the spans still open at the time of the last event, ends
// the JSON document and flushes it. It does not close the underlying
// writer. It returns the first error met by any write.
func (c *Chrome) Close() error {
	if c.closed {
		return c.w.Flush()
	}
	c.spans.finish()
	if c.pending {
		c.counter(c.pendingT)
	}
	c.closed = true
	c.w.WriteString("\n]}\n")
	return c.w.Flush()
}

// begin starts a traceEvents element, in the free space of c.w's buffer
// (made large enough for most elements), so that end writes it without a
// copy.
func (c *Chrome) begin() []byte {
	if c.w.Available() < 512 {
		c.w.Flush()
	}
	b := c.w.AvailableBuffer()
	if c.first {
		c.first = false
		return append(b, '\n')
	}
	return append(b, ",\n"...)
}

// end writes the element built in b.
func (c *Chrome) end(b []byte) {
	c.w.Write(b)
}

// metadata writes a metadata event ("ph":"M") whose args hold key: either
// the string sval or, when sval is empty, the number nval.
func (c *Chrome) metadata(name string, pid int, tid int32, key, sval string, nval int) {
	b := c.begin()
	b = append(b, `{"name":"`...)
	b = append(b, name...)
	b = append(b, `","ph":"M","ts":0,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, `,"args":{"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	if sval != "" {
		b = appendJSONString(b, sval, false)
	} else {
		b = strconv.AppendInt(b, int64(nval), 10)
	}
	c.end(append(b, "}}"...))
}

// thread names thread id of process pid ("P3", "M0") the first time it is
// seen.
func (c *Chrome) thread(pid int, id int32, seen *[]bool, letter byte) {
	if id >= maxTrackID {
		return
	}
	for int(id) >= len(*seen) {
		*seen = append(*seen, false)
	}
	if (*seen)[id] {
		return
	}
	(*seen)[id] = true
	name := string(appendID(nil, letter, int64(id), false))
	c.metadata("thread_name", pid, id, "name", name, 0)
	c.metadata("thread_sort_index", pid, id, "sort_index", "", int(id))
}

// instant writes ev as an instant event on its P's thread, else its M's,
// else the Sched process.
func (c *Chrome) instant(ev *runtime.Event) {
	pid, tid := chromePidSched, int32(0)
	switch {
	case ev.P >= 0:
		pid, tid = chromePidP, ev.P
	case ev.M >= 0:
		pid, tid = chromePidM, ev.M
	}
	b := c.begin()
	b = append(b, `{"name":"`...)
	b = appendKindName(b, ev.Kind)
	b = append(b, `","cat":"event","ph":"i","s":"t","ts":`...)
	b = appendMicros(b, ev.Time)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, `,"args":{"seq":`...)
	b = strconv.AppendUint(b, ev.Seq, 10)
	b = appendEventFields(b, ev, false)
	c.end(append(b, "}}"...))
}

// counter writes the queue counters at time t, unless they are unchanged.
func (c *Chrome) counter(t int64) {
	c.pending = false
	global, runq := c.queues.counts()
	if c.counts && global == c.global && runq == c.runq {
		return
	}
	c.counts, c.global, c.runq = true, global, runq
	b := c.begin()
	b = append(b, `{"name":"queues","ph":"C","ts":`...)
	b = appendMicros(b, t)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, chromePidSched, 10)
	b = append(b, `,"tid":0,"args":{"global":`...)
	b = strconv.AppendInt(b, global, 10)
	b = append(b, `,"runnable":`...)
	b = strconv.AppendInt(b, runq, 10)
	c.end(append(b, "}}"...))
}

// writeSpan writes a closed span as a complete event.
func (c *Chrome) writeSpan(s *span) {
	pid := chromePidP
	if s.track == trackM {
		pid = chromePidM
	}
	b := c.begin()
	b = append(b, `{"name":"`...)
	b = c.appendSpanName(b, s)
	b = append(b, `","cat":"`...)
	b = append(b, [...]string{spanRun: "run", spanSyscall: "syscall", spanSpin: "spin", spanNetpoll: "netpoll"}[s.kind]...)
	b = append(b, `","ph":"X","ts":`...)
	b = appendMicros(b, s.start)
	b = append(b, `,"dur":`...)
	b = appendMicros(b, s.end-s.start)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(s.id), 10)
	b = append(b, `,"args":{`...)
	if s.g != 0 {
		b = append(b, `"g":`...)
		b = strconv.AppendInt(b, s.g, 10)
		if fn, ok := c.fn[s.g]; ok {
			b = append(b, `,"fn":`...)
			b = appendJSONString(b, fn, false)
		}
		b = append(b, ',')
	}
	b = append(b, `"start":"`...)
	b = appendKindName(b, s.startKind)
	b = append(b, '"')
	if s.startKind == runtime.EvGoStart {
		if s.inherit {
			b = append(b, `,"slice":"inherit"`...)
		} else {
			b = append(b, `,"slice":"new"`...)
		}
	}
	b = append(b, `,"start_seq":`...)
	b = strconv.AppendUint(b, s.startSeq, 10)
	if s.endKind != runtime.EvNone {
		b = append(b, `,"end_seq":`...)
		b = strconv.AppendUint(b, s.endSeq, 10)
		b = append(b, `,"end":"`...)
		b = appendKindName(b, s.endKind)
		b = append(b, '"')
		if s.endReason != "" {
			b = append(b, `,"reason":`...)
			b = appendJSONString(b, s.endReason, false)
		}
	} else {
		b = append(b, `,"end":"end of trace"`...)
	}
	c.end(append(b, "}}"...))
}

// appendSpanName appends the name of a span, JSON-escaped without quotes:
// "G12 worker" (or "G12" when the function is not known) for a run,
// "syscall G12" for a syscall, "spinning", "netpoll".
func (c *Chrome) appendSpanName(b []byte, s *span) []byte {
	switch s.kind {
	case spanSyscall:
		b = append(b, "syscall G"...)
		return strconv.AppendInt(b, s.g, 10)
	case spanSpin:
		return append(b, "spinning"...)
	case spanNetpoll:
		return append(b, "netpoll"...)
	}
	b = append(b, 'G')
	b = strconv.AppendInt(b, s.g, 10)
	if fn := c.fn[s.g]; fn != "" {
		b = append(b, ' ')
		b = appendJSONStringBody(b, fn, false)
	}
	return b
}
