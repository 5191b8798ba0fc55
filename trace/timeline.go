// The HTML timeline.
//
// `go tool trace` shows a run as lanes over time; this writer makes the
// same kind of picture as one self-contained HTML file: no network, no CDN,
// no server. Open it in any browser, send it by mail, attach it to a bug.
//
// Division of labour: Go derives, the page draws. This file collects the
// whole run (a timeline cannot be streamed: the page needs the time range
// and every lane before it can draw) and on Close renders timeline.html
// (embedded with go:embed, through html/template) with one compact JSON
// object of flat integer arrays:
//
//	{"version":1, "settings":[["procs","2"],...],
//	 "kinds":["None","GoCreate",...],   // index = runtime.EventKind
//	 "strings":["","worker",...],       // interned Reason strings
//	 "ev":[seq,t,p,m,g,kind,g2,p2,arg,reason, ...],  // 10 per event
//	 "spans":[track,id,kind,g,start,end,startIdx,endIdx, ...], // 8 per span
//	 "queues":[t,global,runnable, ...], // 3 per change
//	 "gc":[kind,p,g,start,end,arg,reason,startIdx, ...], // 8 per GC span, only when there are any
//	 "ps":[0,1], "ms":[0,1,2], "start":0, "end":123456}
//
// Spans come from spans.go (track 0 = P, 1 = M; kind 0 = run, 1 =
// syscall, 2 = spinning, 3 = blocked in netpoll; startIdx and endIdx index "ev", -1 when the span
// was still open at the end). Queue lengths come from queues.go, one entry
// per virtual time at which they changed. "ps" holds every P of the run:
// those of the header's procs setting and of every ProcResize, even if
// they never ran anything, and any other P an event names; "ms" the Ms
// the events name. Integers are virtual ns; the page formats them.
// Strings are escaped for a <script> element.
//
// GC spans come from gcspans.go (kind 0 = cycle, arg its number; 1 =
// stop-the-world pause; 2 = a mark worker marking on P p, arg its mode:
// 1 dedicated, 2 fractional, 3 idle; reason indexes "strings"). A run
// that has them gets the "gc" key and, in the page, the code that draws
// them, which the template leaves out otherwise: the page of a run
// without GC events is byte for byte what it was before the collector
// had a view.
//
// The page (timeline.html) draws on a canvas: a lane per P and per M, run
// spans coloured per goroutine (a hue from the G id, so G5 has the same
// colour in every run; on an M's lane labelled with the P it holds),
// syscall, spinning and netpoll spans, parked Ms, markers for the events
// a person looks for (create, block, unblock, steal, preempt, syscall,
// the network's readiness and polls, ...), and a
// graph of the two queue lengths; with GC events, a GC band above the P
// lanes (each cycle, each stop-the-world pause, which is also shaded
// over every lane) and the mark workers' spans on the P lanes, coloured
// by mode. Wheel zooms around the pointer, drag
// pans, hover shows details, click pins them and highlights the
// goroutine. At draw time it only visits what is on screen (binary search
// per lane), merges spans narrower than a pixel into blocks and draws one
// marker of a kind per pixel, jumping over the rest by binary search, so
// the cost of a frame follows the width of the screen rather than the
// length of the run. window.__schedlab exposes what is drawn (lanes,
// spans, their places on screen, the tooltip) to the browser test and to
// tools.
//
// Output is deterministic like every writer here: the data is built in
// event order, strings are interned in order of first use, the template is
// fixed, and nothing depends on the host or the clock.

package trace

import (
	_ "embed"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/runtime"
)

//go:embed timeline.html
var timelineHTML string

// timelineTemplate renders the page.
var timelineTemplate = template.Must(template.New("timeline.html").Parse(timelineHTML))

