package main

import (
	"strings"
	"testing"
)

// summary pools the processes, counts the goroutines' time from the run
// lines, keeps only the stalls within -first, and prints derive's -dist
// with the tail.
func TestSummary(t *testing.T) {
	rec := `# header
run 10000000 2
at 100 5000000
len 2000 3000000
every 100 4900000
run 10000000 2
at 200
len 4000
every 200
`
	var b strings.Builder
	if err := summary(strings.NewReader(rec), &b, 0, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"2 processes, all of each probe: 0.040s of the goroutines' time",
		"3 stalls, 75 a second of a goroutine's time; they took 7.51% of it",
		"1 of 1ms or more (33.33% of the stalls), 7.50% of the time",
		"-dist stall=3:2000,",
		",3000000:4000,4000,4000,4000,4000,4000 \\",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := summary(strings.NewReader(rec), &b, 0, 1000000); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "the first 1ms of each probe: 0.004s") || !strings.Contains(out, "2 stalls") || !strings.Contains(out, "0 of 1ms or more") {
		t.Errorf("-first 1ms: want 2 stalls in 4ms of the goroutines' time:\n%s", out)
	}
	b.Reset()
	if err := summary(strings.NewReader(rec), &b, 1000000, 0); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "each probe from 1ms: 0.036s") || !strings.Contains(out, "1 stalls") || !strings.Contains(out, "1 of 1ms or more") {
		t.Errorf("-from 1ms: want 1 stall in 36ms of the goroutines' time:\n%s", out)
	}
	for _, bad := range []string{"run 5\n", "run 10 2\nat 1 2\nlen 1\nevery 1\n"} {
		if err := summary(strings.NewReader(bad), &b, 0, 0); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
