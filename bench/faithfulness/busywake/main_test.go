package main

import (
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	rec := "# header\nbusy1 100 200 - 300* 400\nbusy0 50\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"busy0: 1 rounds, 0 not yet at the receive when main sent, 0 started on main's thread after its spin (no other took it in 300µs); on another, from the send, p10/p25/p50/p75/p90 50/50/50/50/50 ns",
		"busy1: 5 rounds, 1 not yet at the receive when main sent, 1 started on main's thread after its spin (no other took it in 300µs); on another, from the send, p10/p25/p50/p75/p90 100/100/200/400/400 ns",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if err := summary(strings.NewReader("wake 1 2\n"), &out); err == nil {
		t.Error("a line of another tool was taken")
	}
}

func TestSpawnSummary(t *testing.T) {
	rec := "spawn1 100 900* 300\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	want := "spawn1: 3 rounds, 1 began on main's thread; on another, from the go statement, p10/p25/p50/p75/p90 100/100/100/300/300 ns"
	if !strings.Contains(out.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, out.String())
	}
}
