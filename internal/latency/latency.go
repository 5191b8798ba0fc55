// Package latency summarises latencies: count, percentiles and maximum,
// through an HdrHistogram (github.com/HdrHistogram/hdrhistogram-go), the
// one histogram type of schedlab's traffic, the latency lab and stats().
//
// Values are virtual nanoseconds, recorded with three significant digits
// from 1ns up to an hour; a value above that is counted at the top. The
// maximum is exact (kept beside the histogram), the percentiles are the
// histogram's: within 0.1% of the true value, and never above the
// maximum.
package latency

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// highest is the largest latency the histogram tells apart: an hour.
const highest = 3600 * 1000 * 1000 * 1000

// Quantiles are the percentiles a Summary reports, in order.
var Quantiles = []float64{50, 90, 99, 99.9}

// A Summary is what a set of latencies comes to.
type Summary struct {
	Count int64
	P     []int64 // the value at each of Quantiles, in ns
	Max   int64
}

// Summarize returns the summary of vs (ns).
func Summarize(vs []int64) Summary {
	h, hi := record(vs)
	s := Summary{Count: int64(len(vs)), Max: hi}
	for _, q := range Quantiles {
		s.P = append(s.P, min(h.ValueAtQuantile(q), hi)) // the bucket's top may pass the exact maximum
	}
	return s
}

// record returns the histogram of vs and their exact maximum.
func record(vs []int64) (*hdrhistogram.Histogram, int64) {
	h := hdrhistogram.New(1, highest, 3)
	var hi int64
	for _, v := range vs {
		hi = max(hi, v)
		if err := h.RecordValue(min(max(v, 1), highest)); err != nil {
			panic(err) // within range by construction
		}
	}
	return h, hi
}

// A Point is one point of a latency curve: the latency at a percentile.
type Point struct {
	Percentile float64 // from 0 to 100
	Value      int64   // ns
}

// CurveTicks is the number of points a Curve has for each halving of
// the distance to 100%, as HdrHistogram's percentile distribution
// (outputPercentileDistribution) prints 5 ticks per half distance.
const CurveTicks = 5

// Curve returns the percentile curve of vs (ns), the one HdrHistogram
// plots with the percentile on a log axis of 1/(1-p): the latency at
// the percentiles 100(1 - 2^(-k/CurveTicks)) for k = 0, 1, ... while
// 1/(1-p) is less than the number of values, then the exact maximum at
// 100(1 - 1/n), the percentile of the largest of n values. The
// latencies are the histogram's, as Summarize's are, never above the
// maximum; there is no point for no value.
func Curve(vs []int64) []Point {
	if len(vs) == 0 {
		return nil
	}
	h, hi := record(vs)
	n := float64(len(vs))
	var pts []Point
	for k := 0; ; k++ {
		x := math.Exp2(float64(k) / CurveTicks) // 1/(1-p)
		if x >= n {
			break
		}
		p := 100 * (1 - 1/x)
		pts = append(pts, Point{p, min(h.ValueAtQuantile(p), hi)})
	}
	return append(pts, Point{100 * (1 - 1/n), hi})
}

// Names returns the column names of Quantiles: p50, p90, p99, p99.9.
func Names() []string {
	var ns []string
	for _, q := range Quantiles {
		ns = append(ns, "p"+fmt.Sprint(q))
	}
	return ns
}

// Format writes a latency to the histogram's precision, three significant
// digits, as Go writes a duration: 1.23ms, 870µs, 12.3s.
func Format(ns int64) string {
	p := int64(1)
	for ns/p >= 1000 {
		p *= 10
	}
	r := (ns + p/2) / p * p
	return time.Duration(r).String()
}

// WriteTable writes one line per named summary, with aligned columns:
// name, requests sent, answered, failed, then the percentiles and the
// maximum, as Format writes them.
func WriteTable(w io.Writer, rows []Row) error {
	head := []string{"traffic", "sent", "done", "failed"}
	head = append(head, Names()...)
	head = append(head, "max")
	cells := [][]string{head}
	for _, r := range rows {
		line := []string{r.Name, fmt.Sprint(r.Sent), fmt.Sprint(r.Summary.Count), fmt.Sprint(r.Failed)}
		for _, p := range r.Summary.P {
			line = append(line, Format(p))
		}
		cells = append(cells, append(line, Format(r.Summary.Max)))
	}
	return WriteAligned(w, cells, 1)
}

// WriteAligned writes lines as a table of aligned columns, two spaces
// apart: the first left columns aligned left (names), the others right
// (figures). The first line is the heading.
func WriteAligned(w io.Writer, lines [][]string, left int) error {
	var width []int
	for _, line := range lines {
		for i, c := range line {
			if i == len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, line := range lines {
		for i, c := range line {
			pad := width[i] - len([]rune(c))
			sep := "  "
			if i == len(line)-1 {
				sep = "\n"
			}
			if i < left {
				if i < len(line)-1 {
					c += strings.Repeat(" ", pad)
				}
			} else {
				c = strings.Repeat(" ", pad) + c
			}
			if _, err := io.WriteString(w, c+sep); err != nil {
				return err
			}
		}
	}
	return nil
}

// A Row is one line of WriteTable.
type Row struct {
	Name         string
	Sent, Failed int64
	Summary      Summary
}
