package labhtml

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The size of a chart.
const (
	chartWidth  = 6 * vg.Inch
	chartHeight = 3.6 * vg.Inch
)

// sans is the font of every text of a chart: Liberation Sans, whose
// metrics gonum/plot lays the text out with, and which the page asks
// for with Arial and Helvetica, metric-compatible, behind it.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// An xAxis is how a figure's x values are placed.
type xAxis int

const (
	xLinear     xAxis = iota // as they are
	xPercentile              // a percentile p at 1/(1-p/100), on a log scale, as HdrHistogram plots it
)

// A series is one line of a figure.
type series struct {
	name   string
	xs, ys []float64 // y in the figure's unit
}

// A figure is one chart: its lines and how to draw them.
type figure struct {
	title, xLabel, yLabel string
	x                     xAxis
	xTicks                []plot.Tick // nil for gonum's
	legendBottom          bool        // the legend at the bottom right rather than the top left, when both are free
	series                []series
}

// svg draws the figure as SVG, for inlining into the page (normalize).
func (f *figure) svg() (template.HTML, error) {
	p := plot.New()
	p.Title.Text = f.title
	p.X.Label.Text = f.xLabel
	p.Y.Label.Text = f.yLabel
	for _, ts := range []*plot.Axis{&p.X, &p.Y} {
		ts.Label.TextStyle.Font = font.From(sans, 11)
		ts.Tick.Label.Font = font.From(sans, 9)
	}
	p.Title.TextStyle.Font = font.From(sans, 12)
	p.Legend.TextStyle.Font = font.From(sans, 9)
	p.Legend.Top, p.Legend.Left = f.legendCorner()
	p.Legend.Padding = vg.Points(2)
	p.Add(plotter.NewGrid())
	p.Y.Min = 0
	if f.x == xPercentile {
		p.X.Scale = plot.LogScale{}
		p.X.Min = 1
	}

	if f.xTicks != nil {
		p.X.Tick.Marker = plot.ConstantTicks(f.xTicks)
	}
	for i, s := range f.series {
		xys := make(plotter.XYs, len(s.xs))
		for j := range s.xs {
			xys[j] = plotter.XY{X: s.xs[j], Y: s.ys[j]}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return "", fmt.Errorf("%s: %s: %v", f.title, s.name, err)
		}
		l.Color = seriesColor(i)
		l.Width = vg.Points(1.5)
		l.Dashes = plotutil.Dashes(i / len(plotutil.DarkColors))
		p.Add(l)
		entry := []plot.Thumbnailer{l}
		if f.x != xPercentile {
			// Few points a line: mark them.
			pts, err := plotter.NewScatter(xys)
			if err != nil {
				return "", fmt.Errorf("%s: %s: %v", f.title, s.name, err)
			}
			pts.Color = l.Color
			pts.Shape = plotutil.Shape(i)
			pts.Radius = vg.Points(2.5)
			p.Add(pts)
			entry = append(entry, pts)
		}
		if s.name != "" {
			p.Legend.Add(s.name, entry...)
		}
	}
	if f.x == xPercentile {
		// A tenth of a decade past the last point: room for the label
		// of a tick there, such as 99% at 100 requests.
		p.X.Max *= 1.25
	}
	c := vgsvg.New(chartWidth, chartHeight)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	return normalize(b.String()), nil
}

// seriesColor returns the colour of line i: gonum's dark palette, the
// same again with dashes past its end (plotutil.Dashes).
func seriesColor(i int) color.Color {
	return plotutil.DarkColors[i%len(plotutil.DarkColors)]
}

// xmlns matches the namespace declarations of gonum's SVG.
var xmlns = regexp.MustCompile(`\s+xmlns(:\w+)?="[^"]*"`)

