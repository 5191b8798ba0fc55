// Package tracetest reads and checks the files package trace writes, for
// the tests of trace itself and of the commands that write them: JSON
// lines decoded back into events, a Chrome trace validated against the
// Trace Event Format as schedlab uses it, an HTML timeline checked to be
// self-contained and its data decoded, the event lines of a text trace
// counted, Go's gctrace lines read back into their fields, and a Go
// execution trace's GC ranges held to the run's GC events (gcranges.go).
//
// Every checker returns an error that lists what is wrong rather than
// taking a *testing.T, so that it serves any test and any tool.
package tracetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/runtime"
)

// maxErrors is how many problems a checker lists before it stops.
const maxErrors = 20

// problems collects what a checker finds wrong.
type problems struct{ list []string }

func (p *problems) add(format string, args ...any) {
	if len(p.list) < maxErrors {
		p.list = append(p.list, fmt.Sprintf(format, args...))
	} else if len(p.list) == maxErrors {
		p.list = append(p.list, "...")
	}
}

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return errors.New(strings.Join(p.list, "\n"))
}

// jsonEvent is one decoded line of the JSON trace; pointers tell missing
// keys from zero values.
type jsonEvent struct {
	Seq    *uint64 `json:"seq"`
	T      *int64  `json:"t"`
	P      *int32  `json:"p"`
	M      *int32  `json:"m"`
	G      *int64  `json:"g"`
	Ev     string  `json:"ev"`
	G2     *int64  `json:"g2"`
	P2     *int32  `json:"p2"`
	Arg    *int64  `json:"arg"`
	Reason *string `json:"reason"`

	// GoStatus spells its arg out; the reader checks the spelling.
	From *string `json:"from"`
	To   *string `json:"to"`
}

// kindsByName maps an event name to its kind.
var kindsByName = func() map[string]runtime.EventKind {
	kinds := map[string]runtime.EventKind{}
	for _, k := range runtime.EventKinds() {
		kinds[k.String()] = k
	}
	return kinds
}()

// event rebuilds the runtime.Event, with the documented defaults for
// missing keys.
func (j *jsonEvent) event() (runtime.Event, error) {
	if j.Seq == nil || j.T == nil || j.Ev == "" {
		return runtime.Event{}, errors.New("lacks seq, t or ev")
	}
	k, ok := kindsByName[j.Ev]
	if !ok {
		return runtime.Event{}, fmt.Errorf("unknown ev %q", j.Ev)
	}
	ev := runtime.Event{Seq: *j.Seq, Time: *j.T, P: -1, M: -1, P2: -1, Kind: k}
	if j.P != nil {
		ev.P = *j.P
	}
	if j.M != nil {
		ev.M = *j.M
	}
	if j.G != nil {
		ev.G = *j.G
	}
	if j.G2 != nil {
		ev.G2 = *j.G2
	}
	if j.P2 != nil {
		ev.P2 = *j.P2
	}
	if j.Arg != nil {
		ev.Arg = *j.Arg
	}
	if k == runtime.EvGoStatus {
		from, to := runtime.Status(ev.Arg>>8&0xff).GoName(), runtime.Status(ev.Arg&0xff).GoName()
		if j.From == nil || j.To == nil || *j.From != from || *j.To != to {
			return runtime.Event{}, fmt.Errorf("GoStatus with arg %d wants from %q and to %q", ev.Arg, from, to)
		}
	} else if j.From != nil || j.To != nil {
		return runtime.Event{}, errors.New("from and to belong to GoStatus only")
	}
	if j.Reason != nil {
		ev.Reason = *j.Reason
	}
	return ev, nil
}

// ReadJSON parses JSON lines as trace.NewJSON writes them and returns the
// header object and the events, rebuilt with the documented defaults for
// missing keys. Unknown keys, unknown event names and lines that do not
// parse are errors.
func ReadJSON(data []byte) (header map[string]any, evs []runtime.Event, err error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			if err := json.Unmarshal(sc.Bytes(), &header); err != nil {
				return nil, nil, fmt.Errorf("line 1 (header): %v", err)
			}
			if _, ok := header["schedlab_trace"]; !ok {
				return nil, nil, fmt.Errorf("line 1 is not a header: %s", sc.Bytes())
			}
			continue
		}
		var j jsonEvent
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&j); err != nil {
			return nil, nil, fmt.Errorf("line %d: %v: %s", n, err, sc.Bytes())
		}
		ev, err := j.event()
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %v: %s", n, err, sc.Bytes())
		}
		evs = append(evs, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if header == nil {
		return nil, nil, errors.New("empty JSON trace: no header")
	}
	return header, evs, nil
}

