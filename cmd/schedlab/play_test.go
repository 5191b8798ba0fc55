package main

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/schedlab/schedlab/internal/play"
	"github.com/schedlab/schedlab/internal/views"
)

// buildPlaySite builds the playground into a temporary directory, once per
// test, as schedlab play --out does: the wasm build is the slow part.
func buildPlaySite(t testing.TB) (dir, version string) {
	t.Helper()
	dir = t.TempDir()
	start := time.Now()
	var out, errb bytes.Buffer
	if code := playCmd([]string{"--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("schedlab play --out %s: exit status %d\n%s", dir, code, errb.String())
	}
	_, err := fmt.Sscanf(out.String(), "wrote the playground (engine %s", &version)
	if err != nil || !strings.HasSuffix(out.String(), " to "+dir+"\n") {
		t.Fatalf("schedlab play --out %s printed %q", dir, out.String())
	}
	version = strings.TrimSuffix(version, ")")
	t.Logf("built the playground (engine %s) in %v", version, time.Since(start).Round(time.Millisecond))
	return dir, version
}

// openPlay opens the playground at u and waits until its engine is ready
// and its first run has been shown.
func openPlay(t testing.TB, bctx context.Context, srvURL, u string) *page {
	t.Helper()
	return openPage(t, bctx, u, `window.__play && window.__play.ready() && window.__play.state.run !== null`,
		func(r string) bool { return strings.HasPrefix(r, srvURL+"/") }, 1400, 1000)
}

// await evaluates a JavaScript expression that yields a promise in the page.
func await[T any](t testing.TB, p *page, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 90*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %.200s: %v%s", expr, err, p.report())
	}
	return v
}

// poll waits until a JavaScript expression is true in the page.
func poll(t testing.TB, p *page, expr string, timeout time.Duration) {
	t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
		t.Fatalf("waiting for %s: %v%s", expr, err, p.report())
	}
}

func jsString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// A pageRun is a run as the page holds it and shows it.
type pageRun struct {
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Trace     string `json:"trace"`
	Code      int    `json:"code"`
	Events    int    `json:"events"`
	DOMStdout string `json:"domStdout"`
	DOMStderr string `json:"domStderr"`
	DOMTrace  string `json:"domTrace"`
	GoTrace   []byte `json:"goTrace"` // base64 in the page's JSON
	Timeline  string `json:"timeline"`
	DOMTL     string `json:"domTimeline"` // the timeline frame's srcdoc
}

// runInPage puts the script in the editor and the flags in their fields,
// runs it and returns the run.
func runInPage(t *testing.T, p *page, name, src string, args []string) pageRun {
	t.Helper()
	poll(t, p, `window.__play.ready()`, 30*time.Second)
	return await[pageRun](t, p, fmt.Sprintf(`(function () {
  window.__play.load(%s, %s, %s);
  return window.__play.run().then(function () {
    var r = window.__play.state.run, $ = function (id) { return document.getElementById(id).textContent; };
    return {stdout: r.stdout, stderr: r.stderr, trace: r.trace, code: r.code, events: r.events, goTrace: r.goTrace,
      timeline: r.timeline, domTimeline: document.getElementById("timeline").srcdoc,
      domStdout: $("stdout"), domStderr: $("stderr"), domTrace: $("trace")};
  });
})()`, jsString(name), jsString(src), jsString(args)))
}

// native runs the schedlab command, the test binary standing in for it
// (TestMain), in dir, and returns its stdout, stderr and exit status.
func native(t testing.TB, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	path, err := exec.LookPath("schedlab")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errb.String(), code
}

// TestPlayInBrowser builds the playground and checks it in headless
// Chromium, served from an httptest server as any static server would.
func TestPlayInBrowser(t *testing.T) {
	browser := findBrowser(t)
	if testing.Short() {
		t.Skip("short: the wasm build takes a while")
	}
	dir, version := buildPlaySite(t)
	checkWasmSize(t, dir)
	// A plain static file server, as any host would serve the site.
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	bctx := newBrowser(t, browser)
	p := openPlay(t, bctx, srv.URL, srv.URL+"/")

	t.Run("examples", func(t *testing.T) { checkExamplesInPage(t, p) })
	t.Run("errorline", func(t *testing.T) { checkErrorLine(t, p) })
	t.Run("tab", func(t *testing.T) { checkTab(t, p) })
	t.Run("stop", func(t *testing.T) { checkStop(t, p) })
	t.Run("timeout", func(t *testing.T) { checkTimeout(t, p) })
	t.Run("tracefilter", func(t *testing.T) { checkTraceFilter(t, p) })
	t.Run("picture", func(t *testing.T) { checkPicture(t, p) })
	t.Run("link", func(t *testing.T) { checkLink(t, bctx, srv.URL, p) })
	t.Run("otherversion", func(t *testing.T) { checkOtherVersion(t, bctx, srv.URL, version) })
	t.Run("badlinks", func(t *testing.T) { checkBadLinks(t, bctx, srv.URL) })
	t.Run("explore", func(t *testing.T) { checkExplore(t, p) })
	t.Run("compare", func(t *testing.T) { checkCompare(t, p) })
	t.Run("compareoutput", func(t *testing.T) { checkCompareOutput(t, p) })
	if *update {
		t.Run("screenshot", func(t *testing.T) { playScreenshot(t, p) })
	}
	if r := p.report(); r != "" {
		t.Errorf("the page reported problems:%s", r)
	}
}

