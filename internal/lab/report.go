package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/internal/latency"
)

// A Report is what a lab found: each cell's figures, in grid order.
type Report struct {
	Script string  `json:"script"`
	Seeds  int     `json:"seeds"` // seeds 1 to Seeds in each cell
	Sweeps []Sweep `json:"sweeps"`
	Cells  []Cell  `json:"cells"`

	// Unread are the parameters set (by --sweep or --param) that no run
	// read with param(): sweeping them changed nothing.
	Unread []string `json:"unread_params,omitempty"`
	// Interrupted: Stop ended the lab; Cells holds the cells done
	// before it.
	Interrupted bool `json:"interrupted,omitempty"`
}

// A Cell is one cell of the grid: its settings and, pooled over its
// seeds, what each traffic source saw.
type Cell struct {
	Settings Settings `json:"settings"`
	Sources  []Source `json:"sources"` // in the order the runs started them
	// Throttled is the virtual time the process spent throttled by its
	// CPU quota, in ns, the mean over the cell's seeds.
	Throttled int64 `json:"throttled_ns"`
	// GCCycles is the number of GC cycles a run started, and AssistTime
	// the time its goroutines spent in mark assists, in ns (under
	// --gc-cycle=mark), each the mean over the cell's seeds.
	GCCycles   float64  `json:"gc_cycles,omitempty"`
	AssistTime int64    `json:"assist_ns,omitempty"`
	Failure    *Failure `json:"failure,omitempty"` // the first seed that failed; then Sources is empty

	unread []string // the parameters that none of the cell's runs read
}

// Settings are a cell's values, one for each sweep, in the order of the
// sweeps. In JSON they are one object, a value that is a number written
// as a number.
type Settings []Setting

// A Setting is one sweep's value in a cell.
type Setting struct {
	Name, Value string
}

