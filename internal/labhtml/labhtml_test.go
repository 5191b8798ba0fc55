package labhtml

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/lab"
)

// server is examples/lab/server.star, with few requests.
func server(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile("../../examples/lab/server.star")
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// runLab runs a lab of the script src over sweeps, seeds 1 and 2, and
// returns its report and timelines.
func runLab(t *testing.T, src []byte, jobs int, flags []lab.Flag, sweeps ...string) (*lab.Lab, *lab.Report, *Timelines) {
	t.Helper()
	return runScript(t, "server.star", src, jobs, flags, sweeps...)
}

// runScript is runLab of the script file, whose text is src.
func runScript(t *testing.T, file string, src []byte, jobs int, flags []lab.Flag, sweeps ...string) (*lab.Lab, *lab.Report, *Timelines) {
	t.Helper()
	cfg := lab.Config{Script: file, Src: src, Seeds: 2, RunFlags: flags}
	for _, s := range sweeps {
		sw, err := lab.ParseSweep(s)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Sweeps = append(cfg.Sweeps, sw)
	}
	l, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tls := NewTimelines()
	return l, l.Run(lab.RunOptions{Jobs: jobs, Curves: true, Trace: tls}), tls
}

// page writes the page of a lab.
func page(t *testing.T, l *lab.Lab, r *lab.Report, tls *Timelines) string {
	t.Helper()
	load, err := Load(r.Sweeps, "")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, r, Options{Load: load, Timelines: tls, Replay: l.Replay}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// loads matches what would make a page load something: a URL with a
// scheme or protocol-relative, a CSS url() or @import, an element that
// loads (img, link, iframe, ...) or a src attribute. (The page's script
// calls URL.createObjectURL: url( in lower case only.)
var loads = regexp.MustCompile(`(?i:[a-z][a-z0-9+.-]*://|["'(]//|@import|<(img|link|iframe|embed|object|source|video|audio|base)\b|\ssrc\s*=)|url\(`)

var (
	svgElem   = regexp.MustCompile(`<svg role="img" [^>]*>`)
	embedded  = regexp.MustCompile(`<script type="application/gzip" id="timeline-(\d+)">([^<]*)</script>`)
	openLinks = regexp.MustCompile(`<a href="#" class="open" data-timeline="(\d+)" title="([^"]*)">open</a>`)
)

// TestPage: the page of a small grid has the charts the grid makes,
// loads nothing, embeds each cell's timeline with a link to it, and is
// the same bytes whatever the number of jobs.
func TestPage(t *testing.T) {
	src := server(t)
	flags := []lab.Flag{{Name: "param", Value: "n=40"}}
	l, r, tls := runLab(t, src, 1, flags, "procs=1,2", "rate=500,2000")
	got := page(t, l, r, tls)

	// Latency by percentile: the 4 cells in one chart; p99 against
	// rate: one chart; throughput against procs: one for each rate.
	if n := len(svgElem.FindAllString(got, -1)); n != 4 {
		t.Errorf("%d charts, want 4", n)
	}
	for _, want := range []string{
		"<title>schedlab lab server.star</title>",
		"4 cells, procs 2 × rate 2, seeds 1-2 each",
		"Latency by percentile</text>", "p99 against load</text>",
		"Throughput against GOMAXPROCS — rate=500</text>", "Throughput against GOMAXPROCS — rate=2000</text>",
		">90%</text>", ">procs=2 rate=2000</text>", // a tick of the percentile axis; a line's name
		"<td>1 :8080</td><td>2</td><td>2000</td><td>80</td><td>80</td>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	if m := loads.FindString(got); m != "" {
		t.Errorf("the page has %q: it must load nothing", m)
	}

	// The timelines: one for each cell, the page that the lab's sink
	// got, behind an open link whose title is its command.
	blocks := embedded.FindAllStringSubmatch(got, -1)
	links := openLinks.FindAllStringSubmatch(got, -1)
	if len(blocks) != 4 || len(links) != 4 {
		t.Fatalf("%d timelines and %d links to them, want 4 of each", len(blocks), len(links))
	}
	for i, b := range blocks {
		gz, err := base64.StdEncoding.DecodeString(b[2])
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		tl, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(tl, []byte("<!DOCTYPE html>")) || !bytes.Contains(tl, []byte("seed=1")) {
			t.Errorf("timeline %d is not a timeline page of seed 1: %.80q", i, tl)
		}
		want := "schedlab run --seed 1 --procs 1 --param=n=40 --param rate=500 server.star --timeline cell1-seed1.html"
		if i == 0 && links[i][2] != want {
			t.Errorf("the first link's command %q, want %q", links[i][2], want)
		}
	}

	// The same page from a lab run with 2 jobs: the runs end in another
	// order.
	l2, r2, tls2 := runLab(t, src, 2, flags, "procs=1,2", "rate=500,2000")
	if again := page(t, l2, r2, tls2); again != got {
		t.Errorf("the page differs with 2 jobs")
	}
}

// TestNotes: a grid that sweeps neither the load nor procs says what to
// sweep instead of drawing those charts; a page without timelines has
// no column for them.
func TestNotes(t *testing.T) {
	l, r, _ := runLab(t, server(t), 1, []lab.Flag{{Name: "param", Value: "n=10"}}, "quota=1,unlimited")
	var b bytes.Buffer
	if err := Write(&b, r, Options{Replay: l.Replay}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{"Sweep the load, a parameter", "Sweep GOMAXPROCS (--sweep procs=1,2,4)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if n := len(svgElem.FindAllString(got, -1)); n != 1 {
		t.Errorf("%d charts, want 1: the latency curves", n)
	}
	if strings.Contains(got, "timeline (seed 1)") || strings.Contains(got, `type="application/gzip"`) {
		t.Errorf("a page without timelines has a column for them")
	}
}

// TestFailedCell: a cell that fails has no line, its replay command is
// on the page, and its timeline is that of the failed run.
func TestFailedCell(t *testing.T) {
	src := append(server(t), "\nif param(\"boom\", 0) == 2:\n    fail(\"boom\")\n"...)
	l, r, tls := runLab(t, src, 1, []lab.Flag{{Name: "param", Value: "n=10"}}, "boom=1,2")
	got := page(t, l, r, tls)
	for _, want := range []string{
		"cell boom=2 failed on seed 1: panic: fail: boom",
		"<pre>schedlab run --seed 1 --procs 1 --param=n=10 --param boom=2 server.star</pre>",
		"<td>1 :8080</td><td>2</td><td>-</td>",
		">boom=1</text>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	if strings.Contains(got, ">boom=2</text>") {
		t.Errorf("the failed cell has a line")
	}
	if n := len(embedded.FindAllString(got, -1)); n != 2 {
		t.Errorf("%d timelines, want 2: the failed run's too", n)
	}
}

// TestTimelineIsRuns: a cell's timeline is the page `schedlab run
// --timeline` writes for the cell's replay command; only the first
// MaxTimelineCells cells have one.
func TestTimelineIsRuns(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "server.star")
	src := server(t)
	if err := os.WriteFile(script, src, 0o666); err != nil {
		t.Fatal(err)
	}
	l, _, tls := runScript(t, script, src, 2, []lab.Flag{{Name: "param", Value: "n=10"}, {Name: "costs", Value: "zero"}}, "procs=1,2", "rate=500,2000")
	if len(tls.cells) != 4 || len(tls.runs) != 0 {
		t.Fatalf("%d timelines and %d runs under way, want 4 and none", len(tls.cells), len(tls.runs))
	}
	for _, c := range []int{0, 3} {
		replay := strings.Fields(l.Replay(c, 1))
		file := filepath.Join(dir, "t.html")
		var stdout, stderr bytes.Buffer
		if code := cli.Run(append(replay[2:len(replay)-1], "--timeline="+file, script), &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d\n%s", replay, code, stderr.String())
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(tls.cells[c].gz))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("cell %d: the timeline is not the page of %s --timeline", c, strings.Join(replay, " "))
		}
	}
	if NewTimelines().Tracer(MaxTimelineCells, cli.NewSettings()) != nil {
		t.Errorf("a tracer for cell %d, past the first %d", MaxTimelineCells, MaxTimelineCells)
	}
}

// TestTimelineTooLong: a run of more events than MaxTimelineEvents gets
// no timeline, and says how many it had.
func TestTimelineTooLong(t *testing.T) {
	flags := []lab.Flag{{Name: "param", Value: "n=12000"}, {Name: "param", Value: "rate=100000"}, {Name: "costs", Value: "zero"}}
	_, r, tls := runScript(t, "server.star", server(t), 1, flags)
	tl := tls.cells[0]
	if tl.gz != nil || tl.events <= MaxTimelineEvents {
		t.Fatalf("a run of %d events: a timeline of %d bytes, want none past %d", tl.events, len(tl.gz), MaxTimelineEvents)
	}
	d := &pageData{}
	if got := d.timelines(r, Options{Timelines: tls}); got[0].ID != -1 || !strings.Contains(got[0].Why, "more than the 100000 a page embeds") {
		t.Errorf("cell 0: %+v", got[0])
	}
}

// TestTimelineLimits: past the first MaxTimelineCells cells, for a run
// of too many events and past the budget, a cell has no timeline, and
// says why and how to make it.
func TestTimelineLimits(t *testing.T) {
	big := make([]byte, TimelineBudget*3/4)
	tls := NewTimelines()
	tls.cells[0] = timeline{gz: []byte("small"), events: 10}
	tls.cells[1] = timeline{events: MaxTimelineEvents + 1}
	tls.cells[2] = timeline{gz: big, events: 5}
	tls.cells[3] = timeline{gz: big, events: 5}
	r := &lab.Report{Script: "s.star", Seeds: 1, Sweeps: []lab.Sweep{{Name: "rate", Values: []string{"1", "2", "3", "4", "5"}}}}
	for i := range 5 {
		r.Cells = append(r.Cells, lab.Cell{Settings: lab.Settings{{Name: "rate", Value: r.Sweeps[0].Values[i]}}, Sources: []lab.Source{{Traffic: "1 :80"}}})
	}
	d := &pageData{}
	got := d.timelines(r, Options{Timelines: tls, Replay: func(c int, seed uint64) string { return "replay" }})
	if len(d.Embedded) != 2 || got[0].ID != 0 || got[2].ID != 1 {
		t.Errorf("embedded %d, cells 0 and 2 as %d and %d; want 2: 0 and 1", len(d.Embedded), got[0].ID, got[2].ID)
	}
	for c, want := range map[int]string{1: "more than the 100000 a page embeds", 3: "the page's 16 MB for timelines are spent", 4: "its first seed did not run"} {
		if got[c].ID != -1 || !strings.Contains(got[c].Why, want) || got[c].Command != fmt.Sprintf("replay --timeline cell%d-seed1.html", c+1) {
			t.Errorf("cell %d: %+v, want none: %q", c, got[c], want)
		}
	}
}

func TestLoad(t *testing.T) {
	sweeps := func(names ...string) []lab.Sweep {
		var s []lab.Sweep
		for _, n := range names {
			s = append(s, lab.Sweep{Name: n, Values: []string{"1"}})
		}
		return s
	}
	for _, test := range []struct {
		sweeps []lab.Sweep
		name   string
		want   string
		err    string
	}{
		{sweeps("procs", "rate"), "", "rate", ""},
		{sweeps("procs", "quota", "size", "rate"), "", "rate", ""},
		{sweeps("procs", "quota", "size", "clients"), "", "size", ""},
		{sweeps("procs", "quota"), "", "", ""},
		{nil, "", "", ""},
		{sweeps("procs", "size", "rate"), "size", "size", ""},
		{sweeps("procs", "quota"), "quota", "quota", ""},
		{sweeps("procs", "rate"), "procs", "", "procs is the lines of the p99 chart"},
		{sweeps("procs", "rate"), "size", "", "--html-load size: not swept; the sweeps are procs, rate"},
		{nil, "rate", "", "--html-load rate: nothing is swept"},
	} {
		got, err := Load(test.sweeps, test.name)
		switch {
		case test.err == "" && (err != nil || got != test.want):
			t.Errorf("Load(%v, %q) = %q, %v; want %q", test.sweeps, test.name, got, err, test.want)
		case test.err != "" && (err == nil || !strings.Contains(err.Error(), test.err)):
			t.Errorf("Load(%v, %q): %v, want an error with %q", test.sweeps, test.name, err, test.err)
		}
	}
}
