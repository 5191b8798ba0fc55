package runtime

import (
	"github.com/google/go-cmp/cmp"
	"math/rand/v2"
	"strings"
	"testing"
)

// The embedded default profile parses, has every cost, and goes through
// JSON and ParseCosts unchanged.
func TestDefaultCosts(t *testing.T) {
	c := DefaultCosts()
	if c.Name == "" {
		t.Error("the default profile has no name")
	}
	for _, k := range CostKinds() {
		if c.Dist(k).Median() < 0 {
			t.Errorf("%v: negative median", k)
		}
	}
	if c.Median(CostWakeup) < 10*c.Median(CostNewproc) {
		t.Errorf("wakeup %dns is not an order of magnitude above newproc %dns: the spawner would not queue its goroutines before the woken M steals", c.Median(CostWakeup), c.Median(CostNewproc))
	}
	back, err := ParseCosts("round trip", c.JSON())
	if err != nil {
		t.Fatalf("JSON does not parse back: %v\n%s", err, c.JSON())
	}
	if !cmp.Equal(back, c) {
		t.Errorf("round trip changed the profile: %s", cmp.Diff(c, back))
	}
	c.Name = "changed"
	if DefaultCosts().Name == "changed" {
		t.Error("DefaultCosts returns a shared profile")
	}
	if !ZeroCosts().IsZero() || c.IsZero() || !(*Costs)(nil).IsZero() {
		t.Error("IsZero is wrong")
	}
}

// testProfile is a fixed profile for the parsing tests: every cost the
// constant 5ns, from 7 samples.
func testProfile() *Costs {
	c := &Costs{Name: "test", Machine: "m", Go: "go1.26", Command: "by hand", Recorded: "2026-12-03", Load: "0.00 0.00 0.00"}
	for k := range c.Dists {
		c.Dists[k] = Const(5)
		c.Dists[k].N = 7
	}
	return c
}

// validProfile returns testProfile's file with one substitution.
func validProfile(old, new string) string {
	src := string(testProfile().JSON())
	if !strings.Contains(src, old) {
		panic("validProfile: no " + old + " in\n" + src)
	}
	return strings.Replace(src, old, new, 1)
}

// Every way a profile can be wrong gives an error naming the file and what
// is wrong, with the line and column of a syntax or type error.
func TestParseCostsErrors(t *testing.T) {
	const step = `"step":             {"n": 7, "quantiles": [`
	for _, tc := range []struct {
		name, src, want string
	}{
		{"empty", "", "p.json: empty file, want a JSON object"},
		{"syntax", "{\n  \"format\": \"schedlab-costs/1\",\n  \"name\" \"x\"\n}", "p.json:3:10: invalid character '\"' after object key"},
		{"type", validProfile(`"quantiles": [`, `"quantiles": "fast", "x": [`), `p.json:10:52: costs.step.quantiles: got a JSON string, want an array of integers`},
		{"format", validProfile(CostsFormat, "schedlab-costs/2"), `p.json: format "schedlab-costs/2", want "schedlab-costs/1"`},
		{"no format", `{"name": "x", "costs": {}}`, `p.json: no "format": want "schedlab-costs/1"`},
		{"no name", validProfile(`"name": "test"`, `"name": ""`), `p.json: no "name"`},
		{"unknown field", validProfile(`"load"`, `"lode": "", "load"`), `p.json: unknown field "lode"`},
		{"unknown cost", validProfile(`"newm"`, `"newm_"`), "p.json: costs.newm_: no such cost; the costs are step, newproc,"},
		{"no n", validProfile(step, `"step": {"quantiles": [`), `p.json: costs.step: no "n"`},
		{"negative n", validProfile(step, `"step": {"n": -1, "quantiles": [`), `p.json: costs.step: n is -1, want 0 or more`},
		{"20 quantiles", validProfile(step+"5, ", step), "p.json: costs.step: 20 quantiles, want 21 (p0, p5, ..., p100)"},
		{"negative", validProfile(step+"5", step+"-1"), "p.json: costs.step: p0 is -1, want a duration of 0ns or more"},
		{"decreasing", validProfile(step+"5, 5", step+"5, 4"), "p.json: costs.step: p5 (4) is less than p0 (5); quantiles cannot decrease"},
		{"two values", validProfile("}\n}\n", "}\n}\n{}"), "p.json: more than one JSON value"},
	} {
		_, err := ParseCosts("p.json", []byte(tc.src))
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want %q", tc.name, err, tc.want)
		}
	}
	// A cost left out is named.
	full := string(testProfile().JSON())
	short := full[:strings.Index(full, ",\n    \"steal_pass\"")] + "\n  }\n}\n"
	if _, err := ParseCosts("p.json", []byte(short)); err == nil || err.Error() != "p.json: costs.steal_pass: missing" {
		t.Errorf("missing cost: got %v, want p.json: costs.steal_pass: missing", err)
	}
	if c, err := ParseCosts("p.json", []byte(full)); err != nil || !cmp.Equal(c, testProfile()) {
		t.Errorf("the valid profile: %v, %+v", err, c)
	}
}