// normalize makes gonum's SVG document an element to inline into HTML:
// without the XML declaration and the comment before <svg>, without the
// namespace declarations (the HTML parser puts <svg> in the SVG
// namespace; and the page has no URL at all, not even one that loads
// nothing), and with fonts to fall back on. gonum's SVG has neither a
// time nor an id in it, and writes numbers with a fixed precision: the
// same figure is the same bytes.
func normalize(svg string) template.HTML {
	if i := strings.Index(svg, "<svg"); i >= 0 {
		svg = svg[i:]
	}
	svg = xmlns.ReplaceAllString(svg, "")
	svg = strings.ReplaceAll(svg, "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
	svg = strings.Replace(svg, "<svg ", `<svg role="img" `, 1)
	return template.HTML(svg) // gonum escapes the text it draws
}

// percentileTicks returns the ticks of a percentile axis up to x (its
// largest 1/(1-p)): 0%, 50%, 90%, 99%, 99.9%, ..., as HdrHistogram's
// plots label them.
func percentileTicks(xmax float64) []plot.Tick {
	ticks := []plot.Tick{{Value: 1, Label: "0%"}, {Value: 2, Label: "50%"}}
	for k := 1; k <= 9; k++ {
		x := math.Pow(10, float64(k))
		if x > xmax*1.0001 {
			break
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(100-100/x, 'f', -1, 64) + "%"})
		for m := 2.0; m < 10 && k < 9; m++ {
			if minor := x * m; minor <= xmax {
				ticks = append(ticks, plot.Tick{Value: minor}) // an unlabelled minor tick
			}
		}
	}
	for m := 3.0; m < 10; m++ {
		if m <= xmax {
			ticks = append(ticks, plot.Tick{Value: m})
		}
	}
	return ticks
}

// valueTicks returns a tick at each of xs labelled as labels, or nil
// (gonum's ticks) for more than 12 of them.
func valueTicks(xs []float64, labels []string) []plot.Tick {
	if len(xs) > 12 {
		return nil
	}
	var ticks []plot.Tick
	for i, x := range xs {
		ticks = append(ticks, plot.Tick{Value: x, Label: labels[i]})
	}
	return ticks
}

// A unit is what a latency axis counts in.
type unit struct {
	name string
	ns   float64
}

// latencyUnit returns the unit for latencies up to top ns: the largest
// of ns, µs, ms and s that top is at least 1 of.
func latencyUnit(top int64) unit {
	switch {
	case top >= 1e9:
		return unit{"s", 1e9}
	case top >= 1e6:
		return unit{"ms", 1e6}
	case top >= 1e3:
		return unit{"µs", 1e3}
	}
	return unit{"ns", 1}
}

// legendCorner returns the corner of the plot for the legend: the one
// its lines cross least, sampled along each segment in the axes' own
// scales; of corners crossed as little, the figure's choice first
// (legendBottom), then the other of top left and bottom right, then the
// top right and bottom left.
func (f *figure) legendCorner() (top, left bool) {
	xmin, xmax, ymax := math.Inf(1), math.Inf(-1), 0.0
	for _, s := range f.series {
		for i := range s.xs {
			xmin, xmax, ymax = min(xmin, s.xs[i]), max(xmax, s.xs[i]), max(ymax, s.ys[i])
		}
	}
	scale := func(x float64) float64 { return x }
	if f.x == xPercentile {
		xmin, scale = 1, math.Log
	}
	span := scale(xmax) - scale(xmin)
	if span <= 0 || ymax <= 0 || len(f.series) == 0 {
		return !f.legendBottom, !f.legendBottom
	}
	// The legend's box, as fractions of the plot's width and height.
	w, h := 0.3, (float64(len(f.series))*12+8)/float64(chartHeight.Points()-50)
	corners := [][2]bool{{true, true}, {false, false}, {true, false}, {false, true}}
	if f.legendBottom {
		corners[0], corners[1] = corners[1], corners[0]
	}
	best, bestHits := corners[0], -1
	for _, c := range corners {
		hits := 0
		in := func(x, y float64) {
			nx, ny := (scale(x)-scale(xmin))/span, y/ymax
			if (c[0] && ny > 1-h || !c[0] && ny < h) && (c[1] && nx < w || !c[1] && nx > 1-w) {
				hits++
			}
		}
		for _, s := range f.series {
			for i := range s.xs {
				in(s.xs[i], s.ys[i])
				if i == 0 {
					continue
				}
				for k := 1; k < 16; k++ { // along the segment from the point before
					t := float64(k) / 16
					x0, x1 := scale(s.xs[i-1]), scale(s.xs[i])
					x := x0 + t*(x1-x0)
					if f.x == xPercentile {
						x = math.Exp(x)
					}
					in(x, s.ys[i-1]+t*(s.ys[i]-s.ys[i-1]))
				}
			}
		}
		if bestHits < 0 || hits < bestHits {
			best, bestHits = c, hits
		}
	}
	return best[0], best[1]
}