// checkWasmSize holds the engine to its budget: at most 4 MB gzipped.
func checkWasmSize(t *testing.T, dir string) {
	data, err := os.ReadFile(filepath.Join(dir, "engine.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	w.Write(data)
	w.Close()
	t.Logf("engine.wasm: %.2f MB, %.2f MB gzipped", float64(len(data))/1e6, float64(z.Len())/1e6)
	if z.Len() > 4e6 {
		t.Errorf("engine.wasm is %.2f MB gzipped; the budget is 4 MB", float64(z.Len())/1e6)
	}
}

// checkExamplesInPage runs every example in the page, with its default
// flags and with --procs 4 --seed 7, and compares the output, stderr,
// exit status, trace, HTML timeline and Go execution trace with the
// schedlab command's, byte for byte.
func checkExamplesInPage(t *testing.T, p *page) {
	exs := play.Examples()
	if len(exs) < 10 {
		t.Fatalf("only %d examples", len(exs))
	}
	for _, ex := range exs {
		for _, args := range [][]string{nil, {"--procs", "4", "--seed", "7"}} {
			t.Run(strings.TrimSuffix(ex.Name, ".star")+strings.Join(args, ""), func(t *testing.T) {
				got := runInPage(t, p, ex.Name, ex.Src, args)
				stdout, stderr, code := native(t, "../../examples", append(append([]string{"run"}, args...), ex.Name)...)
				trace, _, _ := native(t, "../../examples", append(append([]string{"run", "--trace"}, args...), ex.Name)...)
				if got.Stdout != stdout || got.DOMStdout != stdout {
					t.Errorf("stdout in the page:\n%s\nshown:\n%s\nschedlab run:\n%s", got.Stdout, got.DOMStdout, stdout)
				}
				if got.Stderr != stderr || got.DOMStderr != stderr {
					t.Errorf("stderr in the page:\n%s\nshown:\n%s\nschedlab run:\n%s", got.Stderr, got.DOMStderr, stderr)
				}
				if got.Code != code {
					t.Errorf("exit status %d in the page, %d from schedlab run", got.Code, code)
				}
				goTraceFile := filepath.Join(t.TempDir(), "run.trace")
				if _, errs, c := native(t, "../../examples", append(append([]string{"run", "--go-trace", goTraceFile}, args...), ex.Name)...); c != code {
					t.Errorf("schedlab run --go-trace exits %d, without it %d: %s", c, code, errs)
				}
				if want, err := os.ReadFile(goTraceFile); err != nil || !bytes.Equal(got.GoTrace, want) {
					t.Errorf("the page's Go execution trace (%d bytes) is not what schedlab run --go-trace writes (%d bytes, %v)", len(got.GoTrace), len(want), err)
				}
				timelineFile := filepath.Join(t.TempDir(), "run.html")
				if _, errs, c := native(t, "../../examples", append(append([]string{"run", "--timeline", timelineFile}, args...), ex.Name)...); c != code {
					t.Errorf("schedlab run --timeline exits %d, without it %d: %s", c, code, errs)
				}
				if want, err := os.ReadFile(timelineFile); err != nil || got.Timeline != string(want) || got.DOMTL != string(want) {
					t.Errorf("the page's timeline (%d bytes, %d shown) is not what schedlab run --timeline writes (%d bytes, %v)", len(got.Timeline), len(got.DOMTL), len(want), err)
				}
				if got.Trace != trace || got.DOMTrace != trace {
					t.Errorf("trace in the page (%d bytes, %d shown) differs from schedlab run --trace (%d bytes): first difference at line %d",
						len(got.Trace), len(got.DOMTrace), len(trace), firstDiff(got.Trace, trace))
				}
			})
		}
	}
}

// firstDiff returns the number of the first line where a and b differ.
func firstDiff(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// checkErrorLine runs scripts that fail and checks that the editor marks
// the line the error names, and that the error's file:line links there.
func checkErrorLine(t *testing.T, p *page) {
	for _, tc := range []struct {
		name, src string
		line      int
	}{
		{"compile", "x = 1\ny = undefined_name\nprint(x)\n", 2},
		{"panic", "def f(n):\n    return 1 // n\n\ndef g():\n    f(0)\n\nspawn(g)\nsleep(\"1ms\")\n", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runInPage(t, p, "err.star", tc.src, nil)
			if got.Code == 0 {
				t.Fatalf("the script did not fail: %+v", got)
			}
			marked := eval[string](t, p, `(function () { var s = document.querySelector("#gutter span.err"); return s ? s.dataset.line : ""; })()`)
			if marked != fmt.Sprint(tc.line) {
				t.Errorf("line %q is marked as the error's, want %d; stderr:\n%s", marked, tc.line, got.Stderr)
			}
			// The error's location is a link to the editor.
			sel := eval[int](t, p, `(function () { var a = document.querySelector("#stderr a.loc"); a.click(); return document.getElementById("src").selectionStart; })()`)
			want := strings.Index(tc.src, strings.Split(tc.src, "\n")[tc.line-1])
			if sel < want || sel > want+len(strings.Split(tc.src, "\n")[tc.line-1]) {
				t.Errorf("the link put the cursor at %d, want on line %d (from %d)", sel, tc.line, want)
			}
		})
	}
}

// checkTab presses Tab and Shift-Tab in the editor: Tab at a caret puts
// four spaces there, and with lines selected it indents each of them by
// four spaces; Shift-Tab takes up to four off each.
func checkTab(t *testing.T, p *page) {
	poll(t, p, `window.__play.ready()`, 30*time.Second)
	press := func(start, end int, shift bool) string {
		return eval[string](t, p, fmt.Sprintf(`(function () {
  var s = document.getElementById("src");
  s.focus(); s.setSelectionRange(%d, %d);
  s.dispatchEvent(new KeyboardEvent("keydown", {key: "Tab", shiftKey: %v, bubbles: true, cancelable: true}));
  return s.value;
})()`, start, end, shift))
	}
	eval[bool](t, p, `window.__play.load("tab.star", "if True:\n    x = 1\ny = 2\n", []), true`)
	if got := press(0, 0, false); got != "    if True:\n    x = 1\ny = 2\n" {
		t.Errorf("Tab at the start: %q", got)
	}
	if got := press(5, 25, false); got != "        if True:\n        x = 1\n    y = 2\n" {
		t.Errorf("Tab on three selected lines: %q", got)
	}
	if got := press(0, 40, true); got != "    if True:\n    x = 1\ny = 2\n" {
		t.Errorf("Shift-Tab on three selected lines: %q", got)
	}
	if n := eval[int](t, p, `document.querySelectorAll("#gutter span").length`); n < 3 {
		t.Errorf("the gutter numbers %d lines of 3", n)
	}
}

// checkStop runs a loop that never ends and checks that Stop ends it
// within a second, and that the page runs scripts again afterwards.
func checkStop(t *testing.T, p *page) {
	poll(t, p, `window.__play.ready()`, 30*time.Second)
	eval[bool](t, p, `window.__play.load("loop.star", "while True:\n    pass\n", []), window.__play.run(), true`)
	time.Sleep(300 * time.Millisecond)
	if busy := eval[bool](t, p, `window.__play.state.busy`); !busy {
		t.Fatal("the loop is not running")
	}
	start := time.Now()
	eval[bool](t, p, `document.getElementById("stop").click(), true`)
	poll(t, p, `document.getElementById("exit").textContent === "stopped"`, 5*time.Second)
	if d := time.Since(start); d > time.Second {
		t.Errorf("Stop took %v to end the loop", d)
	}
	got := runInPage(t, p, "hello.star", exampleSrc(t, "hello.star"), nil)
	if !strings.HasSuffix(got.Stdout, "done\n") {
		t.Errorf("after Stop, hello.star printed %q", got.Stdout)
	}
}

// checkTimeout runs a loop that never ends with --timeout=1s: the
// wall-clock limit holds in the page as on the command line, with the
// command's diagnosis, exit status and goroutine dump.
func checkTimeout(t *testing.T, p *page) {
	const src = "while True:\n    pass\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "loop.star"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got := runInPage(t, p, "loop.star", src, []string{"--timeout=1s"})
	took := time.Since(start)
	_, stderr, code := native(t, dir, "run", "--timeout=1s", "loop.star")
	if got.Code != code || code != 2 {
		t.Errorf("exit status %d in the page, %d from schedlab run, want 2", got.Code, code)
	}
	if got.Stderr != stderr || got.DOMStderr != stderr {
		t.Errorf("stderr in the page:\n%s\nshown:\n%s\nschedlab run:\n%s", got.Stderr, got.DOMStderr, stderr)
	}
	if took < time.Second || took > 5*time.Second {
		t.Errorf("the run with --timeout=1s took %v in the page", took)
	}
}

// checkTraceFilter filters the text trace of a run by P and by G: the
// trace tab then shows just the events on that P, or those of that G
// (run by it, or naming it, as GoCreate new=G20 and GoUnblock g=G20 do).
func checkTraceFilter(t *testing.T, p *page) {
	run := runInPage(t, p, "stealing.star", exampleSrc(t, "stealing.star"), []string{"--procs=4"})
	events := eventLinesOf(run.Trace)
	col := regexp.MustCompile(`^ *-?[0-9]+\.[0-9]{3}µs (\S+) +(\S+) +(\S+) +(\S+)(.*)$`)
	for _, tc := range []struct{ g, p string }{{"", "P1"}, {"20", ""}, {"G20", "P0"}, {"G1", ""}} {
		gw := "G" + strings.TrimPrefix(tc.g, "G")
		named := regexp.MustCompile(`(^|[^A-Za-z0-9])` + gw + `([^0-9]|$)`)
		var want []string
		for _, line := range events {
			m := col.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("not an event line: %q", line)
			}
			if tc.p != "" && m[1] != tc.p {
				continue
			}
			if tc.g != "" && m[3] != gw && !named.MatchString(m[5]) {
				continue
			}
			want = append(want, line)
		}
		if len(want) == 0 || len(want) == len(events) {
			t.Fatalf("G %q P %q keeps %d of %d events: not a test of the filter", tc.g, tc.p, len(want), len(events))
		}
		shown := eval[string](t, p, fmt.Sprintf(`(function () {
  var g = document.getElementById("tr-g"), p = document.getElementById("tr-p");
  g.value = %s; p.value = %s;
  g.dispatchEvent(new Event("input"));
  return document.getElementById("trace").textContent;
})()`, jsString(tc.g), jsString(tc.p)))
		if shown != strings.Join(want, "\n")+"\n" {
			t.Errorf("filtered by G %q and P %q, the trace shows %d lines, want the %d events of that G and P:\n%s", tc.g, tc.p, strings.Count(shown, "\n"), len(want), shown)
		}
		count := eval[string](t, p, `document.getElementById("tr-count").textContent`)
		if wantCount := fmt.Sprintf("%d of %d events", len(want), len(events)); count != wantCount {
			t.Errorf("the filter says %q, want %q", count, wantCount)
		}
	}
	eval[bool](t, p, `(function () { var g = document.getElementById("tr-g"); g.value = ""; document.getElementById("tr-p").value = ""; g.dispatchEvent(new Event("input")); return true; })()`)
	if shown := eval[string](t, p, `document.getElementById("trace").textContent`); shown != run.Trace {
		t.Errorf("with no filter, the trace shown is not the run's")
	}
}

func exampleSrc(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A domPicture is the M:P:G picture as drawn.
type domPicture struct {
	Step int    `json:"step"`
	Done bool   `json:"done"` // the run ended
	Line string `json:"line"`
	Ps   []struct {
		ID        int     `json:"id"`
		Status    string  `json:"status"`
		M         int     `json:"m"`
		Schedtick uint32  `json:"schedtick"`
		Timers    int     `json:"timers"`
		Curg      int64   `json:"curg"`
		Runnext   int64   `json:"runnext"`
		Ring      []int64 `json:"ring"`
	} `json:"ps"`
	Global []int64 `json:"global"`
	Idle   []int   `json:"idle"`
	Ms     []struct {
		ID       int    `json:"id"`
		Activity string `json:"activity"`
		P        int    `json:"p"`
		SyscallP int    `json:"syscallP"`
		Curg     int64  `json:"curg"`
	} `json:"ms"`
	Gs []struct {
		ID     int64  `json:"id"`
		Name   string `json:"name"`
		Status string `json:"status"`
		State  string `json:"state"`
		Where  string `json:"where"`
	} `json:"gs"`
	PollM   int `json:"pollM"` // the M blocked in netpoll, -1 for none
	Waiting []struct {
		G        int64  `json:"g"`
		FD       int64  `json:"fd"`
		Kind     string `json:"kind"`
		Mode     string `json:"mode"`
		Deadline int64  `json:"deadline"`
	} `json:"waiting"`
	PSText      string `json:"psText"`
	RunqText    string `json:"runqText"`
	MsText      string `json:"msText"`
	NetpollText string `json:"netpollText"`
}

// readPicture reads the picture off the page's elements.
const readPicture = `(function () {
  var all = function (sel, root) { return [].slice.call((root || document).querySelectorAll(sel)); };
  var gid = function (e) { return e ? +e.dataset.g : 0; };
  return {
    step: window.__play.state.picture.step,
    done: window.__play.state.picture.done,
    line: document.getElementById("picline").textContent,
    ps: all("#pic-ps .p").map(function (e) {
      return {id: +e.dataset.p, status: e.dataset.status, m: +e.dataset.m, schedtick: +e.dataset.schedtick, timers: +e.dataset.timers,
        curg: gid(e.querySelector(".curg .g")), runnext: gid(e.querySelector(".runnext .g")), ring: all(".ring .g", e).map(gid)};
    }),
    global: all("#pic-global .g").map(gid),
    idle: all("#pic-idle .ip").map(function (e) { return +e.dataset.p; }),
    ms: all("#pic-ms .m").map(function (e) { return {id: +e.dataset.m, activity: e.dataset.activity, p: +e.dataset.p, syscallP: +e.dataset.syscallp, curg: +e.dataset.curg}; }),
    gs: all("#pic-gs tr.grow").map(function (e) { return {id: +e.dataset.g, name: e.dataset.name, status: e.dataset.status, state: e.dataset.state, where: e.dataset.where}; }),
    pollM: (function (e) { return e ? +e.dataset.m : -1; })(document.querySelector("#pic-netpoll .pollm")),
    waiting: all("#pic-netpoll .waiter").map(function (e) { return {g: +e.dataset.g, fd: +e.dataset.fd, kind: e.dataset.kind, mode: e.dataset.mode, deadline: +e.dataset.deadline}; }),
    psText: document.getElementById("pstext").textContent,
    runqText: document.getElementById("runqtext").textContent,
    msText: document.getElementById("mstext").textContent,
    netpollText: document.getElementById("netpolltext").textContent,
  };
})()`

// text writes the drawn picture as :ps, :runq, :ms and :netpoll would
// print it (at virtual time now, for the deadlines).
func (d *domPicture) text(now int64) (ps, runq, ms, netpoll string) {
	var gs []views.Goroutine
	for _, g := range d.Gs {
		gs = append(gs, views.Goroutine{ID: g.ID, Name: g.Name, Status: g.Status, State: g.State, Where: g.Where})
	}
	q := views.Runq{Global: d.Global, IdlePs: d.Idle}
	for _, p := range d.Ps {
		q.Ps = append(q.Ps, views.P{ID: p.ID, Status: p.Status, M: p.M, Schedtick: p.Schedtick, Curg: p.Curg, Runnext: p.Runnext, Ring: p.Ring, Timers: p.Timers})
	}
	for _, m := range d.Ms {
		if m.Activity == "spinning" {
			q.Spinning = append(q.Spinning, m.ID)
		}
		q.Ms = append(q.Ms, views.M{ID: m.ID, P: m.P, SyscallP: m.SyscallP, Curg: m.Curg, Activity: m.Activity})
	}
	// Every goroutine parked on a descriptor is one netpollWaiters counts.
	np := views.Netpoll{Waiters: len(d.Waiting), M: d.PollM}
	for _, w := range d.Waiting {
		np.Waiting = append(np.Waiting, views.Waiter{G: w.G, FD: w.FD, Kind: w.Kind, Mode: w.Mode, Deadline: w.Deadline})
	}
	var a, b, c, e bytes.Buffer
	views.WritePS(&a, gs, nil)
	views.WriteRunq(&b, q, nil)
	views.WriteMs(&c, q)
	views.WriteNetpoll(&e, np, now)
	return a.String(), b.String(), c.String(), e.String()
}

// checkPicture steps runs in the page (Step, Step N, Back, Run to end and
// the browser's Back) and checks after each move that the picture is what
// the REPL's :ps, :runq and :ms print for the same state of the same run,
// taken natively: drawn, read back and printed with the REPL's views, and
// as the page prints it.
func checkPicture(t *testing.T, p *page) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"stealing.star", []string{"--procs=4"}},
		{"syscall.star", nil},
		{"prodcons.star", []string{"--procs=2", "--seed=3"}},
		{"read_deadline.star", nil}, // an M blocked in netpoll, accept, connect, a read with a deadline
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := exampleSrc(t, tc.name)
			run := runInPage(t, p, tc.name, src, tc.args)
			traceLines := eventLinesOf(run.Trace)
			st, err := play.NewStepper(tc.name, []byte(src), tc.args)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { st.Close() }()
			check := func(how string) {
				t.Helper()
				d := eval[domPicture](t, p, readPicture)
				st = st.Goto(d.Step)
				if d.Done {
					st.Forward(1) // past the last event: the run's end
				}
				want := st.Picture()
				ps, runq, ms, netpoll := d.text(want.Time)
				if ps != want.PS || runq != want.RunqT || ms != want.MsT || netpoll != want.NetT {
					t.Fatalf("after %s, at step %d the picture shows\n%s%s%s%s\n:ps, :runq, :ms and :netpoll print\n%s%s%s%s", how, d.Step, ps, runq, ms, netpoll, want.PS, want.RunqT, want.MsT, want.NetT)
				}
				if d.PSText != want.PS || d.RunqText != want.RunqT || d.MsText != want.MsT || d.NetpollText != want.NetT {
					t.Fatalf("after %s, at step %d the page prints\n%s%s%s%s\nwant\n%s%s%s%s", how, d.Step, d.PSText, d.RunqText, d.MsText, d.NetpollText, want.PS, want.RunqT, want.MsT, want.NetT)
				}
				if d.Step > 0 && d.Line != traceLines[d.Step-1] {
					t.Fatalf("after %s, step %d shows %q, the trace's line of that event is %q", how, d.Step, d.Line, traceLines[d.Step-1])
				}
			}
			click := func(id string) {
				t.Helper()
				before := eval[int](t, p, `window.__play.state.nextId`)
				eval[bool](t, p, fmt.Sprintf(`document.getElementById(%q).click(), true`, id))
				poll(t, p, fmt.Sprintf(`window.__play.state.nextId > %d && window.__play.ready()`, before), 30*time.Second)
			}
			check("the run")
			click("step")
			check("Step")
			eval[bool](t, p, `document.getElementById("stepn").value = "17", true`)
			click("stepN")
			check("Step N")
			for range 3 {
				click("step")
			}
			check("Step ×3")
			click("back")
			check("Back")
			click("back")
			check("Back")
			if s := eval[int](t, p, `window.__play.state.picture.step`); s != 19 {
				t.Errorf("at step %d after 1+17+3-2 steps", s)
			}
			// The browser's Back goes to the step before, as recorded.
			eval[bool](t, p, `history.back(), true`)
			poll(t, p, `window.__play.ready() && window.__play.state.picture.step === 20`, 30*time.Second)
			check("the browser's Back")
			eval[bool](t, p, `history.forward(), true`)
			poll(t, p, `window.__play.ready() && window.__play.state.picture.step === 19`, 30*time.Second)
			check("the browser's Forward")
			click("toEnd")
			if s := eval[int](t, p, `window.__play.state.picture.step`); s != run.Events {
				t.Errorf("Run to end stopped at step %d of %d", s, run.Events)
			}
			check("Run to end")
		})
	}
}

