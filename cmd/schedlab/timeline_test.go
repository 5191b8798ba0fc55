package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	rtrace "runtime/trace"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/schedlab/schedlab/internal/realtrace"
	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/realevents"
	"github.com/schedlab/schedlab/trace/tracetest"
)

// realProgram is a 10-line Go program that traces itself: four goroutines
// sleep, then hand a value each to main over a channel.
const realProgram = `package main

import ("os"; "runtime/trace"; "time")

func main() {
	trace.Start(os.Stdout)
	ch := make(chan int)
	for i := range 4 { go func() { time.Sleep(time.Millisecond); ch <- i }() }
	for range 4 { <-ch }
	trace.Stop()
}
`

// recordReal runs realProgram with the go command and returns the file
// holding its execution trace.
func recordReal(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to record a real trace")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"main.go": realProgram, "go.mod": "module real\n\ngo 1.26\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goCmd, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, stderr.String())
	}
	file := filepath.Join(dir, "real.trace")
	if err := os.WriteFile(file, out, 0o666); err != nil {
		t.Fatal(err)
	}
	return file
}

// readEvents reads a Go execution trace as realtrace gives it to the
// timeline.
func readEvents(t *testing.T, file string) []runtime.Event {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := realtrace.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := realevents.Events(tr)
	return evs
}

