package main

import (
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	rec := "# header\nat 1000 -1 3000\nlen 20000 0 5000\nat -1\nlen 0\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	// Two of four rounds stalled; the longest ended at 1000+20000 ns, so
	// the two without a stall count at 21000.
	for _, want := range []string{
		"rounds 4, stalled within the window 2 (50.0%)",
		`stall_wake_at for a costs profile (a round without a stall at 21000ns): {"n": 4, "quantiles": [1000, 1000, 1000, 1000, 1000, 1000, 1000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 21000, 21000, 21000, 21000, 21000, 21000, 21000]}`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary:\n%s\nwant it to contain %q", out.String(), want)
		}
	}
	// With the window's line, a round without a stall counts at it.
	out.Reset()
	if err := summary(strings.NewReader("window 200000\n"+rec), &out); err != nil {
		t.Fatal(err)
	}
	if want := "(a round without a stall at 200000ns)"; !strings.Contains(out.String(), want) {
		t.Errorf("summary:\n%s\nwant it to contain %q", out.String(), want)
	}
	if err := summary(strings.NewReader("at 1 2\nlen 1\n"), new(strings.Builder)); err == nil {
		t.Error("unpaired at and len lines summarized, want an error")
	}
	if err := summary(strings.NewReader("at -1\nlen 0\n"), new(strings.Builder)); err == nil {
		t.Error("a recording without a stall summarized, want an error")
	}
}
