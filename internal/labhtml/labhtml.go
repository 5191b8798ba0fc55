// Package labhtml writes the report of `schedlab lab` as one HTML page
// (--html FILE): SVG charts drawn with gonum.org/v1/plot and inlined,
// the lab's table, and each cell's first seed in schedlab's timeline,
// embedded. The page loads nothing: it has no URL in it, and its
// Content-Security-Policy forbids every request.
//
// Start from Write, which takes a lab.Report made with
// lab.RunOptions.Curves and, in Options, the Timelines made during the
// run (lab.RunOptions.Trace). Load picks the sweep that is the load of
// the p99 chart.
//
// The charts, for each traffic source:
//   - the latency by percentile, a line per cell, as HdrHistogram plots
//     it: x is 1/(1-p) on a log scale, so 90%, 99%, 99.9% lie a decade
//     apart;
//   - p99 against the load (a swept parameter, rate by default), a line
//     per GOMAXPROCS, a chart per combination of the other sweeps;
//   - throughput against GOMAXPROCS, a line per quota, a chart per
//     combination of the other sweeps.
//
// Timelines: the page embeds the timeline of seed 1 of each cell, the
// page `schedlab run --timeline` writes for the cell's replay command,
// gzipped and in base64; a link opens it in a tab of its own (the
// browser's DecompressionStream and a blob: URL), another saves it. So
// that a page stays a size a browser opens, the first MaxTimelineCells
// cells have one, a run of more than MaxTimelineEvents events has
// none, and the page holds at most TimelineBudget bytes of them, in cell
// order; a cell without one shows the command that writes it.
//
// The page is the same bytes for the same report and timelines: gonum's
// SVG has no time or id in it, the gzip header no time, and nothing
// depends on the order the runs finished in.
//
// The files: labhtml.go, the page and the timelines; figures.go, which
// charts a report makes; plots.go, drawing a chart with gonum/plot;
// page.html, the page's template.
package labhtml

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/lab"
	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace"
)

// MaxTimelineCells is the number of cells, first in grid order, whose
// timeline a page embeds.
const MaxTimelineCells = 64

// MaxTimelineEvents bounds the timeline of one run: a page holds every
// event, at about 55 bytes each, and the timeline of a run under way
// holds them in memory at about 100. 100,000 events are some 4,000
// requests of examples/lab/server.star, a page of 5.5 MB.
const MaxTimelineEvents = 100_000

// TimelineBudget is the most bytes of gzipped timelines a page embeds,
// in cell order: some 50 runs of 1,000 requests of
// examples/lab/server.star. In base64 they take a third more.
const TimelineBudget = 16 << 20

// Timelines make the timelines of a lab's cells as the runs go, for the
// page: a lab.RunTracer, which records the first seed of each of the
// first MaxTimelineCells cells with a trace.Timeline, the writer of
// `schedlab run --timeline`, and keeps the page gzipped once the run
// has ended. The zero value is not ready: use NewTimelines.
type Timelines struct {
	mu    sync.Mutex
	runs  map[int]*recorder // the runs under way
	cells map[int]timeline  // the runs done
}

// A timeline is the timeline of a cell's first seed.
type timeline struct {
	gz     []byte // the page, gzipped; nil when the run was too long
	events int    // the run's events
}

var _ lab.RunTracer = (*Timelines)(nil)

// NewTimelines returns an empty collection.
func NewTimelines() *Timelines {
	return &Timelines{runs: map[int]*recorder{}, cells: map[int]timeline{}}
}

// Tracer returns the tracer of the first seed of cell c, a run with
// settings s, or nil past the first MaxTimelineCells cells.
func (t *Timelines) Tracer(c int, s *cli.Settings) runtime.Tracer {
	if c >= MaxTimelineCells {
		return nil
	}
	r := &recorder{}
	r.page = trace.NewTimeline(&r.buf, s.Header())
	t.mu.Lock()
	defer t.mu.Unlock()
	t.runs[c] = r
	return r
}

