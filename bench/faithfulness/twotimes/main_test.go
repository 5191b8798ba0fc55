package main

import (
	"strings"
	"testing"
)

func TestRaceSummary(t *testing.T) {
	rec := strings.Join([]string{
		"# header",
		// A ran whole on another thread before B began: apart.
		"x=6 go 100 200 wait 210 a 300 400* b 500 600",
		// The two alternated on main's thread.
		"x=3 go 100 200 wait 210 a 320 700 b 300 650",
	}, "\n")
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{
		"all 100.0% 50.0% 0.0% 50.0%",
		"x=6 50.0% 100.0% 0.0% 100.0%",
		"x=3 50.0% 0.0% 0.0% 0.0%",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSemaFirstSummary(t *testing.T) {
	var rec strings.Builder
	for i := range 20 {
		rec.WriteString("wait 14000 150 150 150\n")
		if i%2 == 0 {
			rec.WriteString("chan 1000 150 150 150\n")
		} else {
			rec.WriteString("chan 2000 150 150 150\n")
		}
	}
	var out strings.Builder
	if err := summary(strings.NewReader(rec.String()), &out); err != nil {
		t.Fatal(err)
	}
	// The chan median is 1000 (nearest rank), so every first wait adds 13000.
	want := "-dist sema_first=20:" + strings.TrimSuffix(strings.Repeat("13000,", 21), ",")
	if !strings.Contains(out.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, out.String())
	}
}

func TestParseRejects(t *testing.T) {
	if _, err := parse("x=3 go 1 2 wait 3 a 4 5"); err == nil {
		t.Error("a short line parsed")
	}
}

func TestAllocSummary(t *testing.T) {
	rec := "alloc 0 0 300 100\nalloc 1 0 40000 150\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"alloc, here first (on main's P): 1, p10/p25/p50/p75/p90 300/300/300/300/300 ns",
		"alloc, away first (on another P): 1, p10/p25/p50/p75/p90 40000/40000/40000/40000/40000 ns",
		"alloc, second (anywhere): 2,",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func TestWindowSummary(t *testing.T) {
	rec := "window during recv 300 send 200 got 310\nwindow during recv 100 send 200 got 250*\n"
	var out strings.Builder
	if err := summary(strings.NewReader(rec), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"during  50.0%  not yet at its receive when main sent; on another thread 0.0%; send to got p10/p25/p50/p75/p90 110/110/110/110/110 ns",
		"during  50.0%  at its receive when main sent; on another thread 100.0%; send to got p10/p25/p50/p75/p90 50/50/50/50/50 ns",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := parseWindow("window during recv 1 send 2"); err == nil {
		t.Error("a short -window line parsed")
	}
}
