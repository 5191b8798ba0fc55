package calibrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Format is the format name of a costs profile (docs/runtime.md, "Costs").
const Format = "schedlab-costs/1"

// NQuantiles is the number of quantiles of a distribution: p0, p5, ...,
// p100.
const NQuantiles = 21

// A Dist is a measured distribution of one cost: how many samples it was
// made of and its 21 quantiles in nanoseconds.
type Dist struct {
	N         int     `json:"n"`
	Quantiles []int64 `json:"quantiles"`
}

// Median returns the distribution's p50.
func (d Dist) Median() int64 { return d.Quantiles[NQuantiles/2] }

// Costs holds one distribution per cost, in the order of the costs
// profile contract (ROSTER.md, docs/runtime.md).
type Costs struct {
	Step           Dist `json:"step"`             // a Starlark step
	Newproc        Dist `json:"newproc"`          // a spawn, charged to the spawning G
	Switch         Dist `json:"switch"`           // a same-P hand-off: schedule + execute
	Gosched        Dist `json:"gosched"`          // Gosched until the next G starts
	Wakeup         Dist `json:"wakeup"`           // wakep/startm until the woken M runs schedule (idle M)
	Newm           Dist `json:"newm"`             // extra when startm must create a new M
	SyscallEnter   Dist `json:"syscall_enter"`    // entering a syscall
	SyscallExit    Dist `json:"syscall_exit"`     // leaving it
	TimerLate      Dist `json:"timer_late"`       // how late a timer fires, for durations >= 1ms
	TimerLateShort Dist `json:"timer_late_short"` // how late, for durations < 1ms
	StealPass      Dist `json:"steal_pass"`       // a spinning M's pass over the other Ps
}

// A Profile is a costs profile: where and how it was measured, and the
// costs.
type Profile struct {
	Format   string `json:"format"`
	Name     string `json:"name"`
	Machine  string `json:"machine"`
	Go       string `json:"go"`
	Command  string `json:"command"`
	Recorded string `json:"recorded"`        // the date, YYYY-MM-DD (UTC)
	Load     string `json:"load"`            // the 1, 5 and 15 minute load averages when it began
	Notes    string `json:"notes,omitempty"` // how it was made, for a reader
	Costs    Costs  `json:"costs"`
}

// named returns the costs with their JSON names, in order.
func (c *Costs) named() []struct {
	name string
	d    *Dist
} {
	return []struct {
		name string
		d    *Dist
	}{
		{"step", &c.Step}, {"newproc", &c.Newproc}, {"switch", &c.Switch}, {"gosched", &c.Gosched},
		{"wakeup", &c.Wakeup}, {"newm", &c.Newm}, {"syscall_enter", &c.SyscallEnter},
		{"syscall_exit", &c.SyscallExit}, {"timer_late", &c.TimerLate},
		{"timer_late_short", &c.TimerLateShort}, {"steal_pass", &c.StealPass},
	}
}

// Marshal returns p as the JSON of the costs profile contract, indented,
// each distribution on one line.
func (p *Profile) Marshal() ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	fields := [][2]string{
		{"format", p.Format}, {"name", p.Name}, {"machine", p.Machine}, {"go", p.Go},
		{"command", p.Command}, {"recorded", p.Recorded}, {"load", p.Load},
	}
	if p.Notes != "" {
		fields = append(fields, [2]string{"notes", p.Notes})
	}
	for _, f := range fields {
		v, _ := json.Marshal(f[1])
		fmt.Fprintf(&b, "  %q: %s,\n", f[0], v)
	}
	b.WriteString("  \"costs\": {\n")
	named := p.Costs.named()
	for i, c := range named {
		fmt.Fprintf(&b, "    %-19s {\"n\": %d, \"quantiles\": [", fmt.Sprintf("%q:", c.name), c.d.N)
		for j, q := range c.d.Quantiles {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprint(&b, q)
		}
		b.WriteString("]}")
		if i < len(named)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  }\n}\n")
	return b.Bytes(), nil
}

// Parse reads a costs profile, strictly: unknown fields, a wrong format,
// a missing cost and a malformed distribution are errors.
func Parse(data []byte) (*Profile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("costs profile: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("costs profile: data after the profile")
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return &p, nil
}

// check reports the first way p breaks the contract.
func (p *Profile) check() error {
	if p.Format != Format {
		return fmt.Errorf("costs profile: format %q, want %q", p.Format, Format)
	}
	for _, c := range p.Costs.named() {
		if err := c.d.check(); err != nil {
			return fmt.Errorf("costs profile: %s: %w", c.name, err)
		}
	}
	return nil
}

func (d *Dist) check() error {
	if len(d.Quantiles) != NQuantiles {
		return fmt.Errorf("%d quantiles, want %d", len(d.Quantiles), NQuantiles)
	}
	if d.N < 1 {
		return fmt.Errorf("n = %d, want at least 1 sample", d.N)
	}
	for i, q := range d.Quantiles {
		if q < 0 {
			return fmt.Errorf("quantile %d is %d, want >= 0", i, q)
		}
		if i > 0 && q < d.Quantiles[i-1] {
			return fmt.Errorf("quantiles decrease at %d (%d < %d)", i, q, d.Quantiles[i-1])
		}
	}
	return nil
}

// Quantiles returns the distribution of samples (in ns, at least one): its
// 21 quantiles by linear interpolation between the closest ranks (type 7
// of Hyndman and Fan, R's and NumPy's default), rounded to the nearest ns
// and at least 0.
func Quantiles(samples []float64) Dist {
	q := make([]int64, NQuantiles)
	for i, v := range quantiles(samples) {
		q[i] = max(int64(math.Round(v)), 0)
	}
	return Dist{N: len(samples), Quantiles: q}
}

// stepQuantiles returns the quantiles of samples rounded up to whole ns:
// the step's, a fraction of a ns that the profile's whole ns cannot hold.
func stepQuantiles(samples []float64) []int64 {
	q := make([]int64, NQuantiles)
	for i, v := range quantiles(samples) {
		q[i] = max(int64(math.Ceil(v)), 0)
	}
	return q
}

// quantiles returns the 21 quantiles of samples (at least one).
func quantiles(samples []float64) []float64 {
	s := slices.Clone(samples)
	slices.Sort(s)
	q := make([]float64, NQuantiles)
	for i := range q {
		h := float64(len(s)-1) * float64(i) / float64(NQuantiles-1)
		lo := int(math.Floor(h))
		hi := min(lo+1, len(s)-1)
		q[i] = s[lo] + (h-float64(lo))*(s[hi]-s[lo])
	}
	return q
}

// median returns the middle of samples (at least one).
func median(samples []float64) float64 {
	s := slices.Clone(samples)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
