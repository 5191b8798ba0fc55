// The text trace.
//
// This is the trace a person reads: `schedlab run --trace` prints it on
// stdout, interleaved with the program's own output, and golden files lock
// it byte for byte. So it has three duties, in this order: be exact (every
// scheduling event, nothing that depends on the host), be readable (fixed
// columns that line up, Go's own names and wait reasons), and be fast (a
// run of millions of events must not spend its time in the trace writer).
//
// The first line names the format and the run:
//
//	# schedlab trace v1 procs=2 seed=1 preempt=on
//
// then one line per event, in columns:
//
//	      1.500µs P0  M0  G2    GoBlock        reason="chan receive"
//	^time         ^P  ^M  ^G    ^event         ^details
//
//   - time: virtual time in microseconds with exactly three decimals (so
//     nanosecond precision), right-aligned in 11 bytes, followed by "µs".
//     Microseconds because the scheduler's own constants live there (20µs
//     sysmon retake, 10ms time slice = 10000.000µs) and three decimals keep
//     nanoseconds without floating point. Runs longer than 10s widen the
//     column instead of losing digits.
//   - P, M, G: "P0", "M3", "G12", or "-" when the event has none; left-aligned
//     in 3, 3 and 5 bytes (wider ids widen the column).
//   - event: the runtime.EventKind's name, left-aligned in 14 bytes (the
//     length of GoSyscallBegin).
//   - details: key=value pairs in a fixed order that depends only on the
//     kind. Values are ids (G5, P2), counts, durations in Go's syntax (5ms,
//     20µs), times in the time column's syntax, or strings written bare
//     when they are plain words and Go-quoted otherwise, as logfmt does
//     (fn=worker, reason="chan receive"). A field the kind does not use but
//     that holds a value anyway is appended as g2=, p2=, arg= or reason=,
//     so the trace never hides what an event carries. An event without
//     details has no trailing blanks.
//
// EvPrint is the exception: the program's output is printed as it is, with
// no columns and no prefix, followed by a newline unless the text already
// ends with one. So a trace reads like the program's output with the
// scheduling events between its lines, and `grep -v` on the time column
// gives back exactly what the program printed. Which goroutine printed
// when is in the JSON trace, and in the events around the line.
//
// A run that starts as Go does (--startup=go) begins with runtime.main's
// start-up, some 35 events of the runtime's own before main.main's first
// statement. With FoldStartup the writer holds them and, when main.main
// begins (Machine.OnMain calls MainStart), writes one comment line in
// their place, how many there were, the goroutines runtime.main spawned
// and where main.main begins:
//
//	# start-up: 34 events folded (--trace-startup shows them); runtime.main spawned G2 G3 G4 G17 G18 and called main.main at 184.459µs on P1 M0
//
// Every event after it is written as usual, the runtime goroutines' own
// included.
//
// The writer appends each line into bufio.Writer's own free space
// (AvailableBuffer) with strconv-style appenders, so writing an event
// neither allocates nor copies through an intermediate buffer.

package trace

import (
	"bufio"
	"io"
	"strconv"

	"github.com/schedlab/schedlab/runtime"
)

// Column widths of the text trace, in bytes.
const (
	textTimeWidth = 11 // "1000000.000" (10s); followed by "µs"
	textPWidth    = 3  // "P10"
	textMWidth    = 3  // "M10"
	textGWidth    = 5  // "G1000"
	textNameWidth = 14 // "GoSyscallBegin"
)

// A Text writes the text trace, one line per event (see the file comment
// and docs/trace-format.md for the format). It implements runtime.Tracer.
// Output is buffered: call Flush when the run ends.
type Text struct {
	w      *bufio.Writer
	fold   *startupFold // the start-up being folded, until main.main begins; nil when not folding
	folded int          // the events MainStart folded into its line
}

// A startupFold holds the text of runtime.main's start-up while it is
// folded (Text.FoldStartup).
type startupFold struct {
	lines   []byte // the events' lines, written as they are if main.main never begins
	events  int    // how many events, prints not counted
	spawned []byte // the goroutines created, " G2 G3", in order
}

var _ runtime.Tracer = (*Text)(nil)

// NewText returns a Text writing to w, and writes the header line for h
// (`# schedlab trace v1 procs=4 seed=1 preempt=on`).
func NewText(w io.Writer, h Header) *Text {
	t := &Text{w: bufio.NewWriterSize(w, 64<<10)}
	t.w.Write(appendTextHeader(t.w.AvailableBuffer(), h))
	return t
}

