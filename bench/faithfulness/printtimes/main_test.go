package main

import (
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	// Two cold runs and a warm one. Run 1: main on P0; w3 formats first
	// on P0 (10µs), w0 on P1 after it (begun at 12µs, 50µs); its write is
	// the run's first. Run 2: w0 formats first, on P1: not a print_first
	// sample (not main's P), and no line on P1 begins after it was warm.
	// Run 3 (-warm): w0's line on P1 is P1's first, 70µs. The first
	// writes are 19, 1 and 1.5µs; the p100 is the p99.5, so 19µs is
	// left out of the quantiles.
	rec := `# header
run 0 3 0 1 2 0 1 12000 62000 70000 0 63000 63500 65000 0 65100 65400 66000 0 1000 11000 30000
run 0 0 3 1 2 0 1 1000 40000 41000 0 42000 42200 43000 0 43100 43300 44000 0 2000 41500 42500
run 1 3 0 1 2 0 1 5000 75000 76000 0 77000 77100 78000 0 78100 78200 79000 0 1000 1500 3000
`
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"3 runs; orders:",
		"  w 3 w 0 w 1 w 2  2  66.7%",
		`print_first for a costs profile (the run's first line, formatted on main's P, main having formatted none, 1 samples; p100 the p99.5): {"n": 1, "quantiles": [10000,`,
		`print_p_first for a costs profile (another P's first line, begun with fmt warm, 2 samples; p100 the p99.5): {"n": 2, "quantiles": [50000,`,
		`write_first for a costs profile (the run's first write, 3 samples; p100 the p99.5): {"n": 3, "quantiles": [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500]}`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary:\n%s\nwant it to contain %q", out.String(), want)
		}
	}
}