// textEventLine matches the event lines of a text trace: they start with
// the time column.
var textEventLine = regexp.MustCompile(`^ *-?[0-9]+\.[0-9]{3}µs `)

// textFoldLine matches the line that stands for runtime.main's start-up in
// a text trace (trace.Text.FoldStartup) and captures its count of events.
var textFoldLine = regexp.MustCompile(`^# start-up: ([0-9]+) events? folded `)

// TextEvents returns the number of events of a text trace: its event
// lines, those that start with the time column, plus the events a folded
// start-up's line counts. The header and the program's output are not
// counted, so the count is that of the events other than Print.
func TextEvents(data []byte) int {
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if textEventLine.MatchString(line) {
			n++
		} else if m := textFoldLine.FindStringSubmatch(line); m != nil {
			k, _ := strconv.Atoi(m[1])
			n += k
		}
	}
	return n
}

// A ChromeDoc is a parsed Chrome trace. Numbers stay json.Number so that
// ts can be checked for its exact decimal form.
type ChromeDoc struct {
	DisplayTimeUnit string           `json:"displayTimeUnit"`
	OtherData       map[string]any   `json:"otherData"`
	TraceEvents     []map[string]any `json:"traceEvents"`
}

// CheckChrome parses a Chrome trace as trace.NewChrome writes it and
// validates it against the Trace Event Format as schedlab uses it: every
// element has ph, ts, pid, tid and a name; ts is microseconds with three
// decimals; complete events have dur >= 0; processes are named Ps, Ms and
// Sched, and every thread with events is named; the spans of a thread do
// not overlap; and every event of evs is carried (as an instant or as the
// start of a slice, by its seq). It returns the document even when it
// reports problems, if it parsed.
func CheckChrome(data []byte, evs []runtime.Event) (*ChromeDoc, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc ChromeDoc
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("chrome trace does not parse: %v", err)
	}
	c := &chromeCheck{
		carried:      map[uint64]bool{},
		threadNamed:  map[[2]int64]bool{},
		threadUsed:   map[[2]int64]bool{},
		processNamed: map[int64]string{},
		lastEnd:      map[[2]int64]float64{},
	}
	if doc.DisplayTimeUnit != "ns" {
		c.p.add("displayTimeUnit = %q, want ns", doc.DisplayTimeUnit)
	}
	for _, e := range doc.TraceEvents {
		c.event(e)
	}
	c.finish(evs)
	return &doc, c.p.err()
}

// A chromeCheck is the state of CheckChrome as it reads the events of a
// Chrome trace: what it found wrong so far, and what it saw of threads,
// processes and the events' seqs.
type chromeCheck struct {
	p            problems
	carried      map[uint64]bool      // the seqs of schedlab events carried
	threadNamed  map[[2]int64]bool    // threads (pid, tid) with a thread_name
	threadUsed   map[[2]int64]bool    // threads with slices or instants
	processNamed map[int64]string     // process names by pid
	lastEnd      map[[2]int64]float64 // the end of each thread's last slice
}

// event checks one trace event: the keys every event has, then what its
// phase (ph) requires.
func (c *chromeCheck) event(e map[string]any) {
	th, ts, ok := c.common(e)
	if !ok {
		return
	}
	switch ph, _ := e["ph"].(string); ph {
	case "M":
		c.metadata(e, th)
	case "X":
		c.complete(e, th, ts)
	case "i":
		if s, _ := e["s"].(string); s != "t" {
			c.p.add("instant %v: scope %q, want t", e, s)
		}
		c.threadUsed[th] = true
		c.seqArg(e, "seq")
	case "C":
		args, _ := e["args"].(map[string]any)
		if _, ok := args["global"].(json.Number); !ok {
			c.p.add("counter %v has no global", e)
		}
	default:
		c.p.add("event %v: unexpected ph %q", e, ph)
	}
}

