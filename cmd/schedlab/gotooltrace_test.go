package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	xtrace "golang.org/x/exp/trace"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/tracetest"
)

// goToolTrace starts `go tool trace` on file, serving its web UI on a
// free port of the loopback interface, and returns the UI's address. It
// stops the tool when the test ends.
func goToolTrace(t *testing.T, file string) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, goCmd, "tool", "trace", "-http=127.0.0.1:0", file)
	cmd.Env = append(os.Environ(), "BROWSER=true") // the tool opens $BROWSER: here, nothing
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	addr := make(chan string, 1)
	var lines []string
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`listening on (http://\S+)`)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatalf("go tool trace ended without serving:\n%s", strings.Join(lines, "\n"))
		}
		return a
	case <-time.After(2 * time.Minute):
		t.Fatalf("go tool trace did not start serving in 2m")
	}
	return ""
}

// TestGoToolTraceInBrowser opens `go tool trace`'s web UI of a simulated
// run (examples/stealing.star, --go-trace) in headless Chromium and finds
// the example's goroutines in its goroutine analysis and its proc view:
// the 16 jobs as "job", G1 as "main", and the four Ps as Proc 0..3
// with runs of the jobs on them.
func TestGoToolTraceInBrowser(t *testing.T) {
	browser := findBrowser(t)
	file := filepath.Join(t.TempDir(), "s.trace")
	if _, stderr, code := schedlab(t, "run", "--go-trace", file, "../../examples/stealing.star"); code != 0 {
		t.Fatalf("schedlab run: exit %d: %s", code, stderr)
	}
	addr := goToolTrace(t, file)
	bctx := newBrowser(t, browser)
	ctx, cancel := chromedp.NewContext(bctx)
	defer cancel()

	// The goroutine analysis groups goroutines by their entry function.
	if err := chromedp.Do(ctx, chromedp.Navigate(addr+"/goroutines")); err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"job", "main"} {
		if !strings.Contains(body, want) {
			t.Errorf("goroutine analysis does not list %q:\n%.1500s", want, body)
		}
	}
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(Array.from(document.links).find(a => a.textContent.trim() === "job") || {}).href || ""`))
	if err != nil || href == "" {
		t.Fatalf("no link to the job goroutines (%v):\n%.1500s", err, body)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(href)); err != nil {
		t.Fatal(err)
	}
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.links).map(a => a.textContent.trim()).filter(s => /^[0-9]+$/.test(s))`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 16 {
		t.Errorf("the job group lists %d goroutines, want 16: %v", len(ids), ids)
	}

	// The proc view: the trace viewer's model has a thread per P, and
	// slices named after the goroutines that ran there.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(addr+"/trace?view=proc")); err != nil {
		t.Fatal(err)
	}
	type procView struct {
		Threads []string `json:"threads"`
		Jobs    int      `json:"jobs"`
	}
	pv, err := chromedp.Run(ctx, chromedp.Poll[procView](`(function () {
		var v = document.querySelector("tr-ui-timeline-view");
		if (!v || !v.model) return null;
		var threads = [], jobs = 0;
		v.model.getAllThreads().forEach(function (th) {
			threads.push(th.name || "");
			th.sliceGroup.slices.forEach(function (s) { if (/^G[0-9]+ job$/.test(s.title)) jobs++; });
		});
		return threads.length ? { threads: threads, jobs: jobs } : null;
	})()`, chromedp.WithPollingTimeout(time.Minute)))
	if err != nil {
		t.Fatalf("the proc view did not load: %v", err)
	}
	t.Logf("go tool trace: %d goroutines in the job group; the proc view has threads %q and %d runs of job goroutines", len(ids), pv.Threads, pv.Jobs)
	for p := range 4 {
		want := fmt.Sprintf("Proc %d", p)
		found := false
		for _, th := range pv.Threads {
			found = found || th == want
		}
		if !found {
			t.Errorf("the proc view has no %q: %q", want, pv.Threads)
		}
	}
	if pv.Jobs < 16 {
		t.Errorf("the proc view has %d runs of job goroutines, want at least 16", pv.Jobs)
	}
	if !*update {
		return
	}
	// The picture: the proc view without the viewer's banner about its
	// web-components polyfill, cut below the lanes.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function () {
		var found = false;
		(function walk(root) {
			Array.prototype.forEach.call(root.querySelectorAll("*"), function (el) {
				if (!found && el.tagName === "BUTTON" && el.textContent.trim() === "Hide") { el.click(); found = true; }
				if (el.shadowRoot) walk(el.shadowRoot);
			});
		})(document);
		return found;
	})()`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // let the viewer draw
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	png, err := cropPNG(shot, 300)
	if err != nil {
		t.Fatal(err)
	}
	const pngFile = "../../docs/go-tool-trace-stealing.png"
	if err := os.WriteFile(pngFile, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", pngFile, len(png))
}

// cropPNG returns the top height pixels of the PNG image data.
func cropPNG(data []byte, height int) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	b.Max.Y = min(b.Max.Y, b.Min.Y+height)
	sub, ok := img.(interface {
		SubImage(r image.Rectangle) image.Image
	})
	if !ok {
		return data, nil
	}
	var out bytes.Buffer
	if err := png.Encode(&out, sub.SubImage(b)); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// TestGoTraceNetwork writes a server under traffic (examples/server.star)
// and a read deadline with a dial (examples/read_deadline.star) on 2 and
// 4 Ps as Go execution traces: golang.org/x/exp/trace's reader and
// tracetest's checker accept them (the netpoller's events have no Go
// event, injectglist's GoUnblocks have no G), every "IO wait" of the
// run is a block for "network" in the trace, as netpollblock's
// traceBlockNet, and `go tool trace -pprof=net` makes of them a network
// blocking profile that names the handler's read and the accept loop.
func TestGoTraceNetwork(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	for _, script := range []string{"server", "read_deadline"} {
		for _, procs := range []string{"2", "4"} {
			data, evs := goTraceRun(t, filepath.Join(dir, script+procs+".trace"), "--procs", procs, "../../examples/"+script+".star")
			xevs, err := tracetest.ReadGoTrace(data)
			if err != nil {
				t.Fatalf("%s --procs %s: %v", script, procs, err)
			}
			ioWaits, network := 0, 0
			for _, ev := range evs {
				if ev.Kind == runtime.EvGoBlock && ev.Reason == runtime.WaitReasonIOWait {
					ioWaits++
				}
			}
			for _, ev := range xevs {
				if ev.Kind() != xtrace.EventStateTransition {
					continue
				}
				st := ev.StateTransition()
				if st.Resource.Kind != xtrace.ResourceGoroutine {
					continue
				}
				if _, to := st.Goroutine(); to == xtrace.GoWaiting && st.Reason == "network" {
					network++
				}
			}
			if ioWaits == 0 || network != ioWaits {
				t.Errorf("%s --procs %s: %d blocks for \"network\" in the Go trace, want the run's %d in IO wait (and some)", script, procs, network, ioWaits)
			}
		}
	}

	// The network blocking profile of the server on 2 Ps.
	cmd := exec.Command(goCmd, "tool", "trace", "-pprof=net", filepath.Join(dir, "server2.trace"))
	var perr bytes.Buffer
	cmd.Stderr = &perr
	p, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool trace -pprof=net: %v\n%s", err, perr.String())
	}
	zr, err := gzip.NewReader(bytes.NewReader(p))
	if err != nil {
		t.Fatalf("go tool trace -pprof=net: not a gzipped profile (%d bytes): %v", len(p), err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	// A profile with no sample names no function: its string table holds
	// only the sample types.
	for _, s := range []string{"handle", "serve", "server.star"} {
		if !bytes.Contains(raw, []byte(s)) {
			t.Errorf("go tool trace -pprof=net: the network blocking profile (%d bytes) does not name %q", len(raw), s)
		}
	}
}

// TestGoTraceGC writes runs with GC cycles as Go execution traces and
// reads them back with golang.org/x/exp/trace: examples/gc_cycle.star
// (one cycle on 4 Ps, with assists) and a script of many cycles on 2 Ps
// under --gc-cycle=mark and stw. Each parses, its goroutines pass through
// the run's states (tracetest.CheckGoTrace), and the GC is there as Go's
// tools name it (tracetest.CheckGoTraceGC): a "GC concurrent mark phase"
// range for every cycle, "stop-the-world (GC sweep termination)" and
// "stop-the-world (GC mark termination)" ranges on the G that stops the
// world, "GC mark assist" ranges on the assisting G, and a "GC
// (dedicated)", "GC (fractional)" or "GC (idle)" label on each mark
// worker as it marks, each where the run's events put it.
func TestGoTraceGC(t *testing.T) {
	dir := t.TempDir()
	many := filepath.Join(dir, "many.star")
	if err := os.WriteFile(many, []byte(gcTimelineScript), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		name  string
		args  []string
		kinds []string // range names and labels the run must have
	}{
		{"gc_cycle", []string{"../../examples/gc_cycle.star"}, []string{"GC concurrent mark phase", "stop-the-world (GC sweep termination)", "stop-the-world (GC mark termination)", "GC mark assist", "GC (dedicated)", "GC (idle)"}},
		{"mark", []string{"--procs=2", many}, []string{"GC concurrent mark phase", "GC mark assist", "GC (fractional)"}},
		{"stw", []string{"--procs=2", "--gc-cycle=stw", many}, []string{"GC concurrent mark phase", "stop-the-world (GC sweep termination)", "stop-the-world (GC mark termination)"}},
	} {
		t.Run(run.name, func(t *testing.T) {
			data, evs := goTraceRun(t, filepath.Join(dir, run.name+".trace"), run.args...)
			if err := tracetest.CheckGoTraceGC(data, evs, 20); err != nil {
				t.Error(err)
			}
			xevs, err := tracetest.ReadGoTrace(data)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, r := range tracetest.GCRangesOfTrace(xevs) {
				seen[r.Name]++
			}
			for _, k := range run.kinds {
				if seen[k] == 0 {
					t.Errorf("no %q in the Go trace (it has %v)", k, seen)
				}
			}
		})
	}
}

// goTraceRun runs `schedlab run` with args, writing the Go execution
// trace to file and the events as JSON, checks the trace against the
// events (tracetest.CheckGoTrace), and returns both.
func goTraceRun(t *testing.T, file string, args ...string) ([]byte, []runtime.Event) {
	t.Helper()
	stdout, stderr, code := schedlab(t, append([]string{"run", "--go-trace", file, "--trace", "--trace-format=json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	_, evs, err := tracetest.ReadJSON([]byte(stdout))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := tracetest.CheckGoTrace(data, evs); err != nil {
		t.Errorf("%v: %v", args, err)
	}
	return data, evs
}
