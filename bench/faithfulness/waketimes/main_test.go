package main

import (
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	rec := "# header\nwake 1000 2000 3000\nspin 100 200 300\nwake 4000\nspin 400\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	// The spin median is 200 (nearest rank of 100 200 300 400); each
	// wake less it: 800 1800 2800 3800.
	if want := `notewakeup for a costs profile (each wake less the spin median 200ns, p100 the p99.5): {"n": 4, "quantiles": [800, 800, 800, 800, 800, 800, 800, 1800, 1800, 1800, 1800, 1800, 1800, 1800, 2800, 2800, 2800, 2800, 2800, 2800, 2800]}`; !strings.Contains(out.String(), want) {
		t.Errorf("summary:\n%s\nwant it to contain %q", out.String(), want)
	}
	if err := summary(strings.NewReader("wake 1 2\n"), new(strings.Builder)); err == nil {
		t.Error("a recording without spin lines summarized, want an error")
	}
	if err := summary(strings.NewReader("wake 1x\nspin 1\n"), new(strings.Builder)); err == nil {
		t.Error("a bad number summarized, want an error")
	}
}
