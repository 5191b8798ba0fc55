package tracetest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// gcTraceLine matches one line of GODEBUG=gctrace=1, as Go's
// gcMarkTermination prints it; the groups are the fields, in order.
var gcTraceLine = regexp.MustCompile(`^gc (\d+) @(\d+\.\d{3})s (\d+)%: ` +
	`([\d.]+)\+([\d.]+)\+([\d.]+) ms clock, ` +
	`([\d.]+)\+([\d.]+)/([\d.]+)/([\d.]+)\+([\d.]+) ms cpu, ` +
	`(\d+)->(\d+)->(\d+) MB, (\d+) MB goal, (\d+) MB stacks, (\d+) MB globals, (\d+) P( \(forced\))?$`)

// A GCTraceLine is one gctrace=1 line, read back: times in ms (as
// printed, rounded to two significant digits below 10ms), sizes in MB.
type GCTraceLine struct {
	N       int64
	At      float64    // seconds since the program started
	Percent int64      // GC CPU since the start, in percent
	Clock   [3]float64 // sweep termination, mark, mark termination
	CPU     [5]float64 // sweep termination, assists, dedicated+fractional, idle, mark termination
	Heap    [3]uint64  // at the start, at mark termination, marked
	Goal    uint64
	Stacks  uint64
	Globals uint64
	Procs   int64
	Forced  bool
}

// ParseGCTrace reads the gctrace lines of text, Go's or schedlab's; a
// line that is not one (every other line of a stderr) is skipped when
// others is true, and an error otherwise.
func ParseGCTrace(text string, others bool) ([]GCTraceLine, error) {
	if text == "" {
		return nil, nil
	}
	var out []GCTraceLine
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		m := gcTraceLine.FindStringSubmatch(line)
		if m == nil {
			if others {
				continue
			}
			return out, fmt.Errorf("line %d is not a gctrace line: %q", i+1, line)
		}
		f := func(k int) float64 { v, _ := strconv.ParseFloat(m[k], 64); return v }
		u := func(k int) uint64 { v, _ := strconv.ParseUint(m[k], 10, 64); return v }
		l := GCTraceLine{
			N: int64(u(1)), At: f(2), Percent: int64(u(3)),
			Clock:  [3]float64{f(4), f(5), f(6)},
			CPU:    [5]float64{f(7), f(8), f(9), f(10), f(11)},
			Heap:   [3]uint64{u(12), u(13), u(14)},
			Goal:   u(15),
			Stacks: u(16), Globals: u(17), Procs: int64(u(18)),
			Forced: m[19] != "",
		}
		out = append(out, l)
	}
	return out, nil
}