// The lists by rank, malg_rank and sysmon_late_rank, are written after the
// costs and read back; a null entry or a bad one names its list and index.
func TestCostsRanks(t *testing.T) {
	c := testProfile()
	c.MalgRank = []Dist{Const(30_000), Const(1000)}
	c.SysmonLateRank = []Dist{Const(150_000), Const(90_000), Const(80_000)}
	src := c.JSON()
	if !strings.Contains(string(src), "\"sysmon_late_rank\": [\n    {\"n\": 0") {
		t.Errorf("JSON lacks sysmon_late_rank:\n%s", src)
	}
	back, err := ParseCosts("round trip", src)
	if err != nil {
		t.Fatalf("JSON does not parse back: %v\n%s", err, src)
	}
	if !cmp.Equal(back, c) {
		t.Errorf("round trip changed the profile: %s", cmp.Diff(c, back))
	}
	for _, tc := range []struct{ old, new, want string }{
		{`"sysmon_late_rank": [`, `"sysmon_late_rank": [null, `, "p.json: sysmon_late_rank[0]: null, want a distribution"},
		{`"malg_rank": [`, `"malg_rank": [{"quantiles": []}, `, `p.json: malg_rank[0]: no "n"`},
		{`"sysmon_late_rank": [`, `"sysmon_late_rank": [{"n": 1, "quantiles": [1]}, `, "p.json: sysmon_late_rank[0]: 1 quantiles, want 21"},
	} {
		bad := strings.Replace(string(src), tc.old, tc.new, 1)
		if _, err := ParseCosts("p.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.new, err, tc.want)
		}
	}
}

// Sample interpolates between the quantiles: always within [p0, p100], a
// constant for a constant, and for quantiles 0, 5, ..., 100 uniform on
// [0, 100].
func TestDistSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := Const(70)
	for range 100 {
		if v := c.Sample(rng); v != 70 {
			t.Fatalf("Const(70) sampled %d", v)
		}
	}
	var d Dist
	for i := range d.Quantiles {
		d.Quantiles[i] = int64(5 * i)
	}
	const n = 100000
	var sum, below25 int64
	for range n {
		v := d.Sample(rng)
		if v < 0 || v > 100 {
			t.Fatalf("sample %d outside [0, 100]", v)
		}
		sum += v
		if v < 25 {
			below25++
		}
	}
	if mean := float64(sum) / n; mean < 49 || mean > 50.5 {
		t.Errorf("mean %.2f, want about 49.5 (uniform on [0, 100], rounded down)", mean)
	}
	if f := float64(below25) / n; f < 0.24 || f > 0.26 {
		t.Errorf("P(v < 25) = %.3f, want 0.25", f)
	}
	if d.Median() != 50 {
		t.Errorf("median %d", d.Median())
	}
}