func eventLinesOf(trace string) []string {
	var evs []string
	for _, line := range strings.Split(trace, "\n") {
		if strings.HasPrefix(line, " ") && strings.Contains(line, "µs ") {
			evs = append(evs, line)
		}
	}
	return evs
}

// checkLink makes a share link at a step and opens it in a new tab: the
// same script, flags, step, picture and output.
func checkLink(t *testing.T, bctx context.Context, srvURL string, p *page) {
	src := exampleSrc(t, "stealing.star")
	runInPage(t, p, "stealing.star", src, []string{"--procs=4", "--seed=7"})
	await[bool](t, p, `window.__play.stepTo(33).then(function () { return true; })`)
	want := eval[domPicture](t, p, readPicture)
	wantOut := eval[string](t, p, `document.getElementById("picoutput").textContent`)
	frag := await[string](t, p, `window.__play.link()`)
	if hash := eval[string](t, p, `location.hash`); hash != "#"+frag {
		t.Errorf("the page's address is not at its step: %.60s, want #%.60s", hash, frag)
	}
	l, err := play.DecodeLink(frag)
	if err != nil {
		t.Fatalf("the page's link does not decode in Go: %v", err)
	}
	if l.Script != src || l.Step != 33 || strings.Join(l.Flags, " ") != "--procs=4 --seed=7" || l.Name != "stealing.star" {
		t.Errorf("the page's link holds %+v", l)
	}
	q := openPlay(t, bctx, srvURL, srvURL+"/#"+frag)
	poll(t, q, `window.__play.ready() && window.__play.state.picture && window.__play.state.picture.step === 33`, 30*time.Second)
	got := eval[domPicture](t, q, readPicture)
	if got.PSText != want.PSText || got.RunqText != want.RunqText || got.Line != want.Line {
		t.Errorf("the link opens at\n%s%s%s\nwant\n%s%s%s", got.Line, got.PSText, got.RunqText, want.Line, want.PSText, want.RunqText)
	}
	if out := eval[string](t, q, `document.getElementById("picoutput").textContent`); out != wantOut {
		t.Errorf("output so far %q, want %q", out, wantOut)
	}
	if v := eval[string](t, q, `document.getElementById("src").value`); v != src {
		t.Errorf("the link's script is not in the editor")
	}
	if w := eval[bool](t, q, `document.getElementById("versionwarn").hidden`); !w {
		t.Errorf("a link of this very version shows the other-version warning")
	}
	// A link made by schedlab play --link opens the same way.
	var out, errb bytes.Buffer
	if code := playCmd([]string{"--base", srvURL + "/", "--step", "33", "--link", "../../examples/stealing.star", "--procs=4", "--seed=7"}, &out, &errb); code != 0 {
		t.Fatalf("schedlab play --link: exit %d: %s", code, errb.String())
	}
	r := openPlay(t, bctx, srvURL, strings.TrimSpace(out.String()))
	poll(t, r, `window.__play.ready() && window.__play.state.picture && window.__play.state.picture.step === 33`, 30*time.Second)
	if got := eval[domPicture](t, r, readPicture); got.PSText != want.PSText || got.RunqText != want.RunqText {
		t.Errorf("the link of schedlab play --link opens at\n%s%s\nwant\n%s%s", got.PSText, got.RunqText, want.PSText, want.RunqText)
	}
	if w := eval[bool](t, r, `document.getElementById("versionwarn").hidden`); !w {
		t.Errorf("the link of schedlab play --link, of this source tree, shows the other-version warning")
	}
}