// Event writes one event. Errors are remembered and returned by Flush.
func (t *Text) Event(ev *runtime.Event) {
	if f := t.fold; f != nil {
		f.lines = AppendText(f.lines, ev)
		if ev.Kind != runtime.EvPrint {
			f.events++
		}
		if ev.Kind == runtime.EvGoCreate {
			f.spawned = appendID(append(f.spawned, ' '), 'G', ev.G2, ev.G2 == 0)
		}
		return
	}
	if t.w.Available() < 256 {
		t.w.Flush() // make room, so that the line is built in place
	}
	t.w.Write(AppendText(t.w.AvailableBuffer(), ev))
}

// Flush writes any buffered data to the underlying writer and returns the
// first error met by any write so far. Start-up events held by
// FoldStartup stay held.
func (t *Text) Flush() error {
	return t.w.Flush()
}

// FoldStartup makes t fold runtime.main's start-up: the events before
// main.main's first statement are held, not written, and MainStart
// replaces them with one comment line:
//
//	# start-up: 34 events folded (--trace-startup shows them); runtime.main spawned G2 G3 G4 G17 G18 and called main.main at 184.459µs on P1 M0
//
// Call it before the first event, for a run with a start-up
// (runtime.Config.RuntimeMain) whose Machine.OnMain calls MainStart. If
// main.main never begins (a limit stopped the start-up), Close writes the
// held events as they are.
func (t *Text) FoldStartup() {
	t.fold = &startupFold{}
}

// MainStart is runtime.main calling main.main at virtual time now on P p
// and M m (Machine.OnMain). If t folds the start-up, it writes the comment
// line in place of the held events, and every later event is written as
// usual; otherwise it does nothing.
func (t *Text) MainStart(now int64, p, m int32) {
	f := t.fold
	if f == nil {
		return
	}
	t.fold = nil
	t.folded = f.events
	b := append(t.w.AvailableBuffer(), "# start-up: "...)
	b = strconv.AppendInt(b, int64(f.events), 10)
	if f.events == 1 {
		b = append(b, " event folded"...)
	} else {
		b = append(b, " events folded"...)
	}
	b = append(b, " (--trace-startup shows them); runtime.main"...)
	if len(f.spawned) > 0 {
		b = append(b, " spawned"...)
		b = append(b, f.spawned...)
		b = append(b, " and"...)
	}
	b = append(b, " called main.main at "...)
	b = appendMicros(b, now)
	b = append(b, "µs on "...)
	b = appendID(b, 'P', int64(p), p < 0)
	b = append(b, ' ')
	b = appendID(b, 'M', int64(m), m < 0)
	b = append(b, '\n')
	t.w.Write(b)
}

// Folded returns the number of events (prints not counted) that MainStart
// folded into its one line: 0 before main.main begins, and for a trace
// that does not fold.
func (t *Text) Folded() int { return t.folded }

// Close ends the trace: it writes the start-up events still held, if
// main.main never began, then flushes. It returns the first error met by
// any write.
func (t *Text) Close() error {
	if f := t.fold; f != nil {
		t.fold = nil
		t.w.Write(f.lines)
	}
	return t.w.Flush()
}

// appendTextHeader appends the header line:
// "# schedlab trace v1 procs=4 seed=1\n".
func appendTextHeader(b []byte, h Header) []byte {
	b = append(b, "# schedlab trace v"...)
	b = strconv.AppendInt(b, int64(h.version()), 10)
	for _, kv := range h.Settings {
		b = append(b, ' ')
		b = appendWord(b, kv.Key)
		b = append(b, '=')
		b = appendWord(b, kv.Value)
	}
	return append(b, '\n')
}

// AppendText appends the text-trace line for ev, with its newline, to dst
// and returns the extended buffer. For EvPrint it appends the printed text
// itself. It is what Text writes for each event, for callers (such as the
// REPL's :step) that print single events.
func AppendText(dst []byte, ev *runtime.Event) []byte {
	if ev.Kind == runtime.EvPrint {
		dst = append(dst, ev.Reason...)
		if len(ev.Reason) == 0 || ev.Reason[len(ev.Reason)-1] != '\n' {
			dst = append(dst, '\n')
		}
		return dst
	}

	// columns
	start := len(dst)
	dst = appendMicros(dst, ev.Time)
	dst = padLeft(dst, start, textTimeWidth)
	dst = append(dst, "µs "...)
	start = len(dst)
	dst = appendID(dst, 'P', int64(ev.P), ev.P < 0)
	dst = padRight(dst, start, textPWidth)
	dst = append(dst, ' ')
	start = len(dst)
	dst = appendID(dst, 'M', int64(ev.M), ev.M < 0)
	dst = padRight(dst, start, textMWidth)
	dst = append(dst, ' ')
	start = len(dst)
	dst = appendID(dst, 'G', ev.G, ev.G == 0)
	dst = padRight(dst, start, textGWidth)
	dst = append(dst, ' ')
	start = len(dst)
	dst = appendKindName(dst, ev.Kind)
	dst = padRight(dst, start, textNameWidth)
	dst = append(dst, ' ')

	// details
	start = len(dst)
	dst, _ = appendTextDetails(dst, ev)
	if len(dst) == start {
		// No details: drop the blanks that padded the event name.
		for len(dst) > 0 && dst[len(dst)-1] == ' ' {
			dst = dst[:len(dst)-1]
		}
	}
	return append(dst, '\n')
}

