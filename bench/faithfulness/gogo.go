package main

// Go against Go: two sets of recordings of the real runtime compared pair
// by pair, with no schedlab in the loop. The corpus was recorded on more
// than one machine, at more than one load; how far real Go's own
// distributions move between them says how much of a TVD the machine and
// its load can explain, and whether one costs profile can fit them all.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A header is what a recording's '#' lines say of where it was made.
type header struct {
	Machine string // the CPU model, from "# machine: 2 CPUs, MODEL, KERNEL"
	CPUs    int    // the machine's CPUs, from the same line (0: not said)
	Load    string // the one-minute load average before the runs
}

// readHeader reads the header of a recording that record.sh wrote. A field
// it does not find is "?".
func readHeader(name string) (header, error) {
	h := header{Machine: "?", Load: "?"}
	f, err := os.Open(name)
	if err != nil {
		return h, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") {
			break
		}
		if m, ok := strings.CutPrefix(line, "# machine: "); ok {
			parts := strings.Split(m, ", ")
			if len(parts) >= 2 {
				h.Machine = parts[1]
			}
			if n, ok := strings.CutSuffix(parts[0], " CPUs"); ok {
				h.CPUs, _ = strconv.Atoi(n)
			}
		}
		if _, after, ok := strings.Cut(line, "load before: "); ok {
			if f := strings.Fields(after); len(f) > 0 {
				h.Load = f[0]
			}
		}
	}
	return h, sc.Err()
}

// A recSet is one program/P pair's recordings of a set: pooled, with each
// recording's header and the TVD between its first two.
type recSet struct {
	pooled  *Dist
	headers []header
	floor   float64 // -1 with a single recording
}

func readSet(dir string, runs []string, name string, procs int) (recSet, error) {
	s := recSet{pooled: newDist(), floor: -1}
	var ds []*Dist
	for _, run := range runs {
		file := filepath.Join(dir, "recordings", run, recordingName(name, procs))
		d, err := readRecording(file)
		if err != nil {
			return s, err
		}
		h, err := readHeader(file)
		if err != nil {
			return s, err
		}
		ds = append(ds, d)
		s.headers = append(s.headers, h)
		s.pooled.merge(d)
	}
	if len(ds) >= 2 {
		s.floor = TVD(ds[0], ds[1])
	}
	return s, nil
}

// where says on what machines and at what loads a set was recorded.
func (s recSet) where() string {
	var machines, loads []string
	for _, h := range s.headers {
		m := h.Machine
		if strings.Contains(m, "Xeon") {
			m = "Xeon"
		}
		if len(machines) == 0 || machines[len(machines)-1] != m {
			machines = append(machines, m)
		}
		loads = append(loads, h.Load)
	}
	return strings.Join(machines, "/") + ", load " + strings.Join(loads, "/")
}

// writeGoGo prints, for every pair of entries, the TVD between the pooled
// recordings of set a and of set b, beside each set's own floor, and the
// mean of each column.
func writeGoGo(w io.Writer, dir string, entries []entry, a, b []string) error {
	an, bn := strings.Join(a, "+"), strings.Join(b, "+")
	fmt.Fprintf(w, "| program | Ps | %s: where | %s: where | mode in %s | its share, %s / %s | TVD | floor %s | floor %s |\n", an, bn, an, an, bn, an, bn)
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	var n int
	var sum, sumA, sumB float64
	for _, e := range entries {
		for _, p := range e.Procs {
			sa, err := readSet(dir, a, e.Name, p)
			if err != nil {
				return err
			}
			sb, err := readSet(dir, b, e.Name, p)
			if err != nil {
				return err
			}
			mode := sa.pooled.Mode()
			tvd := TVD(sa.pooled, sb.pooled)
			n++
			sum += tvd
			sumA += max(sa.floor, 0)
			sumB += max(sb.floor, 0)
			fmt.Fprintf(w, "| %s | %d | %s | %s | `%s` | %s / %s | %.3f | %s | %s |\n",
				e.Name, p, sa.where(), sb.where(), mode, pct(sa.pooled.P(mode)), pct(sb.pooled.P(mode)), tvd, floorText(sa.floor), floorText(sb.floor))
		}
	}
	if n > 0 {
		fmt.Fprintf(w, "\n%d pairs · mean TVD %s against %s: %.3f · mean floor %.3f and %.3f\n", n, an, bn, sum/float64(n), sumA/float64(n), sumB/float64(n))
	}
	return nil
}

func floorText(f float64) string {
	if f < 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", f)
}

// splitList splits s at sep, dropping empty elements.
func splitList(s, sep string) []string {
	var out []string
	for _, f := range strings.Split(s, sep) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