// Done keeps the timeline of cell c's run, gzipped, and lets the run's
// events go.
func (t *Timelines) Done(c int) {
	t.mu.Lock()
	r := t.runs[c]
	delete(t.runs, c)
	t.mu.Unlock()
	if r == nil {
		return
	}
	tl := timeline{events: r.events}
	if r.page != nil && r.page.Close() == nil { // a buffer: no error
		var b bytes.Buffer
		zw := gzip.NewWriter(&b) // no name, no time: the same bytes for the same page
		zw.Write(r.buf.Bytes())  // a buffer: no error
		zw.Close()
		tl.gz = b.Bytes()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cells[c] = tl
}

// A recorder records one run for its timeline, up to MaxTimelineEvents
// events; past them it lets the timeline go.
type recorder struct {
	buf    bytes.Buffer
	page   *trace.Timeline // nil once the run has too many events
	events int
}

// Event records one event.
func (r *recorder) Event(ev *runtime.Event) {
	r.events++
	if r.events > MaxTimelineEvents {
		r.page = nil
		return
	}
	r.page.Event(ev)
}

// Options say what a page holds besides the report.
type Options struct {
	// Load is the sweep on the x axis of the p99 chart, as Load picks
	// it; "" for no such chart.
	Load string

	// Timelines are the timelines of the cells' first seeds; nil for a
	// page without them.
	Timelines *Timelines

	// Replay returns the command that replays seed of cell c
	// (lab.Lab.Replay), shown with each timeline.
	Replay func(c int, seed uint64) string
}

//go:embed page.html
var pageHTML string

var pageTemplate = template.Must(template.New("page.html").Parse(pageHTML))

// The page's data.
type (
	pageData struct {
		Title       string
		Summary     string   // the first line of the table, after the script's name
		Warnings    []string // the lab's, as it says them on stderr
		Interrupted bool
		Sections    []section
		Head        []string
		Rows        []row
		Failures    []lab.Failure
		FailedCells []string // the settings of each failure's cell
		Timelines   bool     // the table has a timeline column
		Embedded    []template.HTML
	}
	section struct {
		ID, Title string
		Text      template.HTML
		Note      string // why there is no chart
		Charts    []template.HTML
	}
	row struct {
		Columns  []string
		Timeline cellTimeline
	}
	// cellTimeline is a cell's entry in the timeline column.
	cellTimeline struct {
		ID      int    // the embedded timeline's number; -1 for none
		Name    string // the file name to save it as
		Command string // the command that writes it
		Why     string // why there is none
	}
)

// Write writes the page of report r to w.
func Write(w io.Writer, r *lab.Report, opt Options) error {
	d := pageData{Title: "schedlab lab " + r.Script, Interrupted: r.Interrupted, Warnings: r.Warnings()}
	var table bytes.Buffer
	r.WriteTable(&table) // a buffer: no error
	first, _, _ := strings.Cut(table.String(), "\n")
	d.Summary = strings.TrimPrefix(first, "lab "+r.Script+": ")

	sources := r.SourceNames()
	var curves, p99s, tputs []*figure
	for _, src := range sources {
		curves = append(curves, curveFigures(r, src, len(sources))...)
		if opt.Load != "" {
			p99s = append(p99s, p99Figures(r, src, len(sources), opt.Load)...)
		}
		tputs = append(tputs, throughputFigures(r, src, len(sources))...)
	}
	secs := []struct {
		id, title string
		text      template.HTML
		figs      []*figure
		note      string
	}{
		{"percentiles", "Latency by percentile", curvesText, curves,
			"No cell answered a request: there is no latency to draw."},
		{"p99", "p99 against load", p99Text(opt.Load), p99s,
			"Sweep the load, a parameter of the script such as rate (--sweep rate=400,800,1600), to draw p99 against it; --html-load NAME picks which sweep it is."},
		{"throughput", "Throughput against GOMAXPROCS", throughputText, tputs,
			"Sweep GOMAXPROCS (--sweep procs=1,2,4) to draw throughput against it."},
	}
	for _, s := range secs {
		sec := section{ID: s.id, Title: s.title, Text: s.text}
		for _, f := range s.figs {
			svg, err := f.svg()
			if err != nil {
				return fmt.Errorf("drawing %s: %v", f.title, err)
			}
			sec.Charts = append(sec.Charts, svg)
		}
		if len(sec.Charts) == 0 {
			sec.Note = s.note
			if s.id == "p99" && opt.Load != "" {
				sec.Note = "No cell answered a request: there is no latency to draw."
			}
		}
		d.Sections = append(d.Sections, sec)
	}

	timelines := d.timelines(r, opt)
	var rows []lab.Row
	d.Head, rows = r.Table()
	for _, rw := range rows {
		d.Rows = append(d.Rows, row{Columns: rw.Columns, Timeline: timelines[rw.Cell]})
	}
	for _, c := range r.Cells {
		if c.Failure != nil {
			d.Failures = append(d.Failures, *c.Failure)
			d.FailedCells = append(d.FailedCells, c.Settings.String())
		}
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, d); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// timelines embeds the timelines of opt in d, in cell order within the
// budget, and returns each cell's entry of the timeline column.
func (d *pageData) timelines(r *lab.Report, opt Options) []cellTimeline {
	entries := make([]cellTimeline, len(r.Cells))
	if opt.Timelines == nil {
		return entries
	}
	d.Timelines = true
	opt.Timelines.mu.Lock()
	defer opt.Timelines.mu.Unlock()
	spent := 0
	for c := range r.Cells {
		e := cellTimeline{ID: -1, Name: fmt.Sprintf("cell%d-seed1.html", c+1)}
		if opt.Replay != nil {
			e.Command = opt.Replay(c, 1) + " --timeline " + e.Name
		}
		tl, ok := opt.Timelines.cells[c]
		switch {
		case c >= MaxTimelineCells:
			e.Why = fmt.Sprintf("the page embeds the timelines of the first %d cells", MaxTimelineCells)
		case !ok:
			e.Why = "its first seed did not run"
		case tl.gz == nil:
			e.Why = fmt.Sprintf("its first seed has %d events, more than the %d a page embeds", tl.events, MaxTimelineEvents)
		case spent+len(tl.gz) > TimelineBudget:
			e.Why = fmt.Sprintf("the page's %d MB for timelines are spent", TimelineBudget>>20)
		default:
			spent += len(tl.gz)
			e.ID = len(d.Embedded)
			// base64 has no '<': the data cannot end the element.
			d.Embedded = append(d.Embedded, template.HTML(fmt.Sprintf(`<script type="application/gzip" id="timeline-%d">%s</script>`,
				e.ID, base64.StdEncoding.EncodeToString(tl.gz))))
		}
		entries[c] = e
	}
	return entries
}

// What each section says.
const (
	curvesText template.HTML = `A line per cell: the latency at each percentile of the requests
answered in all the cell's seeds, pooled in one HdrHistogram, drawn as
HdrHistogram draws it. The percentile axis is 1/(1&minus;p) on a log scale, so
90%, 99%, 99.9% and 99.99% lie a decade apart and the tail has room; a line
ends at its largest latency, the percentile of the last of its requests.`
	throughputText template.HTML = `Requests answered per virtual second, from each source's start to its
last reply, a line per CPU quota. An open loop the server keeps up with
answers at the offered rate; past its capacity, at the capacity.`
)

// p99Text says what the p99 chart shows, with the load's sweep.
func p99Text(load string) template.HTML {
	return template.HTML(`The 99th percentile latency of each cell against the sweep <code>` + template.HTMLEscapeString(load) +
		`</code>, a line per GOMAXPROCS. A P that cannot keep up shows as a line that leaves the others.`)
}
