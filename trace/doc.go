// Package trace turns the Machine's event stream into something a person or
// a tool can read.
//
// The runtime package reports every scheduling decision as one
// runtime.Event to a runtime.Tracer. This package holds the Tracers that
// write those events out, one format per file:
//
//   - text.go: the human trace, one line per event in fixed columns
//     (virtual time, P, M, G, event, details), interleaved with the
//     program's own output, with runtime.main's start-up folded into one
//     line (FoldStartup). This is what `schedlab run --trace` prints and
//     what golden files lock.
//   - json.go: JSON lines, one object per event, lossless, for jq and
//     scripts.
//   - chrome.go: the Chrome Trace Event Format that Perfetto and
//     chrome://tracing open, with one track per P and per M.
//   - timeline.go: a self-contained HTML page in the spirit of `go tool
//     trace`, with lanes, zoom, pan and details on hover.
//   - schedtrace.go: the lines GODEBUG=schedtrace=X,scheddetail=1 prints,
//     every period of virtual time. Unlike the others it reads the
//     Machine's state (runtime.Snapshot), which events only imply.
//   - gctrace.go: the line GODEBUG=gctrace=1 prints at the end of each
//     GC cycle, from the Machine's record of the cycle
//     (runtime.GCCycleStats) rather than from events.
//
// Two derivations are shared by the graphical writers: spans.go turns the
// point events into run, syscall and spinning spans on each P and M, and
// queues.go derives the global run queue length and the runnable count;
// gcspans.go pairs the collector's events into the timeline's GC spans
// (cycles, stop-the-world pauses, mark workers).
// kinds.go says which Event fields each kind uses; format.go holds the small
// appenders (times, durations, quoting, JSON strings) that keep every writer
// fast and byte-for-byte deterministic.
//
// Determinism is the rule of the package: output depends only on the
// events and the Header, never on wall time, addresses, map order or the
// host. No map is ever iterated into output; Settings keep the order they
// were given in.
//
// The writers buffer their output. Text and JSON must be flushed with
// Flush, Chrome and Timeline finished with Close; none of them closes the
// io.Writer it was given. A Tracer has no way to report an error, so each
// writer remembers the first write error and returns it from Flush or
// Close, dropping everything after it.
//
// Package tracetest reads and checks what these writers write (JSON lines
// back into events, a Chrome trace against the format, a timeline page for
// self-containment), for tests here and in the command.
//
// The formats are described for users in docs/trace-format.md.
package trace

// FormatVersion is the version of the trace formats written by this
// package. It appears in the first line of the text trace
// (`# schedlab trace v1 ...`), the header object of JSON lines and the
// Chrome export's otherData. It changes whenever a change to a format could
// break a reader.
const FormatVersion = 1

// A Header identifies a run: the format version and the settings that
// shaped it (procs, seed, preemption, ...). Every writer prints it first.
type Header struct {
	Version  int  // format version; 0 means FormatVersion
	Settings []KV // run settings, printed in the order given
}

// A KV is one setting of a run, such as {"procs", "4"}. A slice of KV keeps
// the order its builder chose, which a map would not.
type KV struct {
	Key   string // the setting's name, as the flag spells it without dashes
	Value string // its value, as text
}

// version returns the header's format version, defaulting to FormatVersion.
func (h Header) version() int {
	if h.Version == 0 {
		return FormatVersion
	}
	return h.Version
}
