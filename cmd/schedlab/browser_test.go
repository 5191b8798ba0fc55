package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/tracetest"
)

var update = flag.Bool("update", false, "rewrite the files that testdata/script/*.txtar compare against, docs/stealing-timeline.html, docs/timeline-stealing.png, docs/playground.png, docs/go-tool-trace-stealing.png and the tables of docs/variants.md")

// browserPaths are the browsers the tests look for, on PATH first.
var browserPaths = []string{"chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium"}

// findBrowser returns the path of a Chromium-like browser, or skips the
// test when there is none.
func findBrowser(t testing.TB) string {
	t.Helper()
	for _, name := range browserPaths {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Skipf("no browser found (looked for %s): .ci/run installs chromium with apt-get; did that fail?", strings.Join(browserPaths, ", "))
	}
	t.Skipf("no browser found (looked for %s); install chromium to run this test", strings.Join(browserPaths, ", "))
	return ""
}

// A page is a browser tab and what it reported while it was open.
type page struct {
	ctx context.Context

	mu       sync.Mutex
	problems []string // console errors and warnings, exceptions, error log entries
	requests []string // URLs of the requests it made
}

// newBrowser starts a headless browser with a fresh profile, for the life
// of the test, and returns a context for its first tab.
func newBrowser(t testing.TB, path string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	start := time.Now()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	t.Logf("%s started in %v", path, time.Since(start).Round(time.Millisecond))
	return ctx
}

// open opens the file in a new tab of the browser of bctx, sized width ×
// height, and waits until the timeline has drawn.
func open(t *testing.T, bctx context.Context, file string, width, height int64) *page {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: abs}).String()
	return openPage(t, bctx, u, `window.__schedlab && window.__schedlab.frames() > 0`, func(r string) bool { return r == u }, width, height)
}

// openPage opens u in a new tab of the browser of bctx, sized width ×
// height, and waits until the expression ready is true. A request for a
// URL that allowed refuses is a problem of the page.
func openPage(t testing.TB, bctx context.Context, u, ready string, allowed func(string) bool, width, height int64) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	t.Cleanup(cancel)
	p := watch(t, ctx)
	tctx, tcancel := context.WithTimeout(ctx, 60*time.Second)
	defer tcancel()
	if err := chromedp.Do(tctx,
		chromedp.EmulateViewport(width, height),
		chromedp.Navigate(u),
		chromedp.Poll[chromedp.Void](ready, chromedp.WithPollingTimeout(30*time.Second)),
	); err != nil {
		t.Fatalf("opening %s: %v%s", u, err, p.report())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.requests {
		if !allowed(r) {
			p.problems = append(p.problems, "request for "+r+": the page must be self-contained")
		}
	}
	return p
}

// watch returns the page of the tab of ctx, which gathers from now on
// what the tab reports.
func watch(t testing.TB, ctx context.Context) *page {
	t.Helper()
	p := &page{ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch ev := ev.(type) {
		case *cdpruntime.EventConsoleAPICalled:
			switch ev.Type {
			case cdpruntime.ConsoleAPICalledTypeError, cdpruntime.ConsoleAPICalledTypeWarning, cdpruntime.ConsoleAPICalledTypeAssert:
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				p.problems = append(p.problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *cdpruntime.EventExceptionThrown:
			d := ev.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				text += " " + d.Exception.Description
			}
			p.problems = append(p.problems, fmt.Sprintf("exception at %d:%d: %s", d.LineNumber+1, d.ColumnNumber+1, text))
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				p.problems = append(p.problems, fmt.Sprintf("log %s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			p.requests = append(p.requests, ev.Request.URL)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// report returns the problems the page reported, as lines to append to
// a test failure.
func (p *page) report() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.problems) == 0 {
		return ""
	}
	return "\n" + strings.Join(p.problems, "\n")
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t testing.TB, p *page, expr string) T {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v%s", expr, err, p.report())
	}
	return v
}

// What window.__schedlab shows of the page (see trace/timeline.html).
type (
	jsLane struct {
		Label  string `json:"label"`
		Track  int    `json:"track"`
		ID     int    `json:"id"`
		Spans  int    `json:"spans"`
		Parked int    `json:"parked"`
	}
	jsSpan struct {
		Kind     int   `json:"kind"`
		G        int64 `json:"g"`
		Start    int64 `json:"start"`
		End      int64 `json:"end"`
		StartSeq int64 `json:"startSeq"`
		EndSeq   int64 `json:"endSeq"`
	}
	jsPoint struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}
)

// TestTimelineInBrowser opens the timeline of every example in headless
// Chromium and checks that it renders without console errors or requests,
// has one lane per P, a run span for every time a goroutine was put on a
// P, and shows a span's details on hover.
func TestTimelineInBrowser(t *testing.T) {
	browser := findBrowser(t)
	examples, err := filepath.Glob("../../examples/*.star")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	bctx := newBrowser(t, browser)
	for _, ex := range examples {
		name := strings.TrimSuffix(filepath.Base(ex), ".star")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, name+".html")
			jsonl, stderr, _ := schedlab(t, "run", "--trace", "--trace-format=json", "--timeline="+file, ex)
			header, evs, err := tracetest.ReadJSON([]byte(jsonl))
			if err != nil {
				t.Fatalf("%v\nstderr:\n%s", err, stderr)
			}
			p := open(t, bctx, file, 1280, 900)
			hoverSpan(t, p, evs)
			checkLanes(t, p, header, evs)
			if r := p.report(); r != "" {
				t.Errorf("the page reported problems:%s", r)
			}
		})
	}
}