// checkOtherVersion opens a link made by another version of schedlab: it
// opens, with a visible warning.
func checkOtherVersion(t *testing.T, bctx context.Context, srvURL, version string) {
	frag, err := play.EncodeLink(play.Link{Version: "v0.0.1-other", Name: "hello.star", Script: exampleSrc(t, "hello.star"), Step: 3})
	if err != nil {
		t.Fatal(err)
	}
	q := openPlay(t, bctx, srvURL, srvURL+"/#"+frag)
	poll(t, q, `window.__play.ready() && window.__play.state.picture && window.__play.state.picture.step === 3`, 30*time.Second)
	warn := eval[string](t, q, `(function () { var w = document.getElementById("versionwarn"); return w.hidden || w.offsetHeight === 0 ? "" : w.textContent; })()`)
	if !strings.Contains(warn, "v0.0.1-other") || !strings.Contains(warn, version) || !strings.Contains(warn, "engine differs") {
		t.Errorf("the warning shown is %q", warn)
	}
}

// checkBadLinks opens links that are corrupt, too long or of a newer
// format: each gets its message, and the page still works.
func checkBadLinks(t *testing.T, bctx context.Context, srvURL string) {
	long, _ := json.Marshal(play.Link{Name: "x.star", Script: strings.Repeat("print(1)\n", 9000)})
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(long)
	w.Close()
	for _, tc := range []struct{ name, frag, want string }{
		{"corrupt", "1.z.q1YqLkxS8kvMTVWyUkpKUqoFAA", "damaged"},
		{"garbage", "1.z.!!!!", "damaged"},
		{"cut", "1.j.eyJ2IjoidjEiLCJuYW1lIjoi", "damaged"},
		{"newer", "7.z.AAAA", "newer"},
		{"long", "1.z." + base64.RawURLEncoding.EncodeToString(z.Bytes()), "longer than the 64 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := openPlay(t, bctx, srvURL, srvURL+"/#"+tc.frag)
			msg := eval[string](t, q, `(function () { var w = document.getElementById("linkmsg"); return w.hidden || w.offsetHeight === 0 ? "" : w.textContent; })()`)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("the page shows %q, want a message with %q", msg, tc.want)
			}
			if out := eval[string](t, q, `document.getElementById("stdout").textContent`); !strings.HasSuffix(out, "done\n") {
				t.Errorf("the page did not go on with the default example: %q", out)
			}
		})
	}
}

