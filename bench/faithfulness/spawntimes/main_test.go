package main

import (
	"strconv"
	"strings"
	"testing"
)

func TestSummaryMalg(t *testing.T) {
	var rec strings.Builder
	rec.WriteString("# header\n")
	for run := range 2 {
		rec.WriteString("new")
		for i := range 16 {
			// The first new G is slow, as in Go; run 1's are twice run 0's.
			v := 100 * (run + 1)
			if i == 0 {
				v = 20000 * (run + 1)
			}
			rec.WriteString(" " + strconv.Itoa(v))
		}
		rec.WriteString(" reused")
		for range 16 {
			rec.WriteString(" 50")
		}
		rec.WriteString("\n")
	}
	var out strings.Builder
	if err := summary(strings.NewReader(rec.String()), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"2 runs;",
		"new G (malg), n 32: [100, 100, ",
		", 40000]",
		"reused G (gfget), n 32: [50, ",
		"new G  1: p10 20000 p50 40000 p90 40000",
		"new G  2: p10 100 p50 200 p90 200",
		// less 50ns of overhead (the reused median) less newproc's median,
		// and no less than newproc's quantile
		"malg for a costs profile (less ",
		// and by rank, one entry a rank, for malg_rank
		"\"malg_rank\": [\n    {\"n\": 2, \"quantiles\": [",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSummaryRace(t *testing.T) {
	rec := "0 3 1 2 go 2104 2391 2533 2650 wait 2790 start 2431* 3114 3240 3012\n" +
		"3 0 1 2 go 2000 2100 2200 2300 wait 2400 start 2500 2600 2700 2450\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "0 3 1 2    50.0%") || !strings.Contains(out.String(), "0.50 a run") {
		t.Errorf("summary:\n%s", out.String())
	}
}

func TestSummaryBadLines(t *testing.T) {
	for _, rec := range []string{
		"",
		"0 3 1 2 go 1 2 3\n",
		"new 1 2 3 reused 4\n",
		"0 3 1 2 go 1 2 3 4 wait 5 start 6 7 8 9\nnew 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 reused 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n",
	} {
		if err := summary(strings.NewReader(rec), new(strings.Builder)); err == nil {
			t.Errorf("summary(%q) succeeded, want an error", rec)
		}
	}
}
