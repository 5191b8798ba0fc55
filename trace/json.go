// The JSON lines trace.
//
// The text trace is for eyes; this one is for programs (jq, a notebook, a
// test written in another language). It is lossless: every field of every
// runtime.Event that holds a value is written, under a short fixed key, so
// a reader can rebuild the exact event stream. Each line is one JSON
// object; the first is a header:
//
//	{"schedlab_trace":1,"settings":{"procs":"2","seed":"1"}}
//	{"seq":1,"t":0,"p":0,"m":0,"g":1,"ev":"GoStart","arg":0}
//	{"seq":2,"t":0,"p":0,"m":0,"g":1,"ev":"GoCreate","g2":2,"arg":1,"reason":"worker"}
//
// Keys always come in the same order: seq, t, p, m, g, ev, g2, p2, arg,
// reason. p, m and g are written when they hold an id; g2, p2, arg and
// reason when the kind uses them (see kinds.go) or when they hold a value
// anyway. A missing key therefore means "none": -1 for p, m, p2, 0 for g,
// g2, arg, "" for reason. Times are integer virtual nanoseconds. Settings
// values are strings, in the order the Header gave them.
//
// Objects are written by hand, like the text trace, rather than through
// encoding/json: the key order is then fixed by this code, and no
// reflection runs per event. Strings are escaped per RFC 8259 (invalid
// UTF-8 becomes U+FFFD).

package trace

import (
	"bufio"
	"io"
	"strconv"

	"github.com/schedlab/schedlab/runtime"
)

// A JSON writes the JSON lines trace: a header object, then one object per
// event. It implements runtime.Tracer. Output is buffered: call Flush when
// the run ends.
type JSON struct {
	w *bufio.Writer
}

var _ runtime.Tracer = (*JSON)(nil)

// NewJSON returns a JSON writing to w, and writes the header object for h
// (`{"schedlab_trace":1,"settings":{"procs":"4",...}}`).
func NewJSON(w io.Writer, h Header) *JSON {
	j := &JSON{w: bufio.NewWriterSize(w, 64<<10)}
	j.w.Write(appendJSONHeader(j.w.AvailableBuffer(), h))
	return j
}

// Event writes one event. Errors are remembered and returned by Flush.
func (j *JSON) Event(ev *runtime.Event) {
	if j.w.Available() < 256 {
		j.w.Flush() // make room, so that the line is built in place
	}
	b := AppendJSON(j.w.AvailableBuffer(), ev)
	j.w.Write(append(b, '\n'))
}

// Flush writes any buffered data to the underlying writer and returns the
// first error met by any write so far.
func (j *JSON) Flush() error {
	return j.w.Flush()
}

// appendJSONHeader appends the header line.
func appendJSONHeader(b []byte, h Header) []byte {
	b = append(b, `{"schedlab_trace":`...)
	b = strconv.AppendInt(b, int64(h.version()), 10)
	b = append(b, `,"settings":`...)
	b = appendSettingsObject(b, h.Settings, false)
	return append(b, "}\n"...)
}

// appendSettingsObject appends settings as a JSON object of strings, keys
// in the given order.
func appendSettingsObject(b []byte, settings []KV, html bool) []byte {
	b = append(b, '{')
	for i, kv := range settings {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, kv.Key, html)
		b = append(b, ':')
		b = appendJSONString(b, kv.Value, html)
	}
	return append(b, '}')
}

// AppendJSON appends ev as one JSON object, without a newline, to dst and
// returns the extended buffer.
func AppendJSON(dst []byte, ev *runtime.Event) []byte {
	dst = append(dst, `{"seq":`...)
	dst = strconv.AppendUint(dst, ev.Seq, 10)
	dst = append(dst, `,"t":`...)
	dst = strconv.AppendInt(dst, ev.Time, 10)
	dst = appendEventFields(dst, ev, false)
	return append(dst, '}')
}

// appendEventFields appends the fields of ev after seq and t, each preceded
// by a comma: p, m, g, ev, then whichever of g2, p2, arg and reason apply.
// The Chrome writer reuses it for args.
func appendEventFields(b []byte, ev *runtime.Event, html bool) []byte {
	if ev.P >= 0 {
		b = append(b, `,"p":`...)
		b = strconv.AppendInt(b, int64(ev.P), 10)
	}
	if ev.M >= 0 {
		b = append(b, `,"m":`...)
		b = strconv.AppendInt(b, int64(ev.M), 10)
	}
	if ev.G != 0 {
		b = append(b, `,"g":`...)
		b = strconv.AppendInt(b, ev.G, 10)
	}
	b = append(b, `,"ev":"`...)
	b = appendKindName(b, ev.Kind)
	b = append(b, '"')
	uses := fieldsOf(ev.Kind)
	if uses&useG2 != 0 || ev.G2 != 0 {
		b = append(b, `,"g2":`...)
		b = strconv.AppendInt(b, ev.G2, 10)
	}
	if uses&useP2 != 0 || ev.P2 >= 0 {
		b = append(b, `,"p2":`...)
		b = strconv.AppendInt(b, int64(ev.P2), 10)
	}
	if uses&useArg != 0 || ev.Arg != 0 {
		b = append(b, `,"arg":`...)
		b = strconv.AppendInt(b, ev.Arg, 10)
	}
	if ev.Kind == runtime.EvGoStatus { // arg spelled out: runtime2.go's names
		b = append(b, `,"from":"`...)
		b = append(b, runtime.Status(ev.Arg>>8&0xff).GoName()...)
		b = append(b, `","to":"`...)
		b = append(b, runtime.Status(ev.Arg&0xff).GoName()...)
		b = append(b, '"')
	}
	if uses&useReason != 0 || ev.Reason != "" {
		b = append(b, `,"reason":`...)
		b = appendJSONString(b, ev.Reason, html)
	}
	return b
}

// appendKindName appends k's name, or "EventKind(N)" for a kind this
// package does not know. The result never needs JSON escaping.
func appendKindName(b []byte, k runtime.EventKind) []byte {
	if kindListed(k) {
		return append(b, k.String()...)
	}
	b = append(b, "EventKind("...)
	b = strconv.AppendUint(b, uint64(k), 10)
	return append(b, ')')
}
