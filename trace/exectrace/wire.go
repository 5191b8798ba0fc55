// The wire layer: bytes of the Go 1.26 execution trace format.
//
// Written from the format's own definitions in the Go tree, which this
// file follows and cites (no code of theirs is copied):
//
//   - $GOROOT/src/internal/trace/tracev2/events.go: the event types and,
//     in specs, each one's arguments; MaxBatchSize, MaxFramesPerStack,
//     MaxEventTrailerDataSize.
//   - $GOROOT/src/internal/trace/version/version.go: the header,
//     "go 1.%d trace\x00\x00\x00".
//   - $GOROOT/src/internal/trace/batch.go and generation.go: how the
//     reader splits a generation into batches and what it requires of
//     one (a frequency and a clock snapshot, an EndOfGeneration byte).
//
// A trace is the header, then generations. A generation is a sequence of
// batches ended by one EvEndOfGeneration byte. A batch is
//
//	EvEventBatch gen m time size data[size]
//
// with the four numbers as unsigned LEB128 varints (encoding/binary's
// Uvarint), m the thread (M) the batch belongs to and time the base
// timestamp. The data of an event batch is a run of events, each a type
// byte and its arguments as varints; the first argument of every timed
// event is its timestamp's difference from the previous event of the
// batch (from the base for the first). Three batches are special by their
// first byte: EvStrings (the generation's string table: EvString id len
// bytes), EvStacks (its stack table: EvStack id nframes, then per frame pc
// funcID fileID line — the order generation.go's addStacks reads; the
// comment on spec IsStack says "PC, file ID, func ID", the reader is the
// authority) and EvSync (EvFrequency ticks-per-second, then
// EvClockSnapshot dt mono sec nsec). IDs 0 of strings and stacks mean
// "none" and are never written.
//
// Event batches are at most MaxBatchSize bytes of data; a thread whose
// events do not fit starts another batch, and the reader joins a thread's
// batches in the order they come in the file.

package exectrace

import (
	"bufio"
	"encoding/binary"
	"unicode/utf8"
)

// Event types, numbered as tracev2/events.go numbers them (the iota
// order there). Only those this encoder writes are named.
const (
	evEventBatch          = 1  // start of a per-M batch [gen, M ID, timestamp, batch length]
	evStacks              = 2  // start of a section of the stack table
	evStack               = 3  // stack table entry [ID, nframes, {PC, func, file, line}...]
	evStrings             = 4  // start of a section of the string dictionary
	evString              = 5  // string dictionary entry [ID, length, string]
	evFrequency           = 8  // timestamp units per second [freq]
	evProcsChange         = 9  // GOMAXPROCS [dt, GOMAXPROCS, stack]
	evProcStart           = 10 // start of P [dt, P, P seq]
	evProcStop            = 11 // stop of P [dt]
	evProcSteal           = 12 // P was stolen [dt, P, P seq, M]
	evProcStatus          = 13 // P status at the start of a generation [dt, P, status]
	evGoCreate            = 14 // goroutine creation [dt, new G, new stack, stack]
	evGoStart             = 16 // goroutine starts running [dt, G, G seq]
	evGoDestroy           = 17 // goroutine ends [dt]
	evGoStop              = 19 // goroutine yields, runnable [dt, reason string, stack]
	evGoBlock             = 20 // goroutine blocks [dt, reason string, stack]
	evGoUnblock           = 21 // goroutine is unblocked [dt, G, G seq, stack]
	evGoSyscallBegin      = 22 // syscall enter [dt, P seq, stack]
	evGoSyscallEnd        = 23 // syscall exit [dt]
	evGoSyscallEndBlocked = 24 // syscall exit, it lost its P [dt]
	evGoStatus            = 25 // G status at the start of a generation [dt, G, M, status]
	evUserLog             = 44 // trace.Log [dt, task, key string, value string, stack]
	evGoCreateBlocked     = 47 // goroutine creation, blocked [dt, new G, new stack, stack]
	evSync                = 50 // start of a sync batch [EvFrequency, EvClockSnapshot]
	evClockSnapshot       = 51 // trace, mono and wall clocks [dt, mono, sec, nsec]
	evEndOfGeneration     = 52 // in-band end of a generation (Go 1.26)
)

// Statuses, as tracev2's GoStatus and ProcStatus number them.
const (
	goRunnable = 1
	goRunning  = 2
	goSyscall  = 3
	goWaiting  = 4

	procRunning = 1
	procIdle    = 2
	procSyscall = 3
)

// Limits of the format (tracev2/events.go).
const (
	maxBatchSize     = 64 << 10 // MaxBatchSize: bytes of data in one batch
	maxFrames        = 128      // MaxFramesPerStack
	maxStringSize    = 1 << 10  // MaxEventTrailerDataSize: bytes of one string
	maxEventSize     = 1 + 6*binary.MaxVarintLen64
	header           = "go 1.26 trace\x00\x00\x00" // version.go's headerFmt, for Go 1.26
	noThread         = ^uint64(0)                  // ThreadID(-1), NoThread, as a varint argument
	ticksPerSecond   = 1_000_000_000               // the trace clock: one tick per virtual nanosecond
	backgroundTaskID = 0                           // the task of a log outside any task
)

// appendUvarint appends v as a varint.
func appendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

// writeBatch writes one batch: its header, then data.
func writeBatch(w *bufio.Writer, gen, m, time uint64, data []byte) {
	var hdr [1 + 4*binary.MaxVarintLen64]byte
	h := append(hdr[:0], evEventBatch)
	h = appendUvarint(h, gen)
	h = appendUvarint(h, m)
	h = appendUvarint(h, time)
	h = appendUvarint(h, uint64(len(data)))
	w.Write(h)
	w.Write(data)
}

// A sectionWriter writes a table (strings or stacks) as batches whose data
// begins with the section's type byte, starting another batch before one
// would pass MaxBatchSize.
type sectionWriter struct {
	w    *bufio.Writer
	gen  uint64
	time uint64 // the batches' base timestamp: the generation's start, as the runtime stamps every batch
	kind byte
	data []byte
}

// add appends one entry, flushing the batch first if the entry does not fit.
func (s *sectionWriter) add(entry []byte) {
	if len(s.data) > 0 && len(s.data)+len(entry) > maxBatchSize {
		s.flush()
	}
	if len(s.data) == 0 {
		s.data = append(s.data, s.kind)
	}
	s.data = append(s.data, entry...)
}

// flush writes the batch built so far, if any.
func (s *sectionWriter) flush() {
	if len(s.data) > 0 {
		writeBatch(s.w, s.gen, noThread, s.time, s.data)
		s.data = s.data[:0]
	}
}

// clip cuts s to at most n bytes without splitting a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
