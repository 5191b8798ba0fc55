package calibrate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedlab/schedlab/runtime"
)

func TestQuantiles(t *testing.T) {
	var xs []float64
	for i := 100; i >= 0; i-- {
		xs = append(xs, float64(i*10))
	}
	d := Quantiles(xs)
	var want [runtime.NumQuantiles]int64
	for i := range want {
		want[i] = int64(i * 50)
	}
	if d.N != 101 || d.Quantiles != want {
		t.Errorf("Quantiles(0..1000 by 10) = %+v, want n 101 and %v", d, want)
	}
	// The tail: p96 ... p99.9, 960 ... 999.
	if wantTail := [runtime.NumTail]int64{960, 970, 980, 990, 995, 999}; !d.HasTail || d.Tail != wantTail {
		t.Errorf("Quantiles(0..1000 by 10)'s tail = %v (%v), want %v", d.Tail, d.HasTail, wantTail)
	}
	// Interpolated, and never below 0.
	d = Quantiles([]float64{-5, 15})
	if d.Quantiles[0] != 0 || d.Quantiles[10] != 5 || d.Quantiles[20] != 15 {
		t.Errorf("Quantiles(-5, 15) = %v, want 0 at p0, 5 at p50, 15 at p100", d.Quantiles)
	}
	// The step's are rounded up: a fraction of a ns is 1ns.
	d = stepQuantiles([]float64{0.2, 0.3, 0.4, 2.5})
	if d.Quantiles[0] != 1 || d.Median() != 1 || d.Quantiles[20] != 3 {
		t.Errorf("stepQuantiles(0.2, 0.3, 0.4, 2.5) = %v, want 1 at p0 and p50, 3 at p100", d.Quantiles)
	}
	if m := median([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Errorf("median = %v, want 2.5", m)
	}
}

// A profile made of calibrate's distributions is one the engine reads back
// unchanged, and one it refuses once broken.
func TestProfileRoundTrip(t *testing.T) {
	p := &runtime.Costs{Name: "t", Machine: "m", Go: "go1.26 linux/amd64", Command: "schedlab calibrate", Recorded: "2026-12-03", Load: "0.1 0.2 0.3", Notes: "n"}
	for _, k := range runtime.CostKinds() {
		q := make([]float64, 50)
		for j := range q {
			q[j] = float64((int(k) + 1) * j)
		}
		p.Dists[k] = Quantiles(q)
	}
	data := p.JSON()
	q, err := runtime.ParseCosts("p.json", data)
	if err != nil {
		t.Fatalf("ParseCosts(JSON): %v\n%s", err, data)
	}
	if diff := cmp.Diff(p, q); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"quantiles": [0, 2, 5, `, `"quantiles": [0, 5, 2, `, "p.json: costs.step: p10 (2) is less than p5 (5); quantiles cannot decrease"},
		{`"steal_pass":`, `"steal_passes":`, "p.json: costs.steal_passes: no such cost"},
		{`"schedlab-costs/1"`, `"schedlab-costs/2"`, `p.json: format "schedlab-costs/2", want "schedlab-costs/1"`},
	} {
		bad := strings.Replace(string(data), c.from, c.to, 1)
		if bad == string(data) {
			t.Fatalf("%q not in the profile:\n%s", c.from, data)
		}
		if _, err := runtime.ParseCosts("p.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseCosts with %s = %v, want an error with %q", c.to, err, c.want)
		}
	}
}

// Each kind of statement the step is calibrated by is one kind a profile
// charges (its step_ps_* cost), each once, none step_ps itself.
func TestStepKindCosts(t *testing.T) {
	seen := map[runtime.CostKind]bool{}
	for _, sk := range stepKinds {
		c := sk.kind.Cost()
		if c == runtime.CostStepPs || seen[c] || !psCost(c) {
			t.Errorf("%s: charged as %v, which is step_ps or another statement's", sk.star, c)
		}
		seen[c] = true
	}
}