// common checks the keys every event has (ph, ts, pid, tid, name) and
// returns its thread and time; ok is false when the event lacks one, and
// the rest of its checks are skipped.
func (c *chromeCheck) common(e map[string]any) (th [2]int64, ts float64, ok bool) {
	missing := false
	for _, key := range []string{"ph", "ts", "pid", "tid"} {
		if _, ok := e[key]; !ok {
			c.p.add("event %v has no %s", e, key)
			missing = true
		}
	}
	if _, ok := e["name"].(string); !ok {
		c.p.add("event %v has no name", e)
		missing = true
	}
	if missing {
		return th, 0, false
	}
	ts, ok1 := c.num(e, "ts")
	fpid, ok2 := c.num(e, "pid")
	ftid, ok3 := c.num(e, "tid")
	if !ok1 || !ok2 || !ok3 {
		return th, 0, false
	}
	// ts has exactly three decimals (metadata has ts 0)
	if s := string(e["ts"].(json.Number)); e["ph"] != "M" && (len(s) < 5 || s[len(s)-4] != '.') {
		c.p.add("event %v: ts %s is not microseconds with three decimals", e, s)
	}
	return [2]int64{int64(fpid), int64(ftid)}, ts, true
}

// metadata checks a metadata event (ph M) of thread th: the names and
// sort indexes of processes and threads.
func (c *chromeCheck) metadata(e map[string]any, th [2]int64) {
	args, _ := e["args"].(map[string]any)
	switch e["name"] {
	case "process_name":
		name, _ := args["name"].(string)
		c.processNamed[th[0]] = name
	case "thread_name":
		if name, _ := args["name"].(string); name == "" {
			c.p.add("thread_name %v without a name", e)
		}
		c.threadNamed[th] = true
	case "process_sort_index", "thread_sort_index":
		if _, ok := args["sort_index"].(json.Number); !ok {
			c.p.add("%v without a sort_index", e)
		}
	default:
		c.p.add("unknown metadata event %v", e)
	}
}

// complete checks a complete event (ph X, a slice) of thread th at ts.
func (c *chromeCheck) complete(e map[string]any, th [2]int64, ts float64) {
	dur, ok := c.num(e, "dur")
	if !ok {
		return
	}
	if dur < 0 {
		c.p.add("complete event %v has dur < 0", e)
	}
	// Slices of a thread are written in end order, which is also start
	// order since they must not overlap.
	if ts+1e-9 < c.lastEnd[th] {
		c.p.add("thread %v: slice at %.3f starts before the previous one ends at %.3f", th, ts, c.lastEnd[th])
	}
	c.lastEnd[th] = ts + dur
	c.threadUsed[th] = true
	c.seqArg(e, "start_seq")
}

// num returns the number at key of event e.
func (c *chromeCheck) num(e map[string]any, key string) (float64, bool) {
	n, ok := e[key].(json.Number)
	if !ok {
		c.p.add("event %v: %s is %T, want a number", e, key, e[key])
		return 0, false
	}
	f, err := n.Float64()
	if err != nil {
		c.p.add("event %v: %s: %v", e, key, err)
		return 0, false
	}
	return f, true
}

// seqArg notes the schedlab event whose seq is the argument key of e as
// carried.
func (c *chromeCheck) seqArg(e map[string]any, key string) {
	args, _ := e["args"].(map[string]any)
	if s, ok := args[key].(json.Number); ok {
		n, err := strconv.ParseUint(string(s), 10, 64)
		if err != nil {
			c.p.add("event %v: args.%s: %v", e, key, err)
			return
		}
		c.carried[n] = true
	}
}

// finish checks what holds for the whole trace: the processes' names,
// every thread with events named, and every event of evs carried.
func (c *chromeCheck) finish(evs []runtime.Event) {
	for _, pid := range []int64{0, 1, 2} {
		if want := []string{"Ps", "Ms", "Sched"}[pid]; c.processNamed[pid] != want {
			c.p.add("process %d is named %q, want %q", pid, c.processNamed[pid], want)
		}
	}
	for th := range c.threadUsed {
		if !c.threadNamed[th] {
			c.p.add("thread %v has events but no thread_name", th)
		}
	}
	for _, ev := range evs {
		if !c.carried[ev.Seq] {
			c.p.add("event %d (%v) is not in the chrome trace", ev.Seq, ev.Kind)
		}
	}
}

