package main

import (
	"strings"
	"testing"
)

func TestSummaryNanosleep(t *testing.T) {
	rec := "# header\nnanosleep 100 200 300 400 500\nnanosleep 600 700 800 900 1000 1100\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	want := "n 11, quantiles 0%, 5%, ..., 100%: [100, 100, 200, 200, 300, 300, 400, 400, 500, 500, 600, 600, 700, 700, 800, 800, 900, 900, 1000, 1000, 1100]"
	if !strings.Contains(out.String(), want) {
		t.Errorf("summary:\n%s\nwant it to contain %q", out.String(), want)
	}
	// The profile's entry: p100 the p99.5 (with 11 samples, the 10th).
	if want := `syscall_timer_late for a costs profile (p100 the p99.5): {"n": 11, "quantiles": [100, 100, 200, 200, 300, 300, 400, 400, 500, 500, 600, 600, 700, 700, 800, 800, 900, 900, 1000, 1000, 1000]}`; !strings.Contains(out.String(), want) {
		t.Errorf("summary:\n%s\nwant it to contain %q", out.String(), want)
	}
}

func TestSummaryRace(t *testing.T) {
	rec := "CBY Ystart 56 Yret 1315 Bstart 283 Bend 1284 Cstart 74 Cend 1075\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "1 runs: CBY 100.0%") || !strings.Contains(out.String(), "Y's nanosleep(1ms) past 1ms       259") {
		t.Errorf("summary:\n%s", out.String())
	}
}

func TestSummaryMixed(t *testing.T) {
	rec := "CBY Ystart 56 Yret 1315 Bstart 283 Bend 1284 Cstart 74 Cend 1075\nnanosleep 100\n"
	if err := summary(strings.NewReader(rec), new(strings.Builder)); err == nil {
		t.Error("a recording with both kinds of line summarized, want an error")
	}
	if err := summary(strings.NewReader("nanosleep 1x\n"), new(strings.Builder)); err == nil {
		t.Error("a bad nanosleep line summarized, want an error")
	}
}

func TestSummaryPrintln(t *testing.T) {
	rec := "# w 0\n# w 1\nprintln 50000 2000\n# w 0\n# w 1\nprintln 60000 1000\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"first call, n 2: [50000, 50000, ",
		", 60000]",
		"later calls, n 2: [1000, ",
		// less the later calls' median, 1000ns
		`print_first for a costs profile (less the later calls' median, 1000ns; p100 the p99.5): {"n": 2, "quantiles": [49000, `,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if err := summary(strings.NewReader("println 1\nnanosleep 2\n"), new(strings.Builder)); err == nil {
		t.Error("println and nanosleep lines in one recording summarized, want an error")
	}
}

func TestSummaryUsleep(t *testing.T) {
	rec := "# header\nusleep 70000 72000 74000\nusleep 60000\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"nanosleep(20µs) past 20µs, ns, n 4,",
		`sysmon_late for a costs profile (p100 the p99.5): {"n": 4, "quantiles": [60000, 60000, 60000, 60000, 60000, 60000, 60000, 70000, 70000, 70000, 70000, 70000, 70000, 70000, 72000, 72000, 72000, 72000, 72000, 72000, 72000]}`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary:\n%s\nwant it to contain %q", out.String(), want)
		}
	}
	if err := summary(strings.NewReader("usleep 1\nnanosleep 2\n"), &out); err == nil {
		t.Error("usleep and nanosleep lines in one recording: no error")
	}
}

func TestSummaryRetake(t *testing.T) {
	var out strings.Builder
	if err := summary(strings.NewReader("# header\nretake 80000\nretake 35000\n"), &out); err != nil {
		t.Fatal(err)
	}
	if want := "the waiting goroutine's start after the nanosleep began, ns, n 2,"; !strings.Contains(out.String(), want) {
		t.Errorf("summary:\n%s\nwant it to contain %q", out.String(), want)
	}
}
