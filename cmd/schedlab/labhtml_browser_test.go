package main

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// TestLabPageInBrowser writes the page of a small lab of
// examples/lab/server.star and opens it in headless Chromium: it
// renders every chart without a console error or a request, and a
// cell's timeline link opens the run's timeline in a new tab, drawn.
func TestLabPageInBrowser(t *testing.T) {
	browser := findBrowser(t)
	file := filepath.Join(t.TempDir(), "report.html")
	_, stderr, code := schedlab(t, "lab", "--sweep", "procs=1,2", "--sweep", "rate=400,1600", "--param", "n=100", "--html", file, "../../examples/lab/server.star")
	if code != 0 {
		t.Fatalf("schedlab lab: exit %d\n%s", code, stderr)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: abs}).String()
	bctx := newBrowser(t, browser)
	p := openPage(t, bctx, u, `window.__lab && window.__lab.charts() > 0`, func(r string) bool { return r == u }, 1280, 900)

	// Every chart is drawn, with its text: one of latency curves (4
	// cells), one of p99 against rate, one of throughput for each rate.
	type box struct {
		W     float64 `json:"w"`
		H     float64 `json:"h"`
		Texts int     `json:"texts"`
		Lines int     `json:"lines"`
	}
	charts := eval[[]box](t, p, `Array.from(document.querySelectorAll("figure.chart svg"), function (s) {
  var r = s.getBoundingClientRect();
  return {w: r.width, h: r.height, texts: s.querySelectorAll("text").length, lines: s.querySelectorAll("path").length};
})`)
	if len(charts) != 4 {
		t.Errorf("%d charts, want 4", len(charts))
	}
	for i, c := range charts {
		if c.W < 200 || c.H < 100 || c.Texts < 5 || c.Lines < 5 {
			t.Errorf("chart %d drawn %.0f × %.0f with %d texts and %d paths: not a chart", i, c.W, c.H, c.Texts, c.Lines)
		}
	}
	if rows := eval[int](t, p, `document.querySelectorAll("#cells tbody tr").length`); rows != 4 {
		t.Errorf("%d rows in the table, want 4", rows)
	}

	// The first cell's timeline, inflated by the page: schedlab's
	// timeline of seed 1 with one P.
	tl, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`window.__lab.timeline(0)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("inflating the first timeline: %v%s", err, p.report())
	}
	if !strings.HasPrefix(tl, "<!DOCTYPE html>") || !strings.Contains(tl, "procs=1 seed=1") {
		t.Errorf("the first timeline is not the page of procs=1 seed=1: %.200q", tl)
	}

	// Its link opens it in a new tab, which draws it.
	opened := chromedp.WaitNewTarget(p.ctx, func(info *target.Info) bool { return strings.HasPrefix(info.URL, "blob:") })
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(`a.open[data-timeline="3"]`))); err != nil {
		t.Fatalf("clicking the timeline of the last cell: %v%s", err, p.report())
	}
	var id target.ID
	select {
	case id = <-opened:
	case <-time.After(30 * time.Second):
		t.Fatalf("the link opened no tab%s", p.report())
	}
	tctx, cancel := chromedp.NewContext(bctx, chromedp.WithTargetID(id))
	defer cancel()
	tab := watch(t, tctx)
	wctx, wcancel := context.WithTimeout(tctx, 60*time.Second)
	defer wcancel()
	if err := chromedp.Do(wctx, chromedp.Poll[chromedp.Void](`window.__schedlab && window.__schedlab.frames() > 0`, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("the timeline's tab did not draw: %v%s", err, tab.report())
	}
	lanes := eval[[]jsLane](t, tab, `window.__schedlab.lanes()`)
	ps := 0
	for _, l := range lanes {
		if l.Track == 0 {
			ps++
		}
	}
	if ps != 2 {
		t.Errorf("the last cell's timeline has %d P lanes, want 2 (procs=2)", ps)
	}
	if r := p.report() + tab.report(); r != "" {
		t.Errorf("the pages reported problems:%s", r)
	}
}