// Numbers per entry of the flat arrays of the page's data.
const (
	timelineEvStride    = 10 // seq, t, p, m, g, kind, g2, p2, arg, reason
	timelineSpanStride  = 8  // track, id, kind, g, start, end, startIdx, endIdx
	timelineQueueStride = 3  // t, global, runnable
	timelineGCStride    = 8  // kind, p, g, start, end, arg, reason, startIdx
)

// A Timeline collects a run and writes it as a self-contained HTML
// timeline when closed. It implements runtime.Tracer.
type Timeline struct {
	w      io.Writer
	h      Header
	spans  spanTracker
	queues queueModel
	ev     []int64          // events, timelineEvStride per event
	sp     []int64          // spans, timelineSpanStride per span
	q      []int64          // queue changes, timelineQueueStride per change
	gc     gcTracker        // pairs the GC's events into spans
	gcs    []int64          // GC spans, timelineGCStride per span
	strs   []string         // interned strings; strs[0] = ""
	strIdx map[string]int64 // string → index in strs (lookup only)
	ps, ms []bool           // P i, M i was seen
	start  int64
	closed bool
	err    error
}

var _ runtime.Tracer = (*Timeline)(nil)

// NewTimeline returns a Timeline that will write the page for a run with
// header h to w when closed.
func NewTimeline(w io.Writer, h Header) *Timeline {
	t := &Timeline{w: w, h: h, strs: []string{""}, strIdx: map[string]int64{"": 0}}
	t.spans.emit = t.addSpan
	t.gc.emit = t.addGCSpan
	// Every P of the run has a lane, also one that stays idle throughout:
	// the header's procs are P0..procs-1.
	for _, kv := range h.Settings {
		if n, err := strconv.Atoi(kv.Value); kv.Key == "procs" && err == nil {
			markAll(&t.ps, n)
		}
	}
	return t
}

// markAll records that the ids 0..n-1 appeared.
func markAll(seen *[]bool, n int) {
	for id := min(n, maxTrackID) - 1; id >= 0; id-- {
		markSeen(seen, int32(id))
	}
}

// Event records one event.
func (t *Timeline) Event(ev *runtime.Event) {
	if t.closed {
		return
	}
	idx := len(t.ev) / timelineEvStride
	if idx == 0 {
		t.start = ev.Time
	}
	if ev.P >= 0 {
		markSeen(&t.ps, ev.P)
	}
	if ev.M >= 0 {
		markSeen(&t.ms, ev.M)
	}
	if ev.Kind == runtime.EvProcResize && ev.P2 > 0 {
		markAll(&t.ps, int(ev.P2)) // the new Ps, before they run anything
	}
	t.ev = append(t.ev, int64(ev.Seq), ev.Time, int64(ev.P), int64(ev.M), ev.G,
		int64(ev.Kind), ev.G2, int64(ev.P2), ev.Arg, t.intern(ev.Reason))
	t.spans.event(ev, idx)
	t.gc.event(ev, idx)
	if t.queues.event(ev) || idx == 0 {
		global, runq := t.queues.counts()
		if n := len(t.q); n > 0 && t.q[n-3] == ev.Time {
			t.q[n-2], t.q[n-1] = global, runq // several changes at one time: keep the last
		} else {
			t.q = append(t.q, ev.Time, global, runq)
		}
	}
}

// Close closes the spans still open at the time of the last event and
// writes the HTML page. It does not close the underlying writer. Calling it
// again does nothing and returns the first result.
func (t *Timeline) Close() error {
	if t.closed {
		return t.err
	}
	t.closed = true
	t.spans.finish()
	t.gc.finish()
	title := "schedlab timeline"
	if len(t.h.Settings) > 0 {
		title += " — " + settingsText(t.h.Settings)
	}
	t.err = timelineTemplate.Execute(t.w, struct {
		Title string
		Data  template.JS
		GC    bool // the run has GC spans: the page draws them
	}{title, template.JS(t.data()), len(t.gcs) > 0})
	return t.err
}

// markSeen records that id appeared.
func markSeen(seen *[]bool, id int32) {
	if id >= maxTrackID {
		return
	}
	for int(id) >= len(*seen) {
		*seen = append(*seen, false)
	}
	(*seen)[id] = true
}