// appendTextDetails appends the key=value details of ev, in the fixed order
// of its kind, then any extras (appendTextExtras). It reports false when
// the kind has no specific rendering and only the extras were written. It
// is long by design: one flat switch, a line or two per kind.
func appendTextDetails(b []byte, ev *runtime.Event) ([]byte, bool) {
	switch ev.Kind {
	case runtime.EvGoCreate:
		b = append(b, "new="...)
		b = appendID(b, 'G', ev.G2, ev.G2 == 0)
		b = append(b, " fn="...)
		b = appendWord(b, ev.Reason)
		b = append(b, " to="...)
		b = appendQueue(b, ev.Arg)
	case runtime.EvGoStart:
		if ev.Arg == 1 {
			b = append(b, "slice=inherit"...)
		} else {
			b = append(b, "slice=new"...)
		}
	case runtime.EvGoSched, runtime.EvGoPreempt:
		switch {
		case ev.Kind == runtime.EvGoSched && ev.Arg == 1:
			b = append(b, "to=runq"...) // goyield: the tail of the local ring
		case ev.Kind == runtime.EvGoPreempt && ev.Arg == 1:
			b = append(b, "to=runnext"...) // preempted for a stop-the-world
		default:
			b = append(b, "to=global"...)
		}
	case runtime.EvGoBlock:
		b = append(b, "reason="...)
		b = appendWord(b, ev.Reason)
	case runtime.EvGoUnblock:
		b = append(b, "g="...)
		b = appendID(b, 'G', ev.G2, ev.G2 == 0)
		b = append(b, " to="...)
		b = appendQueue(b, ev.Arg)
	case runtime.EvGoSyscallBegin, runtime.EvGoWork:
		b = append(b, "dur="...)
		b = appendDuration(b, ev.Arg)
	case runtime.EvGoSyscallEnd:
		b = append(b, "exit="...)
		b = appendWord(b, ev.Reason)
	case runtime.EvGoSleep:
		b = append(b, "dur="...)
		b = appendDuration(b, ev.Arg-ev.Time)
		b = append(b, " until="...)
		b = appendMicros(b, ev.Arg)
		b = append(b, "µs"...)
	case runtime.EvRunqSteal:
		b = append(b, "from="...)
		b = appendID(b, 'P', int64(ev.P2), ev.P2 < 0)
		b = append(b, " n="...)
		b = strconv.AppendInt(b, ev.Arg, 10)
		b = append(b, " g="...)
		b = appendID(b, 'G', ev.G2, ev.G2 == 0)
	case runtime.EvGlobalRunqPut, runtime.EvGlobalRunqGet:
		b = append(b, "n="...)
		b = strconv.AppendInt(b, ev.Arg, 10)
	case runtime.EvMStart:
		if ev.Arg == 1 {
			b = append(b, "spinning=true"...)
		} else {
			b = append(b, "spinning=false"...)
		}
	case runtime.EvTimerFire:
		b = append(b, "timer="...)
		b = appendWord(b, ev.Reason)
		if ev.G2 != 0 {
			b = append(b, " g="...)
			b = appendID(b, 'G', ev.G2, false)
		}
		b = append(b, " when="...)
		b = appendMicros(b, ev.Arg)
		b = append(b, "µs"...)
	case runtime.EvProcResize:
		b = append(b, "from="...)
		b = strconv.AppendInt(b, ev.Arg, 10)
		b = append(b, " to="...)
		b = strconv.AppendInt(b, int64(ev.P2), 10)
	case runtime.EvGoStatus:
		// --trace-states: the edge of runtime2.go's state machine, in its
		// own names, as _Grunning→_Gwaiting.
		b = append(b, runtime.Status(ev.Arg>>8&0xff).GoName()...)
		b = append(b, "→"...)
		b = append(b, runtime.Status(ev.Arg&0xff).GoName()...)
		if ev.Reason != "" {
			b = append(b, " reason="...)
			b = appendWord(b, ev.Reason)
		}
	case runtime.EvPrint:
		// AppendText prints the text itself; this column form is for
		// views that show a Print among events (the timeline's tooltip).
		b = append(b, "text="...)
		b = strconv.AppendQuote(b, ev.Reason)
	case runtime.EvNetReady:
		b = append(b, "fd="...)
		b = strconv.AppendInt(b, ev.Arg, 10)
		b = append(b, " mode="...)
		b = appendWord(b, ev.Reason)
	case runtime.EvThrottle:
		b = append(b, "dur="...)
		b = appendDuration(b, ev.Arg)
	case runtime.EvMOffCPU:
		b = append(b, "waiting="...)
		b = strconv.AppendInt(b, ev.Arg, 10)
		b = append(b, " why="...)
		b = appendWord(b, ev.Reason)
	case runtime.EvMOnCPU:
		b = append(b, "waited="...)
		b = appendDuration(b, ev.Arg)
	case runtime.EvGCBegin:
		b = append(b, "cycle="...)
		b = strconv.AppendInt(b, ev.Arg, 10)
		b = append(b, " trigger="...)
		b = appendWord(b, ev.Reason)
	case runtime.EvGCEnd:
		b = append(b, "cycle="...)
		b = strconv.AppendInt(b, ev.Arg, 10)
	case runtime.EvSTWBegin:
		b = append(b, "reason="...)
		b = appendWord(b, ev.Reason)
	case runtime.EvSTWEnd:
		b = append(b, "dur="...)
		b = appendDuration(b, ev.Arg)
		b = append(b, " reason="...)
		b = appendWord(b, ev.Reason)
	case runtime.EvGCWorkerStart:
		b = append(b, "mode="...)
		b = appendWord(b, ev.Reason)
	case runtime.EvGCWorkerStop:
		b = append(b, "dur="...)
		b = appendDuration(b, ev.Arg)
		b = append(b, " mode="...)
		b = appendWord(b, ev.Reason)
	case runtime.EvGCAssistBegin:
		b = append(b, "owes="...)
		b = strconv.AppendInt(b, ev.Arg, 10)
	case runtime.EvGCAssistEnd:
		b = append(b, "marked="...)
		b = appendDuration(b, ev.Arg)
	case runtime.EvNetpoll:
		b = append(b, "n="...)
		b = strconv.AppendInt(b, ev.Arg, 10)
		b = append(b, " by="...)
		b = appendWord(b, ev.Reason)
	case runtime.EvGoDestroy, runtime.EvProcStart, runtime.EvProcStop, runtime.EvProcSteal,
		runtime.EvMSpinning, runtime.EvMStop, runtime.EvMNetpoll:
		// The columns say it all.
	default:
		return appendTextExtras(b, ev, 0), false
	}
	return appendTextExtras(b, ev, fieldsOf(ev.Kind)), true
}

