package main

import (
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	// Three runs: two "stop 2 stop 3 stop 1", one "stop 1 stop 2 stop 3".
	// In the first two, w1 is on P1 and w2, w3 on P0; the median of two
	// samples is the lower (samples.Quantiles).
	rec := `# header
run 2 3 1 0 1 10000 200000 250000 0 20000 60000 90000 0 100000 101000 110000
run 2 3 1 0 1 30000 220000 270000 0 40000 80000 95000 0 120000 121000 130000
run 1 2 3 1 1 5000 50000 60000 0 70000 90000 100000 0 100000 101000 120000
`
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"3 runs; per order",
		"stop 2 stop 3 stop 1    66.7%  w1 P1 10/200/250  w2 P0 20/60/90  w3 P0 100/101/110",
		"stop 1 stop 2 stop 3    33.3%  w1 P1 5/50/60  w2 P0 70/90/100  w3 P0 100/101/120",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary:\n%s\nwant it to contain %q", out.String(), want)
		}
	}
	if err := summary(strings.NewReader("run 1 2 3\n"), &out); err == nil {
		t.Error("a short run line: no error")
	}
}