// checkExplore explores lost_update in the page and replays a class.
func checkExplore(t *testing.T, p *page) {
	runInPage(t, p, "lost_update.star", exampleSrc(t, "lost_update.star"), nil)
	eval[bool](t, p, `document.getElementById("x-runs").value = "100", document.getElementById("explore").click(), true`)
	poll(t, p, `window.__play.ready() && window.__play.state.explore && document.querySelectorAll("#x-classes tbody tr").length > 0`, 60*time.Second)
	classes := eval[int](t, p, `window.__play.state.explore.classes.length`)
	if classes < 2 {
		t.Errorf("%d classes in 100 runs of lost_update", classes)
	}
	if v := eval[float64](t, p, `document.getElementById("x-progress").value`); v != 100 {
		t.Errorf("the progress bar is at %v of 100", v)
	}
	// A click on the last class replays its seed.
	seed := eval[string](t, p, `(function () { var cs = window.__play.state.explore.classes; return String(cs[cs.length - 1].seed); })()`)
	before := eval[int](t, p, `window.__play.state.nextId`)
	eval[bool](t, p, `(function () { var rows = document.querySelectorAll("#x-classes tbody tr"); rows[rows.length - 1].click(); return true; })()`)
	poll(t, p, fmt.Sprintf(`window.__play.state.nextId > %d && window.__play.ready()`, before+1), 30*time.Second)
	if got := eval[string](t, p, `document.getElementById("f-seed").value`); got != seed {
		t.Errorf("the replay runs seed %q, want %s", got, seed)
	}
}

