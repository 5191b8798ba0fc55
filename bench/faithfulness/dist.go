package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// A Dist is a distribution of outcomes: how many runs printed each line.
type Dist struct {
	Counts map[string]int
	Total  int
}

// newDist returns an empty distribution.
func newDist() *Dist { return &Dist{Counts: map[string]int{}} }

// add counts n more runs that printed outcome.
func (d *Dist) add(outcome string, n int) {
	d.Counts[outcome] += n
	d.Total += n
}

// merge adds every run of e to d.
func (d *Dist) merge(e *Dist) {
	for o, n := range e.Counts {
		d.add(o, n)
	}
}

// P is the frequency of outcome, from 0 to 1.
func (d *Dist) P(outcome string) float64 {
	if d.Total == 0 {
		return 0
	}
	return float64(d.Counts[outcome]) / float64(d.Total)
}

// Outcomes returns the outcomes, most frequent first, ties in byte order, so
// that nothing printed depends on map order.
func (d *Dist) Outcomes() []string {
	out := make([]string, 0, len(d.Counts))
	for o := range d.Counts {
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b string) int {
		if d.Counts[a] != d.Counts[b] {
			return d.Counts[b] - d.Counts[a]
		}
		return strings.Compare(a, b)
	})
	return out
}

// Mode is the most frequent outcome ("" for an empty distribution).
func (d *Dist) Mode() string {
	if o := d.Outcomes(); len(o) > 0 {
		return o[0]
	}
	return ""
}

// TVD is the total variation distance between two distributions: half the
// sum over all outcomes of the difference of their frequencies, from 0
// (the same) to 1 (no outcome in common).
// The sum runs over the outcomes in byte order, so that the last digit
// does not depend on map order.
func TVD(a, b *Dist) float64 {
	var all []string
	for _, d := range []*Dist{a, b} {
		for o := range d.Counts {
			all = append(all, o)
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	sum := 0.0
	for _, o := range all {
		diff := a.P(o) - b.P(o)
		if diff < 0 {
			diff = -diff
		}
		sum += diff
	}
	return sum / 2
}

// readRecording reads a file that record.sh wrote: '#' lines are the
// header, every other line is a count, a tab, and an outcome.
func readRecording(name string) (*Dist, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := parseRecording(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return d, nil
}

// parseRecording reads a recording from r (see readRecording).
func parseRecording(r io.Reader) (*Dist, error) {
	d := newDist()
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		count, outcome, ok := strings.Cut(text, "\t")
		n, err := strconv.Atoi(count)
		if !ok || err != nil || n < 0 {
			return nil, fmt.Errorf("line %d: want a count, a tab and an outcome, got %q", line, text)
		}
		d.add(outcome, n)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if d.Total == 0 {
		return nil, fmt.Errorf("no runs recorded")
	}
	return d, nil
}

// An entry is one line of corpus/MANIFEST: a program and the GOMAXPROCS
// values it is recorded and compared at.
type entry struct {
	Name  string
	Procs []int
	// Noisy marks a program whose real distribution itself moves from
	// recording to recording by more than TestRecordings' 0.10 (the
	// manifest's word "noisy" after its GOMAXPROCS values): the report
	// judges it against its floor, the Go~Go TVD, and TestRecordings
	// allows it up to noisyFloor.
	Noisy bool
}

// noisyFloor is the most two recordings of a noisy program may differ.
const noisyFloor = 0.30

// readManifest reads corpus/MANIFEST.
func readManifest(name string) ([]entry, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var es []entry
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("%s:%d: want a program and at least one GOMAXPROCS value", name, i+1)
		}
		e := entry{Name: f[0]}
		for _, p := range f[1:] {
			if p == "noisy" {
				e.Noisy = true
				continue
			}
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%s:%d: GOMAXPROCS %q is not a positive number", name, i+1, p)
			}
			e.Procs = append(e.Procs, n)
		}
		es = append(es, e)
	}
	return es, nil
}