// intern returns the index of s in t.strs, adding it on first use.
func (t *Timeline) intern(s string) int64 {
	if i, ok := t.strIdx[s]; ok {
		return i
	}
	i := int64(len(t.strs))
	t.strs = append(t.strs, s)
	t.strIdx[s] = i
	return i
}

// addSpan records a closed span.
func (t *Timeline) addSpan(s *span) {
	t.sp = append(t.sp, int64(s.track), int64(s.id), int64(s.kind), s.g,
		s.start, s.end, int64(s.startIdx), int64(s.endIdx))
}

// addGCSpan records a closed GC span.
func (t *Timeline) addGCSpan(s *gcSpan) {
	t.gcs = append(t.gcs, int64(s.kind), int64(s.p), s.g, s.start, s.end, s.arg, t.intern(s.reason), int64(s.startIdx))
}

// settingsText formats settings as "procs=2 seed=1", the way the text
// trace's header does.
func settingsText(settings []KV) string {
	var b []byte
	for i, kv := range settings {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendWord(b, kv.Key)
		b = append(b, '=')
		b = appendWord(b, kv.Value)
	}
	return string(b)
}

// data returns the page's data object as JSON that is safe inside a
// <script> element.
func (t *Timeline) data() string {
	var b []byte
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, int64(t.h.version()), 10)
	b = append(b, `,"settings":[`...)
	for i, kv := range t.h.Settings {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendJSONString(b, kv.Key, true)
		b = append(b, ',')
		b = appendJSONString(b, kv.Value, true)
		b = append(b, ']')
	}
	b = append(b, "],\n\"kinds\":["...)
	kinds := runtime.EventKinds()
	n := 0
	if len(kinds) > 0 {
		n = int(slices.Max(kinds)) + 1
	}
	for k := 0; k < n; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		if k == int(runtime.EvNone) {
			b = append(b, "None"...)
		} else {
			b = appendKindName(b, runtime.EventKind(k))
		}
		b = append(b, '"')
	}
	b = append(b, "],\n\"strings\":["...)
	for i, s := range t.strs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s, true)
	}
	b = append(b, "],\n\"ev\":"...)
	b = appendInts(b, t.ev, timelineEvStride)
	b = append(b, ",\n\"spans\":"...)
	b = appendInts(b, t.sp, timelineSpanStride)
	b = append(b, ",\n\"queues\":"...)
	b = appendInts(b, t.q, timelineQueueStride)
	if len(t.gcs) > 0 {
		b = append(b, ",\n\"gc\":"...)
		b = appendInts(b, t.gcs, timelineGCStride)
	}
	b = append(b, ",\n\"ps\":"...)
	b = appendSeen(b, t.ps)
	b = append(b, ",\"ms\":"...)
	b = appendSeen(b, t.ms)
	b = append(b, `,"start":`...)
	b = strconv.AppendInt(b, t.start, 10)
	b = append(b, `,"end":`...)
	b = strconv.AppendInt(b, max(t.spans.last, t.start), 10)
	b = append(b, "}"...)
	return string(b)
}

// appendInts appends xs as a JSON array, with a line break every 100
// entries of stride numbers so that the page's source stays viewable.
func appendInts(b []byte, xs []int64, stride int) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
			if i%(stride*100) == 0 {
				b = append(b, '\n')
			}
		}
		b = strconv.AppendInt(b, x, 10)
	}
	return append(b, ']')
}

// appendSeen appends the ids i with seen[i] as a JSON array.
func appendSeen(b []byte, seen []bool) []byte {
	ids := make([]string, 0, len(seen))
	for i, ok := range seen {
		if ok {
			ids = append(ids, strconv.Itoa(i))
		}
	}
	b = append(b, '[')
	b = append(b, strings.Join(ids, ",")...)
	return append(b, ']')
}