// checkCompare compares two seeds of stealing.star (whose steal order the
// seed draws) side by side.
func checkCompare(t *testing.T, p *page) {
	runInPage(t, p, "stealing.star", exampleSrc(t, "stealing.star"), nil)
	before := eval[int](t, p, `window.__play.state.nextId`)
	eval[bool](t, p, `document.querySelector("#tabs button[data-tab=compare]").click(), true`)
	eval[bool](t, p, `document.getElementById("c-a").value = "--seed=1", document.getElementById("c-b").value = "--seed=2", document.getElementById("compare").click(), true`)
	poll(t, p, fmt.Sprintf(`window.__play.state.nextId > %d && window.__play.ready()`, before+1), 30*time.Second)
	first := eval[string](t, p, `document.getElementById("c-first").textContent`)
	if !strings.Contains(first, "part at event") {
		t.Errorf("compare says %q", first)
	}
	if n := eval[int](t, p, `document.querySelectorAll("#c-tra .first, #c-trb .first").length`); n != 2 {
		t.Errorf("%d marked first differing events, want one on each side", n)
	}
	// The two timelines share one time axis, also after one is zoomed.
	poll(t, p, `!!window.__play.state.compareView`, 30*time.Second)
	same := `(function () {
  var a = document.getElementById("c-tla").contentWindow.__schedlab.view(), b = document.getElementById("c-tlb").contentWindow.__schedlab.view();
  return a.t0 === b.t0 && a.scale === b.scale;
})()`
	if !eval[bool](t, p, same) {
		t.Errorf("the two timelines are not on one time axis")
	}
	if eval[bool](t, p, `document.getElementById("c-marka").hidden || document.getElementById("c-markb").hidden`) {
		t.Errorf("the timelines do not mark the first differing event: %s", eval[string](t, p, `JSON.stringify([document.getElementById("c-marka").style.left, document.getElementById("c-markb").style.left, document.getElementById("c-tla").clientWidth, document.getElementById("c-tla").contentWindow.__schedlab.view()])`))
	}
	eval[bool](t, p, `(function () { var a = document.getElementById("c-tla").contentWindow.__schedlab, v = a.view(); a.setView(v.t0 + 1000, v.scale / 2); return true; })()`)
	if !eval[bool](t, p, same) {
		t.Errorf("zooming timeline A leaves B behind")
	}

}