// MarshalJSON writes the settings as an object, in order.
func (s Settings) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.Name)
		b.Write(k)
		b.WriteByte(':')
		var f float64
		if json.Unmarshal([]byte(kv.Value), &f) == nil {
			b.WriteString(kv.Value)
		} else {
			v, _ := json.Marshal(kv.Value)
			b.Write(v)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// String writes the settings as the lab names a cell: procs=2 rate=1600.
func (s Settings) String() string {
	var parts []string
	for _, kv := range s {
		parts = append(parts, kv.Name+"="+kv.Value)
	}
	return strings.Join(parts, " ")
}

// A Source is one traffic source of a cell, pooled over the cell's
// seeds: the counts are sums, the percentiles and the maximum those of
// every latency of every seed.
type Source struct {
	Traffic  string `json:"traffic"` // its number in the run and its address: "1 :8080"
	Sent     int64  `json:"sent"`
	Answered int64  `json:"answered"`
	Failed   int64  `json:"failed"`
	// Throughput is the requests answered per virtual second of the
	// source's span, from its start to its last reply, summed over the
	// seeds.
	Throughput  float64          `json:"throughput"`
	Percentiles map[string]int64 `json:"percentiles_ns"` // p50, p90, p99, p99.9
	Max         int64            `json:"max_ns"`

	// Curve is the latency curve of the pooled latencies
	// (latency.Curve), for the page's plot; kept only with
	// RunOptions.Curves, and not written in JSON.
	Curve []latency.Point `json:"-"`
}

// A Failure is the first seed of a cell whose run failed (a panic, a
// deadlock, a limit): how it ended and the command that replays it.
type Failure struct {
	Seed    uint64 `json:"seed"`
	Outcome string `json:"outcome"` // as explore names it: panic, deadlock, limit, ...
	Message string `json:"message"`
	Replay  string `json:"replay"`
}

// pool makes cell c of the report from its runs, one for each seed in
// order, with each source's latency curve if curves.
func (l *Lab) pool(c int, runs []runFigures, curves bool) Cell {
	cell := Cell{Settings: l.settings(l.cells[c].values), Sources: []Source{}}
	for _, f := range runs {
		if f.failure != nil {
			cell.Failure = f.failure
			break
		}
	}
	if cell.Failure == nil {
		cell.Sources, cell.Throttled = poolSources(runs, curves)
		var cycles, assist int64
		for _, f := range runs {
			cycles += f.gc.Cycles
			assist += f.gc.AssistTime
		}
		n := int64(max(len(runs), 1))
		cell.GCCycles = math.Round(float64(cycles)*100/float64(n)) / 100
		cell.AssistTime = assist / n
	}
	for i, f := range runs {
		if i == 0 {
			cell.unread = f.unread
		}
		cell.unread = intersect(cell.unread, f.unread)
	}
	return cell
}

// poolSources pools the traffic sources of runs, a cell's seeds in
// order, by name in the order they first appear, and returns them, each
// with its latency curve if curves, with the mean time the runs spent
// throttled.
func poolSources(runs []runFigures, curves bool) ([]Source, int64) {
	type pooled struct {
		src  Source
		lat  []int64
		span int64
	}
	var ps []*pooled
	var throttled int64
	for _, f := range runs {
		throttled += f.throttled
		for _, s := range f.sources {
			i := slices.IndexFunc(ps, func(p *pooled) bool { return p.src.Traffic == s.name })
			if i < 0 {
				i = len(ps)
				ps = append(ps, &pooled{src: Source{Traffic: s.name}})
			}
			p := ps[i]
			p.src.Sent += s.sent
			p.src.Answered += s.answered
			p.src.Failed += s.failed
			p.lat = append(p.lat, s.lat...)
			p.span += s.span
		}
	}
	out := []Source{}
	for _, p := range ps {
		sum := latency.Summarize(p.lat)
		p.src.Percentiles = map[string]int64{}
		for i, name := range latency.Names() {
			p.src.Percentiles[name] = sum.P[i]
		}
		p.src.Max = sum.Max
		if curves {
			p.src.Curve = latency.Curve(p.lat)
		}
		if p.span > 0 {
			// to a thousandth of a request a second: the table shows
			// whole requests
			p.src.Throughput = math.Round(float64(p.src.Answered)*1e12/float64(p.span)) / 1000
		}
		out = append(out, p.src)
	}
	return out, throttled / int64(max(len(runs), 1))
}

// WriteJSON writes the report as one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteTable writes the report for a person: a line that says what ran,
// then one table row for each traffic source and cell (the sources in
// the order they first appear, the cells in grid order): the cell's
// values, requests sent, answered and failed, throughput in requests per
// virtual second, the percentiles and the maximum latency, the time
// throttled, and, when some run collected garbage, its GC cycles and
// the time in mark assists. A failed cell's row has "-" for every figure, and its
// failure, with the replay command, follows the table.
func (r *Report) WriteTable(w io.Writer) error {
	var b bytes.Buffer
	r.writeTable(&b)
	_, err := w.Write(b.Bytes())
	return err
}

func (r *Report) writeTable(w *bytes.Buffer) {
	cells := plural(len(r.Cells), "cell")
	if r.Interrupted {
		total := 1
		for _, sw := range r.Sweeps {
			total *= len(sw.Values)
		}
		cells = fmt.Sprintf("%d of %d cells done", len(r.Cells), total)
	}
	fmt.Fprintf(w, "lab %s: %s, %s, %s\n", r.Script, cells, r.describeGrid(), r.describeSeeds())
	head, rows := r.Table()
	lines := [][]string{head}
	for _, row := range rows {
		lines = append(lines, row.Columns)
	}
	if len(lines) > 1 {
		latency.WriteAligned(w, lines, 1) // a buffer: no error
	} else {
		fmt.Fprintln(w, "no cell's runs started traffic: nothing to tabulate")
	}
	for _, c := range r.Cells {
		if f := c.Failure; f != nil {
			fmt.Fprintf(w, "cell %s failed on seed %d: %s: %s\n\t%s\n", cellName(c.Settings), f.Seed, f.Outcome, f.Message, f.Replay)
		}
	}
	if r.Interrupted {
		fmt.Fprintln(w, "interrupted: the cells above are those done before it")
	}
}

// A Row is one row of the table: the cell it is for (an index of
// Report.Cells) and its columns, as WriteTable writes them.
type Row struct {
	Cell    int
	Columns []string
}

// Table returns the heading and the rows of the table WriteTable writes:
// one row for each traffic source and cell, the sources in the order
// they first appear, the cells in grid order; a failed cell's row has
// "-" for every figure.
func (r *Report) Table() (head []string, rows []Row) {
	head = []string{"traffic"}
	for _, sw := range r.Sweeps {
		head = append(head, sw.Name)
	}
	head = append(head, "sent", "answered", "failed", "req/s")
	head = append(head, latency.Names()...)
	head = append(head, "max", "throttled")
	gc := r.collected()
	if gc {
		head = append(head, "gcs", "assist")
	}
	for _, src := range r.SourceNames() {
		for ci, c := range r.Cells {
			line := []string{src}
			for _, kv := range c.Settings {
				line = append(line, kv.Value)
			}
			if c.Failure != nil {
				for len(line) < len(head) {
					line = append(line, "-")
				}
				rows = append(rows, Row{ci, line})
				continue
			}
			i := slices.IndexFunc(c.Sources, func(s Source) bool { return s.Traffic == src })
			if i < 0 {
				continue // this cell's runs did not start the source
			}
			s := c.Sources[i]
			line = append(line, fmt.Sprint(s.Sent), fmt.Sprint(s.Answered), fmt.Sprint(s.Failed), formatRate(s.Throughput))
			for _, name := range latency.Names() {
				line = append(line, latency.Format(s.Percentiles[name]))
			}
			line = append(line, latency.Format(s.Max), latency.Format(c.Throttled))
			if gc {
				line = append(line, strconv.FormatFloat(c.GCCycles, 'f', -1, 64), latency.Format(c.AssistTime))
			}
			rows = append(rows, Row{ci, line})
		}
	}
	return head, rows
}

// collected reports whether a run of some cell started a GC cycle: the
// table then has the columns gcs (cycles a run, the mean over the
// seeds) and assist (the mean time in mark assists).
func (r *Report) collected() bool {
	for _, c := range r.Cells {
		if c.GCCycles > 0 {
			return true
		}
	}
	return false
}

// Failed returns the number of cells that failed.
func (r *Report) Failed() int {
	n := 0
	for _, c := range r.Cells {
		if c.Failure != nil {
			n++
		}
	}
	return n
}

// Tabulated reports whether some cell has a traffic source to show.
func (r *Report) Tabulated() bool {
	return len(r.SourceNames()) > 0
}

// Warnings returns what the command says once for the whole lab, rather
// than each run: the parameters set that no run read.
func (r *Report) Warnings() []string {
	var ws []string
	for _, name := range r.Unread {
		swept := slices.ContainsFunc(r.Sweeps, func(sw Sweep) bool { return sw.Name == name })
		if swept {
			ws = append(ws, fmt.Sprintf("the script never reads the parameter %s (it has no param(%q, ...)): --sweep %s changes nothing", name, name, name))
		} else {
			ws = append(ws, fmt.Sprintf("the script never reads the parameter %s (it has no param(%q, ...)): --param %s changes nothing", name, name, name))
		}
	}
	return ws
}

// SourceNames returns the traffic sources of every cell, in the order
// they first appear.
func (r *Report) SourceNames() []string {
	var names []string
	for _, c := range r.Cells {
		for _, s := range c.Sources {
			if !slices.Contains(names, s.Traffic) {
				names = append(names, s.Traffic)
			}
		}
	}
	return names
}

// describeGrid says what the grid is: "procs 3 × rate 2", or "no sweep".
func (r *Report) describeGrid() string {
	var parts []string
	for _, sw := range r.Sweeps {
		parts = append(parts, fmt.Sprintf("%s %d", sw.Name, len(sw.Values)))
	}
	if len(parts) == 0 {
		return "no sweep"
	}
	return strings.Join(parts, " × ")
}

// describeSeeds says which seeds each cell ran.
func (r *Report) describeSeeds() string {
	if r.Seeds == 1 {
		return "seed 1"
	}
	return fmt.Sprintf("seeds 1-%d each", r.Seeds)
}

// cellName names a cell in a failure's line.
func cellName(s Settings) string {
	if len(s) == 0 {
		return "(the only one)"
	}
	return s.String()
}

// formatRate writes requests per second: a whole number from 100 up,
// else three significant digits.
func formatRate(r float64) string {
	if r >= 100 {
		return strconv.FormatFloat(r, 'f', 0, 64)
	}
	return strconv.FormatFloat(r, 'g', 3, 64)
}

// plural writes n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
