package lab

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/internal/cli"
)

// Bounds of a lab. MaxCells keeps a grid to what a person can read and a
// host can run; MaxSeeds times MaxCells is explore.MaxRuns, the most runs
// a sweep tallies. MaxProcs is --procs' limit, cli.MaxProcs.
const (
	MaxCells = 10_000
	MaxSeeds = 10_000
	MaxProcs = cli.MaxProcs
)

// The sweeps that set a run flag rather than a parameter.
const (
	SweepProcs = "procs" // --procs, GOMAXPROCS at start
	SweepQuota = "quota" // --cpu-quota, the process's CPU quota in CPUs
	SweepCPUs  = "cpus"  // --cpus, the machine's CPUs

	SweepGOGC     = "gogc"      // --gogc, the GC percent at start (off for -1)
	SweepMemLimit = "memlimit"  // --memlimit, the soft memory limit at start (off for none)
	SweepGCAssist = "gc-assist" // --gc-assist, mark assists on or off
)

// runSweeps maps each sweep that sets a run flag to its flag.
var runSweeps = map[string]string{
	SweepProcs:    "procs",
	SweepQuota:    "cpu-quota",
	SweepCPUs:     "cpus",
	SweepGOGC:     "gogc",
	SweepMemLimit: "memlimit",
	SweepGCAssist: "gc-assist",
}

// Unlimited is the quota sweep's value for no quota.
const Unlimited = "unlimited"

// A Sweep is one --sweep NAME=V1,V2,...: the values one setting takes
// across the grid, in the order given, as the command line wrote them.
type Sweep struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// identifier is what a parameter may be called, as --param has it: a
// Starlark identifier.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ParseSweep reads one --sweep: NAME=V1,V2,... with NAME procs, quota,
// cpus, gogc, memlimit, gc-assist or the name of a parameter of the script, and at least one value, none
// empty and none twice. procs are integers from 1 to MaxProcs; a quota is
// a number of CPUs above 0 or "unlimited". A parameter's values are
// checked against its default's type when a run reads them.
func ParseSweep(s string) (Sweep, error) {
	name, list, ok := strings.Cut(s, "=")
	if !ok {
		return Sweep{}, fmt.Errorf("want NAME=V1,V2,..., such as procs=1,2,4")
	}
	name = strings.TrimSpace(name)
	switch {
	case name == "seed":
		return Sweep{}, fmt.Errorf("the seeds of each cell are --seeds N's, 1 to N")
	case runSweeps[name] == "" && !identifier.MatchString(name):
		return Sweep{}, fmt.Errorf("%q is neither procs, quota, cpus, gogc, memlimit, gc-assist nor a parameter's name (a Starlark identifier: letters, digits, _)", name)
	}
	sw := Sweep{Name: name}
	for _, v := range strings.Split(list, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return Sweep{}, fmt.Errorf("an empty value; want NAME=V1,V2,..., such as %s=1,2,4", name)
		}
		if err := checkValue(name, v); err != nil {
			return Sweep{}, err
		}
		if slices.Contains(sw.Values, v) {
			return Sweep{}, fmt.Errorf("%s %s is given twice", name, v)
		}
		sw.Values = append(sw.Values, v)
	}
	return sw, nil
}

// checkValue checks one value of the sweep name, if the lab knows its
// type: procs, cpus, quota and gc-assist. gogc's and memlimit's values
// are checked by their flags when the grid's cells are set up.
func checkValue(name, v string) error {
	switch name {
	case SweepGCAssist:
		if v != "on" && v != "off" {
			return fmt.Errorf("gc-assist %s: want on or off", v)
		}
	case SweepProcs, SweepCPUs:
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s %s: want an integer from 1 to %d", name, v, MaxProcs)
		}
		if n < 1 || n > MaxProcs {
			return fmt.Errorf("%s %d: out of range, want 1 to %d", name, n, MaxProcs)
		}
	case SweepQuota:
		if v == Unlimited {
			return nil
		}
		q, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(q) || math.IsInf(q, 0) {
			return fmt.Errorf("quota %s: want a number of CPUs, such as 2 or 0.5, or %s", v, Unlimited)
		}
		if q <= 0 {
			return fmt.Errorf("quota %s: want more than 0 CPUs (%s for no quota)", v, Unlimited)
		}
		if q > MaxProcs {
			return fmt.Errorf("quota %s: at most %d CPUs", v, MaxProcs)
		}
	}
	return nil
}

// A Grid is the cartesian product of sweeps: every combination of their
// values, the first sweep's varying slowest, as nested loops in the order
// the sweeps were given.
type Grid struct {
	Sweeps []Sweep
}

// NewGrid checks sweeps as a grid: no name twice, and at most MaxCells
// cells.
func NewGrid(sweeps []Sweep) (*Grid, error) {
	n := 1
	var sizes []string
	for i, sw := range sweeps {
		for _, prev := range sweeps[:i] {
			if prev.Name == sw.Name {
				return nil, fmt.Errorf("--sweep %s is given twice: give its values in one list", sw.Name)
			}
		}
		sizes = append(sizes, fmt.Sprintf("%s %d", sw.Name, len(sw.Values)))
		n *= len(sw.Values) // at most MaxCells * a command line's length: no overflow
		if n > MaxCells {
			for _, rest := range sweeps[i+1:] {
				sizes = append(sizes, fmt.Sprintf("%s %d", rest.Name, len(rest.Values)))
			}
			return nil, fmt.Errorf("the grid has more than 10,000 cells (%s): sweep fewer values", strings.Join(sizes, " × "))
		}
	}
	return &Grid{Sweeps: sweeps}, nil
}

// Len returns the number of cells.
func (g *Grid) Len() int {
	n := 1
	for _, sw := range g.Sweeps {
		n *= len(sw.Values)
	}
	return n
}

// Cell returns the values of cell i, one for each sweep in order.
func (g *Grid) Cell(i int) []string {
	vs := make([]string, len(g.Sweeps))
	for k := len(g.Sweeps) - 1; k >= 0; k-- {
		sw := g.Sweeps[k]
		vs[k] = sw.Values[i%len(sw.Values)]
		i /= len(sw.Values)
	}
	return vs
}

// Names returns the names of the sweeps, in order.
func (g *Grid) Names() []string {
	var names []string
	for _, sw := range g.Sweeps {
		names = append(names, sw.Name)
	}
	return names
}

// isParam reports whether the sweep name sets a parameter of the script
// rather than a run flag.
func isParam(name string) bool {
	return runSweeps[name] == ""
}