// checkCompareOutput compares two seeds of select_fair.star, whose
// counts the seed draws: each side shows what schedlab run prints for its
// seed, and the diff marks the line that differs, removed from A and
// added in B, and keeps the rest.
func checkCompareOutput(t *testing.T, p *page) {
	runInPage(t, p, "select_fair.star", exampleSrc(t, "select_fair.star"), nil)
	before := eval[int](t, p, `window.__play.state.nextId`)
	eval[bool](t, p, `document.querySelector("#tabs button[data-tab=compare]").click(), true`)
	eval[bool](t, p, `document.getElementById("c-a").value = "--seed=1", document.getElementById("c-b").value = "--seed=2", document.getElementById("compare").click(), true`)
	poll(t, p, fmt.Sprintf(`window.__play.state.nextId > %d && window.__play.ready()`, before+1), 30*time.Second)
	outA, errA, _ := native(t, "../../examples", "run", "--seed=1", "select_fair.star")
	outB, errB, _ := native(t, "../../examples", "run", "--seed=2", "select_fair.star")
	if outA+errA == outB+errB {
		t.Fatal("seeds 1 and 2 of select_fair.star print the same: not a test of the diff")
	}
	if got := eval[string](t, p, `document.getElementById("c-outa").textContent`); got != outA+errA {
		t.Errorf("side A shows %q, schedlab run --seed=1 prints %q", got, outA+errA)
	}
	if got := eval[string](t, p, `document.getElementById("c-outb").textContent`); got != outB+errB {
		t.Errorf("side B shows %q, schedlab run --seed=2 prints %q", got, outB+errB)
	}
	linesA, linesB := strings.Split(outA+errA, "\n"), strings.Split(outB+errB, "\n")
	var wantDel, wantAdd, wantSame []string
	for _, l := range linesA {
		if !slices.Contains(linesB, l) {
			wantDel = append(wantDel, "- "+l)
		} else {
			wantSame = append(wantSame, "  "+l)
		}
	}
	for _, l := range linesB {
		if !slices.Contains(linesA, l) {
			wantAdd = append(wantAdd, "+ "+l)
		}
	}
	type shown struct {
		Del  []string `json:"del"`
		Add  []string `json:"add"`
		Text string   `json:"text"`
	}
	got := eval[shown](t, p, `(function () {
  var d = document.getElementById("c-diff"), t = function (sel) { return [].slice.call(d.querySelectorAll(sel)).map(function (e) { return e.textContent; }); };
  return {del: t(".diffdel"), add: t(".diffadd"), text: d.textContent};
})()`)
	if !slices.Equal(got.Del, wantDel) || !slices.Equal(got.Add, wantAdd) {
		t.Errorf("the diff marks %q removed and %q added, want %q and %q", got.Del, got.Add, wantDel, wantAdd)
	}
	for _, l := range wantSame {
		if !strings.Contains(got.Text, l) {
			t.Errorf("the diff does not keep the common line %q:\n%s", l, got.Text)
		}
	}
}