// checkLanes checks the page's lanes against the run's events: one lane
// per P (every P of --procs and of any gomaxprocs call, in order), and on
// each P's lane a run span that covers every GoStart on that P.
func checkLanes(t *testing.T, p *page, header map[string]any, evs []runtime.Event) {
	t.Helper()
	lanes := eval[[]jsLane](t, p, `window.__schedlab.lanes()`)
	wantPs := 0
	if settings, ok := header["settings"].(map[string]any); ok {
		if procs, ok := settings["procs"].(string); ok {
			fmt.Sscan(procs, &wantPs)
		}
	}
	for _, ev := range evs {
		wantPs = max(wantPs, int(ev.P)+1)
		if ev.Kind == runtime.EvProcResize {
			wantPs = max(wantPs, int(ev.P2))
		}
	}
	var pLanes []int
	laneOfP := map[int]int{}
	for i, l := range lanes {
		if l.Track == 0 {
			if l.Label != fmt.Sprintf("P%d", l.ID) {
				t.Errorf("lane %d of P%d is labelled %q", i, l.ID, l.Label)
			}
			pLanes = append(pLanes, l.ID)
			laneOfP[l.ID] = i
		}
	}
	want := make([]int, wantPs)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(pLanes, want) {
		t.Fatalf("P lanes %v, want %v (one per P)", pLanes, want)
	}

	spans := map[int][]jsSpan{}
	for pid, i := range laneOfP {
		spans[pid] = eval[[]jsSpan](t, p, fmt.Sprintf(`window.__schedlab.spans(%d)`, i))
	}
	starts := 0
	for _, ev := range evs {
		if ev.Kind != runtime.EvGoStart {
			continue
		}
		starts++
		found := false
		for _, s := range spans[int(ev.P)] {
			if s.Kind == 0 && s.G == ev.G && s.Start <= ev.Time && ev.Time <= s.End {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("GoStart seq %d of G%d on P%d at %dns has no run span on the lane of P%d", ev.Seq, ev.G, ev.P, ev.Time, ev.P)
		}
	}
	if starts == 0 {
		t.Errorf("no GoStart events")
	}
}

// widestSpan is a script that finds the widest run span on a P lane, as
// drawn now, and the middle of it, leaving out the GC's mark workers. A
// run that does no work has only spans of no width: the page shows those
// within 2 pixels of the pointer.
const widestSpan = `(function () {
  var s = window.__schedlab, ls = s.lanes(), best = {found: false, w: -1}, workers = {};
  // a mark worker's run span is under its GC span, which has a tooltip of its own
  if (s.gc) s.gc().forEach(function (x) { if (x.kind === 2) workers[x.g] = true; });
  ls.forEach(function (l, i) {
    if (l.track !== 0) return;
    s.spans(i).forEach(function (sp, j) {
      var b = s.spanBox(i, j), w = Math.max(b.right - b.left, 0);
      if (sp.kind === 0 && !workers[sp.g] && w > best.w) {
        best = {found: true, w: w, lane: i, x: (b.left + Math.max(b.left, b.right)) / 2, y: (b.top + b.bottom) / 2};
      }
    });
  });
  return best;
})()`

// tipHead is the head of a span's tooltip.
var tipHead = regexp.MustCompile(`^G(\d+)( [^\n]+)? running on (P\d+)\nfrom (-?\d+\.\d{3})µs to (-?\d+\.\d{3})µs  \(([^)]+)\)\nstart: +(.*)\nend: +(.*)`)

// hoverSpan moves the mouse over the widest run span on a P lane and
// checks the tooltip: it names a span of that lane (its goroutine with the
// function it was created with, the lane, the start and end times) and
// the events that began and ended it, as text-trace lines.
func hoverSpan(t *testing.T, p *page, evs []runtime.Event) {
	t.Helper()
	target := eval[struct {
		Found bool    `json:"found"`
		W     float64 `json:"w"`
		Lane  int     `json:"lane"`
		X     float64 `json:"x"`
		Y     float64 `json:"y"`
	}](t, p, widestSpan)
	if !target.Found {
		t.Fatal("no run span on any P lane")
	}
	if err := chromedp.Do(p.ctx, chromedp.MouseEvent(chromedp.MouseMoved, target.X, target.Y)); err != nil {
		t.Fatal(err)
	}
	tip, err := chromedp.Run(p.ctx, chromedp.Poll[string](`window.__schedlab.tip() || null`, chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil {
		t.Fatalf("no tooltip at (%.0f, %.0f), over a span %.1f pixels wide: %v%s", target.X, target.Y, target.W, err, p.report())
	}
	m := tipHead.FindStringSubmatch(tip)
	if m == nil {
		t.Fatalf("tooltip over a run span is not a span's details:\n%s", tip)
	}
	lanes := eval[[]jsLane](t, p, `window.__schedlab.lanes()`)
	if lane := lanes[target.Lane].Label; m[3] != lane {
		t.Errorf("tooltip names lane %s, the pointer is on %s:\n%s", m[3], lane, tip)
	}
	byseq := map[int64]runtime.Event{}
	names := map[int64]string{1: " main"}
	for _, ev := range evs {
		byseq[int64(ev.Seq)] = ev
		if ev.Kind == runtime.EvGoCreate {
			names[ev.G2] = " " + ev.Reason
		}
	}
	// The spans of the lane that fit the tooltip: its goroutine, times,
	// and the events that began and ended it. Spans of no width at one
	// time fit by times; their events tell them apart.
	line := func(seq int64) string {
		ev, ok := byseq[seq]
		if !ok {
			return "still open"
		}
		if ev.G == 0 {
			return "- " + ev.Kind.String()
		}
		return fmt.Sprintf("G%d %s", ev.G, ev.Kind)
	}
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	fits := 0
	for _, s := range eval[[]jsSpan](t, p, fmt.Sprintf(`window.__schedlab.spans(%d)`, target.Lane)) {
		if s.Kind == 0 && fmt.Sprint(s.G) == m[1] && micros(s.Start) == m[4]+"µs" && micros(s.End) == m[5]+"µs" &&
			strings.Contains(flat(m[7]), line(s.StartSeq)) && (s.EndSeq < 0 || strings.Contains(flat(m[8]), line(s.EndSeq))) {
			fits++
			if m[2] != names[s.G] {
				t.Errorf("tooltip calls G%d %q, want %q:\n%s", s.G, m[2], names[s.G], tip)
			}
		}
	}
	if fits == 0 {
		t.Errorf("tooltip does not describe a run span of %s:\n%s", m[3], tip)
	}
}

// micros formats ns as the page does: microseconds with three decimals.
func micros(ns int64) string {
	return fmt.Sprintf("%d.%03dµs", ns/1000, ns%1000)
}

// TestTimelineInBrowserLarge opens the timeline of a run of about 100,000
// events and reports its size and how long the browser takes to draw it
// the first time, to zoom and to hover.
func TestTimelineInBrowserLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	browser := findBrowser(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "big.star")
	// 8 workers on 4 Ps, each giving up the P 4,000 times: about 100,000
	// events of creation, dispatch, gosched, global queue and stealing.
	src := `wg = waitgroup()
def worker(n):
    for i in range(n):
        work(1000)
        gosched()
    wg.done()
for w in range(8):
    wg.add(1)
    spawn(worker, 4000)
wg.wait()
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "big.html")
	if _, stderr, code := schedlab(t, "run", "--procs=4", "--timeline="+file, script); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d, err := tracetest.CheckTimeline(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	nev := len(d.Ev) / tracetest.TimelineEvStride
	if nev < 80000 {
		t.Fatalf("only %d events; the test wants about 100,000", nev)
	}

	bctx := newBrowser(t, browser)
	start := time.Now()
	p := open(t, bctx, file, 1280, 900)
	load := time.Since(start)

	firstDraw := eval[float64](t, p, `window.__schedlab.firstDrawAt()`)
	fitDraw := eval[float64](t, p, `window.__schedlab.drawMs()`)

	// Zoom in around the middle, 20 wheel steps, and wait for each frame.
	var zoomDraws []float64
	for i := 0; i < 20; i++ {
		frames := eval[int](t, p, `window.__schedlab.frames()`)
		if err := chromedp.Do(p.ctx, chromedp.MouseEvent(chromedp.MouseWheel, 640, 200, wheelUp)); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](fmt.Sprintf(`window.__schedlab.frames() > %d`, frames), chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatalf("no frame after a wheel step: %v", err)
		}
		zoomDraws = append(zoomDraws, eval[float64](t, p, `window.__schedlab.drawMs()`))
	}
	slices.Sort(zoomDraws)
	if r := p.report(); r != "" {
		t.Errorf("the page reported problems:%s", r)
	}
	t.Logf("%d events: page of %.1f MB; first frame %.0fms after the page began to load (%v with the tab), drawn in %.0fms; zooming in 20 steps, frames took %.0fms (median) to %.0fms",
		nev, float64(len(data))/1e6, firstDraw, load.Round(time.Millisecond), fitDraw, zoomDraws[len(zoomDraws)/2], zoomDraws[len(zoomDraws)-1])
	if load > 30*time.Second {
		t.Errorf("the page took %v to open and draw", load)
	}
}

// wheelUp makes a mouse event a turn of the wheel away from the user
// (zoom in). cdproto leaves out a deltaX of 0, which Chrome requires of a
// wheel event, so deltaX is a tiny amount instead.
func wheelUp(m *input.DispatchMouseEventParams) {
	m.DeltaX = 1e-3
	m.DeltaY = -120
}

// TestDocsTimeline keeps docs/stealing-timeline.html, the page that the
// README shows, the page that the command in the README makes; with
// -update it rewrites the page and its screenshot
// docs/timeline-stealing.png.
func TestDocsTimeline(t *testing.T) {
	const (
		htmlFile = "../../docs/stealing-timeline.html"
		pngFile  = "../../docs/timeline-stealing.png"
	)
	file := filepath.Join(t.TempDir(), "stealing-timeline.html")
	// The README's command: schedlab run --timeline docs/stealing-timeline.html examples/stealing.star
	if _, stderr, code := schedlab(t, "run", "--timeline", file, "../../examples/stealing.star"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(htmlFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		if !*update {
			t.Fatalf("%s is not what the README's command makes now; run go test ./cmd/schedlab -run TestDocsTimeline -update", htmlFile)
		}
		if err := os.WriteFile(htmlFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated %s", htmlFile)
	}
	if !*update {
		return
	}
	jsonl, _, _ := schedlab(t, "run", "--trace", "--trace-format=json", "../../examples/stealing.star")
	_, evs, err := tracetest.ReadJSON([]byte(jsonl))
	if err != nil {
		t.Fatal(err)
	}
	steal := int64(-1)
	for _, ev := range evs {
		if ev.Kind == runtime.EvRunqSteal {
			steal = int64(ev.Seq)
			break
		}
	}
	browser := findBrowser(t)
	p := open(t, newBrowser(t, browser), htmlFile, 1200, 900)
	// The picture ends above the details panel; hover the first steal, so
	// that it shows a tooltip.
	height := eval[float64](t, p, `document.getElementById("details").getBoundingClientRect().top`)
	if err := chromedp.Do(p.ctx, chromedp.EmulateViewport(1200, int64(height))); err != nil {
		t.Fatal(err)
	}
	pt := eval[jsPoint](t, p, fmt.Sprintf(`window.__schedlab.markPoint(%d)`, steal))
	if err := chromedp.Do(p.ctx, chromedp.MouseEvent(chromedp.MouseMoved, pt.X, pt.Y)); err != nil {
		t.Fatal(err)
	}
	tip, err := chromedp.Run(p.ctx, chromedp.Poll[string](`window.__schedlab.tip() || null`, chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil || !strings.Contains(tip, "RunqSteal") {
		t.Errorf("the tooltip in the picture shows %q (%v), want a RunqSteal", tip, err)
	}
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if r := p.report(); r != "" {
		t.Errorf("the page reported problems:%s", r)
	}
	if err := os.WriteFile(pngFile, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", pngFile, len(png))
}
