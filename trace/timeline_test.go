// Tests of the HTML timeline: the embedded data (golden), the page's
// self-containment and escaping, a 100,000-event run, and, where node is
// installed, the page's script run against a minimal stand-in for a
// browser.

package trace

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/tracetest"
)

// renderTimeline writes the timeline page of evs.
func renderTimeline(t testing.TB, h Header, evs []runtime.Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	tl := NewTimeline(&buf, h)
	run(tl, evs)
	if err := tl.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pageData extracts and decodes the data object of a timeline page.
func pageData(t *testing.T, page []byte) (string, *tracetest.TimelineData) {
	t.Helper()
	raw, d, err := tracetest.PageData(page)
	if err != nil {
		t.Fatal(err)
	}
	return raw, d
}

func TestTimelineGolden(t *testing.T) {
	raw, _ := pageData(t, renderTimeline(t, testHeader, scenario()))
	golden(t, "scenario.timeline.json", []byte(raw+"\n"))
}

func TestTimelinePage(t *testing.T) {
	evs := scenario()
	page := renderTimeline(t, testHeader, evs)
	if again := renderTimeline(t, testHeader, evs); !bytes.Equal(page, again) {
		t.Fatal("two renderings of the same run differ")
	}
	s := string(page)
	for _, bad := range []string{"http://", "https://", "<link", "<script src", "<img", "@import", "url("} {
		if strings.Contains(s, bad) {
			t.Errorf("page contains %q: it must be self-contained", bad)
		}
	}
	if !strings.Contains(s, "<title>schedlab timeline — procs=2 seed=1 preempt=on script=&#34;demo one.star&#34;</title>") {
		t.Errorf("page title is missing or not escaped")
	}
	// The printed text holds "<b>&amp;": inside the script it must be escaped.
	if strings.Contains(s, "<b>&amp;") {
		t.Errorf("program text reaches the page unescaped")
	}
	_, d := pageData(t, page)
	if len(d.Ev) != len(evs)*timelineEvStride {
		t.Fatalf("page has %d event numbers, want %d", len(d.Ev), len(evs)*timelineEvStride)
	}
	for i, ev := range evs {
		e := d.Ev[i*timelineEvStride:]
		got := runtime.Event{Seq: uint64(e[0]), Time: e[1], P: int32(e[2]), M: int32(e[3]), G: e[4],
			Kind: runtime.EventKind(e[5]), G2: e[6], P2: int32(e[7]), Arg: e[8], Reason: d.Strings[e[9]]}
		if got != ev {
			t.Errorf("page event %d = %+v, want %+v", i, got, ev)
		}
	}
	for _, k := range runtime.EventKinds() {
		if int(k) >= len(d.Kinds) || d.Kinds[k] != k.String() {
			t.Errorf("kinds[%d] is not %v", k, k)
		}
	}
	if want := strings.Count(spanLines(evs), "\n"); len(d.Spans) != want*timelineSpanStride {
		t.Errorf("page has %d spans, want %d", len(d.Spans)/timelineSpanStride, want)
	}
	if len(d.Ps) != 2 || len(d.Ms) != 3 || d.Start != 0 || d.End != 12345841000 {
		t.Errorf("lanes or range wrong: ps=%v ms=%v start=%d end=%d", d.Ps, d.Ms, d.Start, d.End)
	}
}

// TestTimelineLarge renders a 100,000-event run.
func TestTimelineLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	evs := randomEvents(100000, 8, 11)
	page := renderTimeline(t, testHeader, evs)
	_, d := pageData(t, page)
	if len(d.Ev) != len(evs)*timelineEvStride {
		t.Fatalf("page has %d events, want %d", len(d.Ev)/timelineEvStride, len(evs))
	}
	if len(page) > 12<<20 {
		t.Errorf("page is %d bytes for 100,000 events, want under 12 MiB", len(page))
	}
	t.Logf("100,000 events: page of %d bytes", len(page))
}

// TestTimelineScript checks the page's JavaScript for syntax errors and
// runs it against a minimal stand-in for the browser, when node is
// installed.
func TestTimelineScript(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	for _, test := range []struct {
		name string
		evs  []runtime.Event
	}{
		{"scenario", scenario()},
		{"empty", nil},
		{"random", randomEvents(3000, 3, 2)},
	} {
		t.Run(test.name, func(t *testing.T) {
			runPageScript(t, node, string(renderTimeline(t, testHeader, test.evs)))
		})
	}
}

// runPageScript runs the scripts of page under node with fakeDOM.
func runPageScript(t *testing.T, node, page string) {
	var scripts []string
	for rest := page; ; {
		i := strings.Index(rest, "<script>")
		if i < 0 {
			break
		}
		rest = rest[i+len("<script>"):]
		j := strings.Index(rest, "</script>")
		scripts = append(scripts, rest[:j])
		rest = rest[j:]
	}
	if len(scripts) != 2 {
		t.Fatalf("page has %d scripts, want 2", len(scripts))
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "page.js")
	if err := os.WriteFile(file, []byte(fakeDOM+scripts[0]+scripts[1]+"\ndrawNow();\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, file).CombinedOutput()
	if err != nil {
		t.Fatalf("the page's script fails: %v\n%s", err, out)
	}
}

// fakeDOM is just enough of a browser for the page's script to load, lay
// out and draw once.
const fakeDOM = `
"use strict";
var frames = [];
function ctx2d() {
  return new Proxy({}, { get: function (o, k) {
    if (k === "measureText") return function (s) { return { width: s.length * 6 }; };
    if (k in o) return o[k];
    return function () {};
  }, set: function (o, k, v) { o[k] = v; return true; } });
}
function element(tag) {
  var el = { tagName: tag, style: {}, children: [], classList: { add: function () {}, remove: function () {}, toggle: function () {} },
    appendChild: function (c) { this.children.push(c); return c; }, addEventListener: function () {},
    getContext: function () { return ctx2d(); }, getBoundingClientRect: function () { return { left: 0, top: 0 }; },
    clientWidth: 1200, offsetWidth: 100, offsetHeight: 40, textContent: "" };
  return el;
}
var elements = {};
var document = { getElementById: function (id) { return elements[id] || (elements[id] = element("div")); },
  createElement: function (tag) { return element(tag); } };
var window = { devicePixelRatio: 1, innerWidth: 1200, addEventListener: function () {},
  requestAnimationFrame: function (f) { frames.push(f); } };
function drawNow() { while (frames.length) frames.shift()(); }
`

func BenchmarkTimeline(b *testing.B) {
	evs := randomEvents(100000, 4, 1)
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		tl := NewTimeline(&buf, testHeader)
		run(tl, evs)
		if err := tl.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(evs))/b.Elapsed().Seconds(), "events/s")
}