// playScreenshot keeps docs/playground.png, the README's picture of the
// page: stealing.star on 4 Ps, stepped to a steal.
func playScreenshot(t *testing.T, p *page) {
	runInPage(t, p, "stealing.star", exampleSrc(t, "stealing.star"), nil)
	await[bool](t, p, `window.__play.stepTo(24).then(function () { return true; })`)
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("../../docs/playground.png", png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote docs/playground.png (%d bytes)", len(png))
}

// TestPlayServe runs schedlab play as the README does, on a free port of
// 127.0.0.1: it builds the site, prints the URL, serves the page and the
// engine (as application/wasm, which WebAssembly.instantiateStreaming
// needs), and ends at an interrupt (Ctrl-C) with exit status 0.
func TestPlayServe(t *testing.T) {
	if testing.Short() {
		t.Skip("short: the wasm build takes a while")
	}
	if goruntime.GOOS == "windows" {
		t.Skip("no interrupt signal to send on windows")
	}
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := playCmd([]string{"--addr", "127.0.0.1:0"}, outW, &errb)
		outW.Close()
		done <- code
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("schedlab play printed %q (%v); stderr:\n%s", line, err, errb.String())
	}
	go io.Copy(io.Discard, outR)
	m := regexp.MustCompile(`is at (http://127\.0\.0\.1:[0-9]+/) \(Ctrl-C stops\)\n$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("schedlab play printed %q, want the URL of the page", line)
	}
	for _, tc := range []struct{ path, ctype, has string }{
		{"", "text/html", `src="play.js"`},
		{"engine.wasm", "application/wasm", "\x00asm"},
		{"wasm_exec.js", "javascript", "Go"},
		{"worker.js", "javascript", "wasm_exec.js"},
	} {
		resp, err := http.Get(m[1] + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), tc.ctype) || !strings.Contains(string(body), tc.has) {
			t.Errorf("GET /%s: %s, Content-Type %q, %d bytes; want 200, %s, with %q", tc.path, resp.Status, resp.Header.Get("Content-Type"), len(body), tc.ctype, tc.has)
		}
	}
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := self.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("schedlab play ended with exit status %d at Ctrl-C; stderr:\n%s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("schedlab play still serves 10s after the interrupt")
	}
}
