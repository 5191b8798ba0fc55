package calibrate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func testProfile() *Profile {
	p := &Profile{Format: Format, Name: "t", Machine: "m", Go: "go1.26 linux/amd64", Command: "schedlab calibrate", Recorded: "2026-12-03", Load: "0.1 0.2 0.3", Notes: "n"}
	for i, c := range p.Costs.named() {
		q := make([]float64, 50)
		for j := range q {
			q[j] = float64((i + 1) * j)
		}
		*c.d = Quantiles(q)
	}
	return p
}

func TestProfileRoundTrip(t *testing.T) {
	p := testProfile()
	data, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	q, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(Marshal(p)): %v\n%s", err, data)
	}
	if diff := cmp.Diff(p, q); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// One cost a line, in the contract's order.
	lines := strings.Split(string(data), "\n")
	var names []string
	for _, l := range lines {
		if strings.Contains(l, `"quantiles"`) {
			names = append(names, strings.Trim(strings.Fields(l)[0], `":`))
		}
	}
	want := []string{"step", "newproc", "switch", "gosched", "wakeup", "newm", "syscall_enter", "syscall_exit", "timer_late", "timer_late_short", "steal_pass"}
	if !cmp.Equal(names, want) {
		t.Errorf("costs in the file: %v, want %v", names, want)
	}
}

func TestParseErrors(t *testing.T) {
	good, err := testProfile().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"format", `"schedlab-costs/1"`, `"schedlab-costs/2"`, `format "schedlab-costs/2", want "schedlab-costs/1"`},
		{"unknown field", `"name"`, `"nom"`, `unknown field "nom"`},
		{"missing cost", `"steal_pass":`, `"steal_passes":`, `unknown field "steal_passes"`},
		{"20 quantiles", `"quantiles": [0, `, `"quantiles": [`, "step: 20 quantiles, want 21"},
		{"decreasing", `"quantiles": [0, 2, 5, `, `"quantiles": [0, 5, 2, `, "quantiles decrease at 2"},
		{"negative", `"quantiles": [0, `, `"quantiles": [-1, `, "quantile 0 is -1"},
		{"no samples", `"n": 50`, `"n": 0`, "n = 0, want at least 1 sample"},
		{"not json", `{`, `[`, "costs profile: invalid character"},
		{"trailing", "}\n}\n", "}\n}\n{}", "data after the profile"},
	} {
		bad := strings.Replace(string(good), c.from, c.to, 1)
		if bad == string(good) {
			t.Fatalf("%s: %q not in the profile", c.name, c.from)
		}
		_, err := Parse([]byte(bad))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Parse = %v, want an error with %q", c.name, err, c.want)
		}
	}
	// A profile missing a cost altogether.
	p := testProfile()
	p.Costs.Newm = Dist{}
	if _, err := p.Marshal(); err == nil || !strings.Contains(err.Error(), "newm: 0 quantiles") {
		t.Errorf("Marshal without newm = %v, want a newm error", err)
	}
}
