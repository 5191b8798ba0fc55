package runtime

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// A tail puts the top twentieth where it says: its quantiles are the
// draws' own at p96 ... p99.9, and the mean follows them, not the
// straight line from p95 to p100. It is written after the quantiles and
// read back; a tail of the wrong length, or one that leaves [p95, p100]
// or decreases, is an error that names its quantile.
func TestDistTail(t *testing.T) {
	var d Dist
	for i := range d.Quantiles {
		d.Quantiles[i] = int64(i) // p95 = 19
	}
	d.Quantiles[NumQuantiles-1] = 1_000_000
	straight := d
	d.HasTail = true
	d.Tail = [NumTail]int64{20, 21, 22, 30, 40, 5000}
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 400_000
	var draws []int64
	var sum, sumStraight float64
	for range n {
		p := rng.Float64()
		v := d.at(p)
		draws = append(draws, v)
		sum += float64(v)
		sumStraight += float64(straight.at(p))
	}
	slices.Sort(draws)
	for j, level := range TailLevels {
		below, _ := slices.BinarySearch(draws, d.Tail[j])
		got, want := float64(below)/n, float64(level)/1000
		if math.Abs(got-want) > 4*math.Sqrt(want*(1-want)/n) {
			t.Errorf("%.4f of the draws are under the tail's %s (%d), want %.3f", got, tailName(j), d.Tail[j], want)
		}
	}
	// The straight line puts 2.5% of draws above 500,000; the tail puts
	// 0.1% above 5,000.
	if mean, straightMean := sum/n, sumStraight/n; mean > 600 || straightMean < 20_000 {
		t.Errorf("mean %.0f with the tail, %.0f without: want under 600 and over 20,000", mean, straightMean)
	}
	if d.at(0.5) != straight.at(0.5) || d.at(0.9) != straight.at(0.9) {
		t.Error("the tail moved a draw below p95")
	}

	c := testProfile()
	c.Dists[CostStall] = d
	src := string(c.JSON())
	if !strings.Contains(src, `1000000], "tail": [20, 21, 22, 30, 40, 5000]}`) {
		t.Errorf("JSON lacks the tail:\n%s", src)
	}
	back, err := ParseCosts("round trip", []byte(src))
	if err != nil {
		t.Fatalf("JSON does not parse back: %v\n%s", err, src)
	}
	if !cmp.Equal(back, c) {
		t.Errorf("round trip changed the profile: %s", cmp.Diff(c, back))
	}
	for _, tc := range []struct{ tail, want string }{
		{"[20, 21]", "p.json: costs.stall: a tail of 2 quantiles, want 6 (p96, p97, p98, p99, p99.5, p99.9)"},
		{"[18, 21, 22, 30, 40, 5000]", "p.json: costs.stall: tail p96 (18) is less than p95 (19); quantiles cannot decrease"},
		{"[20, 21, 22, 30, 29, 5000]", "p.json: costs.stall: tail p99.5 (29) is less than p99 (30); quantiles cannot decrease"},
		{"[20, 21, 22, 30, 40, 2000000]", "p.json: costs.stall: tail p99.9 (2000000) is more than p100 (1000000)"},
		{`"long"`, `costs.stall.tail: got a JSON string, want an array of integers`},
	} {
		bad := strings.Replace(src, `"tail": [20, 21, 22, 30, 40, 5000]`, `"tail": `+tc.tail, 1)
		if _, err := ParseCosts("p.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("tail %s: error %v, want %q", tc.tail, err, tc.want)
		}
	}
}

// BenchmarkDistSample draws from the default profile's stall, with its
// tail and without: the tail's cost on the draw (docs/performance.md, "A
// cost's tail").
func BenchmarkDistSample(b *testing.B) {
	withTail := *DefaultCosts().Dist(CostStall)
	noTail := withTail
	noTail.HasTail = false
	for _, bench := range []struct {
		name string
		d    *Dist
	}{{"tail", &withTail}, {"straight", &noTail}} {
		b.Run(bench.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var sum int64
			for b.Loop() {
				sum += bench.d.Sample(rng)
			}
			if sum < 0 {
				b.Fatal(sum)
			}
		})
	}
}
