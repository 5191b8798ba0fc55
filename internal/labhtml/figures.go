package labhtml

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/internal/lab"
)

// maxLines is the most lines a chart of latency curves has: past it, the
// cells are split over several charts.
const maxLines = 8

// A cellRef is a cell of the report that has a figure for a source.
type cellRef struct {
	index int // in Report.Cells
	src   lab.Source
}

// sourceCells returns, for the traffic source named src, the cells of r
// that ran well and started it, in grid order.
func sourceCells(r *lab.Report, src string) []cellRef {
	var refs []cellRef
	for i, c := range r.Cells {
		if c.Failure != nil {
			continue
		}
		if j := slices.IndexFunc(c.Sources, func(s lab.Source) bool { return s.Traffic == src }); j >= 0 {
			refs = append(refs, cellRef{i, c.Sources[j]})
		}
	}
	return refs
}

// value returns the value of the sweep name in cell c, and whether it
// is swept.
func value(c lab.Cell, name string) (string, bool) {
	for _, kv := range c.Settings {
		if kv.Name == name {
			return kv.Value, true
		}
	}
	return "", false
}

// settingsExcept writes the settings of c but those named in skip:
// "procs=2 rate=800", or "" when none is left.
func settingsExcept(c lab.Cell, skip ...string) string {
	var parts []string
	for _, kv := range c.Settings {
		if !slices.Contains(skip, kv.Name) {
			parts = append(parts, kv.Name+"="+kv.Value)
		}
	}
	return strings.Join(parts, " ")
}

// titled returns the title of a chart for the source src, in a report
// of sources sources, for the settings group ("" for all cells).
func titled(what, src string, sources int, group string) string {
	t := what
	if sources > 1 {
		t += " — traffic " + src
	}
	if group != "" {
		t += " — " + group
	}
	return t
}

// curveFigures returns the latency curves of the source src: a line per
// cell, at most maxLines a chart. The cells are split by the values of
// the first sweeps, as few as leave at most maxLines combinations of
// the others; past that, into runs of maxLines cells in grid order.
func curveFigures(r *lab.Report, src string, sources int) []*figure {
	refs := sourceCells(r, src)
	if len(refs) == 0 {
		return nil
	}
	// k: the first sweeps that name a chart; the others name its lines.
	k, lines := len(r.Sweeps), 1
	for k > 0 && lines*len(r.Sweeps[k-1].Values) <= maxLines {
		k--
		lines *= len(r.Sweeps[k].Values)
	}
	var groups [][]cellRef
	var names []string
	for _, ref := range refs {
		var fixed []string
		for _, kv := range r.Cells[ref.index].Settings[:k] {
			fixed = append(fixed, kv.Name+"="+kv.Value)
		}
		name := strings.Join(fixed, " ")
		if n := len(groups); n > 0 && names[n-1] == name && len(groups[n-1]) < maxLines {
			groups[n-1] = append(groups[n-1], ref)
			continue
		}
		groups, names = append(groups, []cellRef{ref}), append(names, name)
	}
	var fixed []string // the names of the first k sweeps
	for _, sw := range r.Sweeps[:k] {
		fixed = append(fixed, sw.Name)
	}
	var figs []*figure
	for g, group := range groups {
		var top int64 // the largest latency
		xmax := 1.0
		for _, ref := range group {
			top = max(top, ref.src.Max)
			if n := len(ref.src.Curve); n > 0 {
				xmax = max(xmax, 1/(1-ref.src.Curve[n-1].Percentile/100))
			}
		}
		u := latencyUnit(top)
		f := &figure{
			title:  titled("Latency by percentile", src, sources, names[g]),
			xLabel: "percentile",
			yLabel: "latency (" + u.name + ")",
			x:      xPercentile,
			xTicks: percentileTicks(xmax),
			// The curves rise to the right: the bottom right is free.
			legendBottom: true,
		}
		for _, ref := range group {
			s := series{name: settingsExcept(r.Cells[ref.index], fixed...)}
			for _, pt := range ref.src.Curve {
				s.xs = append(s.xs, 1/(1-pt.Percentile/100))
				s.ys = append(s.ys, float64(pt.Value)/u.ns)
			}
			if len(s.xs) > 0 {
				f.series = append(f.series, s)
			}
		}
		if len(f.series) > 0 {
			figs = append(figs, f)
		}
	}
	return figs
}

// An axis of values is where a sweep's values lie on a chart: at
// themselves when they are all numbers, else at 0, 1, 2, ... in the
// order of the sweep.
type valueAxis struct {
	pos    map[string]float64
	xs     []float64
	labels []string
}

func newValueAxis(sw lab.Sweep) valueAxis {
	a := valueAxis{pos: map[string]float64{}, labels: sw.Values}
	numeric := true
	for _, v := range sw.Values {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			numeric = false
		}
	}
	for i, v := range sw.Values {
		x := float64(i)
		if numeric {
			x, _ = strconv.ParseFloat(v, 64)
		}
		a.pos[v] = x
		a.xs = append(a.xs, x)
	}
	return a
}

