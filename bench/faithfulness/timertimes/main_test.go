package main

import (
	"strings"
	"testing"
)

// The first sleep's gaps make timer_first, less the later gaps' median.
func TestSummary(t *testing.T) {
	rec := "# header\nsleep 30000 500 400 600\nsleep 50000 500 500 500\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"first sleep, n 2: [30000, 30000,",
		"later sleeps, n 6: [400, ",
		`timer_first for a costs profile (less the later sleeps' median, 500ns; p100 the p99.5): {"n": 2, "quantiles": [29500, `,
		", 29500]}",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	for rec, want := range map[string]string{
		"sleep 30000\n":   "no runs with two sleeps",
		"println 1 2\n":   "not a timertimes line",
		"sleep 30000 x\n": "line 1:",
	} {
		if err := summary(strings.NewReader(rec), &out); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("summary(%q) = %v, want an error with %q", rec, err, want)
		}
	}
}

// A run prints one line of four gaps, the first the largest in a fresh
// process; here only its shape is checked, the test's process not being
// fresh.
func TestSleeps(t *testing.T) {
	f := strings.Fields(sleeps(2))
	if len(f) != 3 || f[0] != "sleep" {
		t.Errorf("sleeps(2) = %q, want \"sleep\" and two gaps", f)
	}
}