// TimelineData is the data object embedded in a timeline page (see the
// comment at the top of trace/timeline.go).
type TimelineData struct {
	Version  int        `json:"version"`
	Settings [][]string `json:"settings"`
	Kinds    []string   `json:"kinds"`
	Strings  []string   `json:"strings"`
	Ev       []int64    `json:"ev"`
	Spans    []int64    `json:"spans"`
	Queues   []int64    `json:"queues"`
	GC       []int64    `json:"gc,omitempty"` // the GC's spans, only in a run that has them
	Ps       []int      `json:"ps"`
	Ms       []int      `json:"ms"`
	Start    int64      `json:"start"`
	End      int64      `json:"end"`
}

// Numbers per entry of the flat arrays of TimelineData.
const (
	TimelineEvStride   = 10 // seq, t, p, m, g, kind, g2, p2, arg, reason
	TimelineSpanStride = 8  // track, id, kind, g, start, end, startIdx, endIdx
	TimelineGCStride   = 8  // kind (0 cycle, 1 stop-the-world, 2 mark worker), p, g, start, end, arg, reason, startIdx
)

// Events returns the events of the page, rebuilt.
func (d *TimelineData) Events() []runtime.Event {
	evs := make([]runtime.Event, 0, len(d.Ev)/TimelineEvStride)
	for i := 0; i+TimelineEvStride <= len(d.Ev); i += TimelineEvStride {
		e := d.Ev[i:]
		reason := ""
		if e[9] >= 0 && e[9] < int64(len(d.Strings)) {
			reason = d.Strings[e[9]]
		}
		evs = append(evs, runtime.Event{Seq: uint64(e[0]), Time: e[1], P: int32(e[2]), M: int32(e[3]), G: e[4],
			Kind: runtime.EventKind(e[5]), G2: e[6], P2: int32(e[7]), Arg: e[8], Reason: reason})
	}
	return evs
}

// notSelfContained are the marks of a page that needs something besides
// itself: a URL, an external script, style sheet, image or font.
var notSelfContained = []string{"http://", "https://", "<link", "<script src", "<img", "@import", "url(", "<iframe"}

// PageData extracts the data object of a timeline page and decodes it
// strictly, returning also its raw JSON text.
func PageData(page []byte) (string, *TimelineData, error) {
	const open, close = "var DATA = ", ";\n</script>"
	i := bytes.Index(page, []byte(open))
	if i < 0 {
		return "", nil, errors.New("page has no DATA")
	}
	rest := page[i+len(open):]
	j := bytes.Index(rest, []byte(close))
	if j < 0 {
		return "", nil, errors.New("DATA is not terminated")
	}
	var d TimelineData
	dec := json.NewDecoder(bytes.NewReader(rest[:j]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return "", nil, fmt.Errorf("DATA does not parse: %v", err)
	}
	if len(d.Ev)%TimelineEvStride != 0 || len(d.Spans)%TimelineSpanStride != 0 {
		return "", nil, fmt.Errorf("DATA arrays have %d event and %d span numbers, not whole entries", len(d.Ev), len(d.Spans))
	}
	return string(rest[:j]), &d, nil
}

// CheckTimeline checks that an HTML timeline page is self-contained (no
// URL, no external script, style, image or font), that its data parses,
// and that it holds exactly the events evs (if evs is not nil). It
// returns the page's data.
func CheckTimeline(page []byte, evs []runtime.Event) (*TimelineData, error) {
	var p problems
	s := string(page)
	if !strings.HasPrefix(s, "<!DOCTYPE html>") {
		p.add("page does not start with <!DOCTYPE html>")
	}
	for _, bad := range notSelfContained {
		if strings.Contains(s, bad) {
			p.add("page contains %q: it must be self-contained", bad)
		}
	}
	_, d, err := PageData(page)
	if err != nil {
		p.add("%v", err)
		return nil, p.err()
	}
	if evs != nil {
		got := d.Events()
		if len(got) != len(evs) {
			p.add("page has %d events, want %d", len(got), len(evs))
		} else {
			for i := range evs {
				if got[i] != evs[i] {
					p.add("page event %d = %+v, want %+v", i, got[i], evs[i])
				}
			}
		}
	}
	return d, p.err()
}