// lineFigures returns the charts of a figure with x the sweep xName and
// a line per value of the sweep lineName (one line when lineName is not
// swept): a chart per combination of the other sweeps. y gives a
// source's figure, in the unit that the largest of them picks.
func lineFigures(r *lab.Report, src string, sources int, what, xName, lineName string, y func(lab.Source) float64, yLabel func(top float64) (string, float64)) []*figure {
	xs := sweep(r, xName)
	if xs == nil {
		return nil
	}
	ax := newValueAxis(*xs)
	lineSweep := sweep(r, lineName)
	type chart struct {
		name  string
		lines map[string]*series
		order []string
	}
	var charts []*chart
	ymax := map[*chart]float64{}
	for _, ref := range sourceCells(r, src) {
		c := r.Cells[ref.index]
		name := settingsExcept(c, xName, lineName)
		i := slices.IndexFunc(charts, func(ch *chart) bool { return ch.name == name })
		if i < 0 {
			i = len(charts)
			charts = append(charts, &chart{name: name, lines: map[string]*series{}})
		}
		ch := charts[i]
		line := ""
		if lineSweep != nil {
			line, _ = value(c, lineName)
		}
		s := ch.lines[line]
		if s == nil {
			s = &series{}
			if lineSweep != nil {
				s.name = lineName + "=" + line
			}
			ch.lines[line] = s
			ch.order = append(ch.order, line)
		}
		xv, _ := value(c, xName)
		s.xs = append(s.xs, ax.pos[xv])
		s.ys = append(s.ys, y(ref.src))
		ymax[ch] = max(ymax[ch], y(ref.src))
	}
	var figs []*figure
	for _, ch := range charts {
		label, div := yLabel(ymax[ch])
		f := &figure{
			title:  titled(what, src, sources, ch.name),
			xLabel: xName,
			yLabel: label,
			xTicks: valueTicks(ax.xs, ax.labels),
			// p99 rises with the load, throughput with GOMAXPROCS
			// until the load is served.
			legendBottom: what == throughputTitle,
		}
		// The lines in the order of the sweep's values, not of the
		// cells, which is the same unless a cell failed.
		order := ch.order
		if lineSweep != nil {
			order = slices.DeleteFunc(slices.Clone(lineSweep.Values), func(v string) bool { return ch.lines[v] == nil })
		}
		for _, line := range order {
			s := *ch.lines[line]
			for i := range s.ys {
				s.ys[i] /= div
			}
			f.series = append(f.series, s)
		}
		figs = append(figs, f)
	}
	return figs
}

// The titles of the line charts.
const (
	p99Title        = "p99 against load"
	throughputTitle = "Throughput against GOMAXPROCS"
)

// p99Figures returns the charts of p99 against the sweep load, a line
// per GOMAXPROCS.
func p99Figures(r *lab.Report, src string, sources int, load string) []*figure {
	return lineFigures(r, src, sources, p99Title, load, lab.SweepProcs,
		func(s lab.Source) float64 { return float64(s.Percentiles["p99"]) },
		func(top float64) (string, float64) {
			u := latencyUnit(int64(top))
			return "p99 latency (" + u.name + ")", u.ns
		})
}

// throughputFigures returns the charts of throughput against
// GOMAXPROCS, a line per quota.
func throughputFigures(r *lab.Report, src string, sources int) []*figure {
	return lineFigures(r, src, sources, throughputTitle, lab.SweepProcs, lab.SweepQuota,
		func(s lab.Source) float64 { return s.Throughput },
		func(float64) (string, float64) { return "requests answered per second", 1 })
}

// sweep returns the sweep of r named name, or nil.
func sweep(r *lab.Report, name string) *lab.Sweep {
	for i := range r.Sweeps {
		if r.Sweeps[i].Name == name {
			return &r.Sweeps[i]
		}
	}
	return nil
}

// Load returns the sweep of sweeps that is the load of the page's p99
// chart: name if given, else rate when swept, else the first parameter
// swept; "" when there is none. A name that is not swept, or is procs,
// is an error.
func Load(sweeps []lab.Sweep, name string) (string, error) {
	var names []string
	for _, sw := range sweeps {
		names = append(names, sw.Name)
	}
	switch {
	case name == lab.SweepProcs:
		return "", fmt.Errorf("--html-load procs: procs is the lines of the p99 chart; give a swept parameter, such as rate")
	case name != "" && !slices.Contains(names, name):
		if len(names) == 0 {
			return "", fmt.Errorf("--html-load %s: nothing is swept", name)
		}
		return "", fmt.Errorf("--html-load %s: not swept; the sweeps are %s", name, strings.Join(names, ", "))
	case name != "":
		return name, nil
	case slices.Contains(names, "rate"):
		return "rate", nil
	}
	for _, n := range names {
		if n != lab.SweepProcs && n != lab.SweepQuota {
			return n, nil
		}
	}
	return "", nil
}