// appendQueue appends the name of the queue a GoCreate or GoUnblock put its
// G in, or the raw number for a value event.go does not define.
func appendQueue(b []byte, arg int64) []byte {
	if name := queueName(arg); name != "" {
		return append(b, name...)
	}
	return strconv.AppendInt(b, arg, 10)
}

// appendTextExtras appends, as g2=, p2=, arg= and reason=, each of those
// fields that holds a value although the kind does not use it (uses says
// which it does). For a kind this package does not know (uses = 0) that is
// its whole rendering. So nothing an event carries is lost, and an event
// that does not follow event.go's contract stands out.
func appendTextExtras(b []byte, ev *runtime.Event, uses fieldSet) []byte {
	sep := func(b []byte) []byte {
		if len(b) > 0 && b[len(b)-1] != ' ' {
			b = append(b, ' ')
		}
		return b
	}
	if uses&useG2 == 0 && ev.G2 != 0 {
		b = append(sep(b), "g2="...)
		b = appendID(b, 'G', ev.G2, false)
	}
	if uses&useP2 == 0 && ev.P2 >= 0 {
		b = append(sep(b), "p2="...)
		b = appendID(b, 'P', int64(ev.P2), false)
	}
	if uses&useArg == 0 && ev.Arg != 0 {
		b = append(sep(b), "arg="...)
		b = strconv.AppendInt(b, ev.Arg, 10)
	}
	if uses&useReason == 0 && ev.Reason != "" {
		b = append(sep(b), "reason="...)
		b = appendWord(b, ev.Reason)
	}
	return b
}