// TestTimelineRealTrace records a real Go program's trace and draws it:
// the page holds every event the trace gives, a lane for each P, runs of
// the program's goroutines named after their functions, and the
// channel blocks.
func TestTimelineRealTrace(t *testing.T) {
	file := recordReal(t)
	out := filepath.Join(t.TempDir(), "real.html")
	stdout, stderr, code := schedlab(t, "timeline", file, "-o", out)
	if code != 0 {
		t.Fatalf("schedlab timeline: exit %d\n%s%s", code, stdout, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	evs := readEvents(t, file)
	d, err := tracetest.CheckTimeline(page, evs)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Ps) == 0 || len(d.Ms) == 0 {
		t.Errorf("lanes: %d Ps, %d Ms; want some of each", len(d.Ps), len(d.Ms))
	}
	runs := map[int64]int{} // G -> run spans on a P
	for i := 0; i+tracetest.TimelineSpanStride <= len(d.Spans); i += tracetest.TimelineSpanStride {
		if d.Spans[i] == 0 && d.Spans[i+2] == 0 {
			runs[d.Spans[i+3]]++
		}
	}
	var workers, blocks int
	for _, ev := range evs {
		if ev.Kind == runtime.EvGoCreate && strings.HasPrefix(ev.Reason, "main.main.func") {
			workers++
			if runs[ev.G2] == 0 {
				t.Errorf("G%d %s has no run span", ev.G2, ev.Reason)
			}
		}
		if ev.Kind == runtime.EvGoBlock && ev.Reason == "chan receive" {
			blocks++
		}
	}
	if workers != 4 || blocks == 0 {
		t.Errorf("%d goroutines of main.main.func*, %d chan receive blocks; want 4 and some", workers, blocks)
	}
}

// TestTimelineCompare draws a real trace and a simulated run's Go trace on
// one page.
func TestTimelineCompare(t *testing.T) {
	real := recordReal(t)
	dir := t.TempDir()
	sim := filepath.Join(dir, "sim.trace")
	if _, stderr, code := schedlab(t, "run", "--go-trace", sim, "../../examples/pingpong.star"); code != 0 {
		t.Fatalf("schedlab run: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "cmp.html")
	if _, stderr, code := schedlab(t, "timeline", real, "--compare", sim, "-o", out); code != 0 {
		t.Fatalf("schedlab timeline --compare: exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if n := strings.Count(s, "<iframe"); n != 2 {
		t.Errorf("compare page has %d iframes, want 2", n)
	}
	for _, bad := range []string{"http://", "https://", "<script src", "<link"} {
		if strings.Contains(s, bad) {
			t.Errorf("compare page contains %q: it must be self-contained", bad)
		}
	}
	if !strings.Contains(s, "real.trace") || !strings.Contains(s, "sim.trace") {
		t.Errorf("compare page does not name both traces")
	}
}

func TestTimelineBadArgs(t *testing.T) {
	for _, test := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"timeline"}, 2, "want one trace, got 0 arguments"},
		{[]string{"timeline", "x.trace"}, 2, "no output file: give -o OUT.html"},
		{[]string{"timeline", "nonexistent.trace", "-o", filepath.Join(t.TempDir(), "x.html")}, 1, "nonexistent.trace"},
		{[]string{"timeline", "../../examples/hello.star", "-o", filepath.Join(t.TempDir(), "x.html")}, 1, "not a Go execution trace"},
	} {
		_, stderr, code := schedlab(t, test.args...)
		if code != test.code || !strings.Contains(stderr, test.want) {
			t.Errorf("schedlab %s: exit %d, stderr %q; want exit %d and %q", strings.Join(test.args, " "), code, stderr, test.code, test.want)
		}
	}
}

// TestTimelineCompareInBrowser opens the compare page of a real trace and
// a simulated run in headless Chromium: both timelines draw, on one time
// axis, and zooming one moves the other.
func TestTimelineCompareInBrowser(t *testing.T) {
	browser := findBrowser(t)
	real := recordReal(t)
	dir := t.TempDir()
	sim := filepath.Join(dir, "sim.trace")
	if _, stderr, code := schedlab(t, "run", "--go-trace", sim, "../../examples/stealing.star"); code != 0 {
		t.Fatalf("schedlab run: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "cmp.html")
	if _, stderr, code := schedlab(t, "timeline", real, "--compare", sim, "-o", out); code != 0 {
		t.Fatalf("schedlab timeline --compare: exit %d: %s", code, stderr)
	}
	u := (&url.URL{Scheme: "file", Path: out}).String()
	p := openPage(t, newBrowser(t, browser), u, `window.__schedlabCompare && window.__schedlabCompare.ready()`, func(r string) bool { return r == u }, 1280, 900)
	type view struct {
		T0    float64 `json:"t0"`
		Scale float64 `json:"scale"`
		End   float64 `json:"end"`
	}
	type pane struct {
		Title string   `json:"title"`
		View  view     `json:"view"`
		Lanes []jsLane `json:"lanes"`
	}
	panes := eval[[]pane](t, p, `window.__schedlabCompare.panes()`)
	if len(panes) != 2 {
		t.Fatalf("%d panes, want 2", len(panes))
	}
	for _, pn := range panes {
		ps := 0
		for _, l := range pn.Lanes {
			if l.Track == 0 {
				ps++
			}
		}
		if ps == 0 {
			t.Errorf("pane %s has no P lanes: %+v", pn.Title, pn.Lanes)
		}
	}
	a, b := panes[0].View, panes[1].View
	if a.T0 != b.T0 || a.Scale != b.Scale {
		t.Errorf("the panes start on different axes: %+v and %+v", a, b)
	}
	if long := max(a.End, b.End); a.Scale*1200 < long {
		t.Errorf("the first view (%g ns per pixel) does not show the longer run (%g ns)", a.Scale, long)
	}
	// Zoom the simulated run: the real one follows.
	eval[bool](t, p, `(function () { var f = document.getElementById("pane1").contentWindow; f.__schedlab.setView(1000, 50); return true; })()`)
	moved, err := chromedp.Run(p.ctx, chromedp.Poll[view](`(function () {
		var v = window.__schedlabCompare.panes()[0].view;
		return v.t0 === 1000 && v.scale === 50 ? v : null;
	})()`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		t.Errorf("the real run's pane did not follow the zoom of the simulated one: %v", err)
	}
	t.Logf("compare: %d and %d lanes, common view %+v, after zoom %+v", len(panes[0].Lanes), len(panes[1].Lanes), a, moved)
	if r := p.report(); r != "" {
		t.Errorf("the page reported problems:%s", r)
	}
}

// TestTimelineFlightRecorder draws a flight recorder's snapshot, which
// begins in the middle of a run: goroutines already running or blocked
// when it begins are known from their status, and the page still holds
// every event the trace gives.
func TestTimelineFlightRecorder(t *testing.T) {
	if rtrace.IsEnabled() {
		t.Skip("tracing already on (go test -trace)")
	}
	fr := rtrace.NewFlightRecorder(rtrace.FlightRecorderConfig{MinAge: time.Second})
	if err := fr.Start(); err != nil {
		t.Skipf("no flight recorder: %v", err)
	}
	ch := make(chan int)
	done := make(chan bool)
	go func() { // blocked before and during the snapshot
		<-done
	}()
	for i := range 4 {
		go func() { time.Sleep(time.Millisecond); ch <- i }()
	}
	for range 4 {
		<-ch
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "flight.trace")
	var buf bytes.Buffer
	if _, err := fr.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	fr.Stop()
	close(done)
	if err := os.WriteFile(file, buf.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "flight.html")
	if _, stderr, code := schedlab(t, "timeline", file, "-o", out); code != 0 {
		t.Fatalf("schedlab timeline: exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	d, err := tracetest.CheckTimeline(page, readEvents(t, file))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Spans) == 0 {
		t.Errorf("the flight recording shows no spans")
	}
}

// TestTimelineNetwork draws examples/read_deadline.star on 2 Ps as an HTML
// timeline and a Chrome trace: a goroutine's IO wait ends its run span
// as any GoBlock does, with its reason; an M blocked in netpoll has a
// netpoll span (kind 3; "netpoll" in the Chrome trace) on its lane from
// its MNetpoll to its next event, neither parked nor running; and the
// kernel's NetReady and the polls are in both, as markers and instants.
func TestTimelineNetwork(t *testing.T) {
	dir := t.TempDir()
	page, chrome := filepath.Join(dir, "net.html"), filepath.Join(dir, "net.json")
	stdout, stderr, code := schedlab(t, "run", "--procs", "2", "--trace", "--trace-format=json", "--timeline", page, "--chrome-trace", chrome, "../../examples/read_deadline.star")
	if code != 0 {
		t.Fatalf("schedlab run: exit %d: %s", code, stderr)
	}
	_, evs, err := tracetest.ReadJSON([]byte(stdout))
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	d, err := tracetest.CheckTimeline(html, evs)
	if err != nil {
		t.Fatal(err)
	}
	// The spans that each event ends, and those it starts, by kind.
	type key struct {
		track, id, kind int64
	}
	ends := map[int][]key{}
	starts := map[int][]key{}
	for i := 0; i+tracetest.TimelineSpanStride <= len(d.Spans); i += tracetest.TimelineSpanStride {
		k := key{d.Spans[i], d.Spans[i+1], d.Spans[i+2]}
		starts[int(d.Spans[i+6])] = append(starts[int(d.Spans[i+6])], k)
		if e := d.Spans[i+7]; e >= 0 {
			ends[int(e)] = append(ends[int(e)], k)
		}
	}
	var ioWaits, netpolls, kinds = 0, 0, map[runtime.EventKind]int{}
	for i, ev := range evs {
		kinds[ev.Kind]++
		switch {
		case ev.Kind == runtime.EvGoBlock && ev.Reason == runtime.WaitReasonIOWait:
			ioWaits++
			want := []key{{0, int64(ev.P), 0}, {1, int64(ev.M), 0}}
			if !slices.Equal(ends[i], want) {
				t.Errorf("event %d (G%d blocks in IO wait on P%d M%d) ends spans %v, want the G's run on its P and M %v", ev.Seq, ev.G, ev.P, ev.M, ends[i], want)
			}
		case ev.Kind == runtime.EvMNetpoll:
			netpolls++
			if want := []key{{1, int64(ev.M), 3}}; !slices.Equal(starts[i], want) {
				t.Errorf("event %d (M%d blocks in netpoll) starts spans %v, want a netpoll span on its lane %v", ev.Seq, ev.M, starts[i], want)
				continue
			}
			// It ends at the M's next event.
			for j := i + 1; j < len(evs); j++ {
				if evs[j].M == ev.M {
					if !slices.Contains(ends[j], key{1, int64(ev.M), 3}) {
						t.Errorf("M%d's netpoll span from event %d does not end at its next event %d (%v)", ev.M, ev.Seq, evs[j].Seq, evs[j].Kind)
					}
					break
				}
			}
		}
	}
	if ioWaits == 0 || netpolls == 0 || kinds[runtime.EvNetReady] == 0 || kinds[runtime.EvNetpoll] == 0 {
		t.Errorf("%d IO waits, %d MNetpoll, %d NetReady, %d Netpoll events; want some of each", ioWaits, netpolls, kinds[runtime.EvNetReady], kinds[runtime.EvNetpoll])
	}

	data, err := os.ReadFile(chrome)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := tracetest.CheckChrome(data, evs)
	if err != nil {
		t.Fatal(err)
	}
	spans, instants := 0, map[string]int{}
	for _, e := range doc.TraceEvents {
		switch e["ph"] {
		case "X":
			if e["cat"] == "netpoll" {
				spans++
				if e["name"] != "netpoll" || e["pid"].(json.Number).String() != "1" {
					t.Errorf("netpoll span %v: want one named netpoll on an M's thread (pid 1)", e)
				}
			}
		case "i":
			instants[e["name"].(string)]++
		}
	}
	if spans != netpolls {
		t.Errorf("the Chrome trace has %d netpoll spans, want one per MNetpoll (%d)", spans, netpolls)
	}
	for _, k := range []runtime.EventKind{runtime.EvNetReady, runtime.EvNetpoll, runtime.EvMNetpoll} {
		if instants[k.String()] != kinds[k] {
			t.Errorf("the Chrome trace has %d %v instants, want %d", instants[k.String()], k, kinds[k])
		}
	}
}
