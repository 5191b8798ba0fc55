package lab

import (
	"bytes"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/latency"
	"github.com/schedlab/schedlab/runtime"
)

func TestParseSweep(t *testing.T) {
	for _, test := range []struct {
		in   string
		want []string // the values; nil for an error
		err  string   // part of the error
	}{
		{in: "procs=1,2,4", want: []string{"1", "2", "4"}},
		{in: "procs= 1, 8 ", want: []string{"1", "8"}},
		{in: "quota=0.5,2,unlimited", want: []string{"0.5", "2", "unlimited"}},
		{in: "cpus=1,2,4", want: []string{"1", "2", "4"}},
		{in: "gc-assist=on,off", want: []string{"on", "off"}},
		{in: "gogc=50,off", want: []string{"50", "off"}},
		{in: "memlimit=64MiB,off", want: []string{"64MiB", "off"}},
		{in: "gc-assist=maybe", err: "gc-assist maybe: want on or off"},
		{in: "rate=500", want: []string{"500"}},
		{in: "mode=fast,slow", want: []string{"fast", "slow"}},
		{in: "procs", err: "want NAME=V1,V2,..."},
		{in: "=1,2", err: `"" is neither procs, quota, cpus, gogc, memlimit, gc-assist nor a parameter's name`},
		{in: "net-latency=1ms", err: `"net-latency" is neither`},
		{in: "seed=1,2", err: "--seeds N"},
		{in: "rate=", err: "an empty value"},
		{in: "rate=1,,2", err: "an empty value"},
		{in: "rate=1,1", err: "rate 1 is given twice"},
		{in: "procs=1,x", err: "procs x: want an integer"},
		{in: "procs=0", err: "procs 0: out of range"},
		{in: "procs=1025", err: "procs 1025: out of range"},
		{in: "quota=0", err: "quota 0: want more than 0 CPUs"},
		{in: "quota=-1", err: "quota -1: want more than 0 CPUs"},
		{in: "quota=lots", err: "quota lots: want a number of CPUs"},
		{in: "quota=NaN", err: "quota NaN: want a number of CPUs"},
		{in: "quota=2000", err: "quota 2000: at most 1024 CPUs"},
		{in: "cpus=0", err: "cpus 0: out of range"},
		{in: "cpus=two", err: "cpus two: want an integer"},
	} {
		sw, err := ParseSweep(test.in)
		switch {
		case test.want != nil && err != nil:
			t.Errorf("ParseSweep(%q): %v", test.in, err)
		case test.want != nil && !slices.Equal(sw.Values, test.want):
			t.Errorf("ParseSweep(%q) = %q, want %q", test.in, sw.Values, test.want)
		case test.want == nil && (err == nil || !strings.Contains(err.Error(), test.err)):
			t.Errorf("ParseSweep(%q) = %v, want an error with %q", test.in, err, test.err)
		}
	}
}

// TestGrid: the cells are the cartesian product, the first sweep varying
// slowest, and a grid is bounded.
func TestGrid(t *testing.T) {
	g, err := NewGrid([]Sweep{{"procs", []string{"1", "2"}}, {"rate", []string{"a", "b", "c"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range g.Len() {
		got = append(got, strings.Join(g.Cell(i), " "))
	}
	want := []string{"1 a", "1 b", "1 c", "2 a", "2 b", "2 c"}
	if !slices.Equal(got, want) {
		t.Errorf("cells %q, want %q", got, want)
	}
	if g, _ := NewGrid(nil); g.Len() != 1 || len(g.Cell(0)) != 0 {
		t.Errorf("no sweep: %d cells, want 1 with no values", g.Len())
	}

	ten := Sweep{Name: "a", Values: strings.Split("1,2,3,4,5,6,7,8,9,10", ",")}
	big := []Sweep{ten, ten, ten, ten}
	for i, n := range []string{"a", "b", "c", "d"} {
		big[i].Name = n
	}
	if _, err := NewGrid(big[:3]); err != nil {
		t.Errorf("1,000 cells: %v", err)
	}
	big[3].Values = big[3].Values[:1]
	if g, err := NewGrid(big); err != nil || g.Len() != MaxCells/10 {
		t.Errorf("1,000 cells with a sweep of 1: %v", err)
	}
	big[3].Values = append(big[3].Values, "x", "y", "z", "w", "v", "u", "s", "r", "q", "p")
	if _, err := NewGrid(big); err == nil || !strings.Contains(err.Error(), "more than 10,000 cells (a 10 × b 10 × c 10 × d 11)") {
		t.Errorf("11,000 cells: %v", err)
	}
	if _, err := NewGrid([]Sweep{{"rate", []string{"1"}}, {"rate", []string{"2"}}}); err == nil || !strings.Contains(err.Error(), "--sweep rate is given twice") {
		t.Errorf("a sweep twice: %v", err)
	}
}

// TestPoolSources: a cell's counts are the sums over its seeds, its
// percentiles those of every latency together, its throughput the
// answered requests over the sources' spans, its sources in the order
// they first appear.
func TestPoolSources(t *testing.T) {
	runs := []runFigures{
		{sources: []sourceRun{
			{name: "1 :80", sent: 4, answered: 3, failed: 1, lat: []int64{1000, 2000, 3000}, span: 1e9},
		}, throttled: 10},
		{sources: []sourceRun{
			{name: "1 :80", sent: 2, answered: 2, lat: []int64{50_000, 4000}, span: 3e9},
			{name: "2 :81", sent: 1, answered: 1, lat: []int64{7}, span: 0},
		}, throttled: 20},
	}
	srcs, throttled := poolSources(runs, true)
	if throttled != 15 {
		t.Errorf("throttled %d, want the mean 15", throttled)
	}
	if len(srcs) != 2 || srcs[0].Traffic != "1 :80" || srcs[1].Traffic != "2 :81" {
		t.Fatalf("sources %+v, want 1 :80 then 2 :81", srcs)
	}
	s := srcs[0]
	if s.Sent != 6 || s.Answered != 5 || s.Failed != 1 {
		t.Errorf("sent %d answered %d failed %d, want 6 5 1", s.Sent, s.Answered, s.Failed)
	}
	if s.Throughput != 1.25 {
		t.Errorf("throughput %v, want 5 answered in 4s: 1.25", s.Throughput)
	}
	sum := latency.Summarize([]int64{1000, 2000, 3000, 50_000, 4000})
	for i, name := range latency.Names() {
		if s.Percentiles[name] != sum.P[i] {
			t.Errorf("%s = %d, want %d, the pooled latencies'", name, s.Percentiles[name], sum.P[i])
		}
	}
	if p50 := s.Percentiles["p50"]; s.Max != 50_000 || p50 < 3000 || p50 > 3003 {
		t.Errorf("max %d p50 %d, want 50µs and 3µs", s.Max, p50)
	}
	if srcs[1].Throughput != 0 {
		t.Errorf("a source with no span: throughput %v, want 0", srcs[1].Throughput)
	}
	if want := latency.Curve([]int64{1000, 2000, 3000, 50_000, 4000}); !reflect.DeepEqual(s.Curve, want) {
		t.Errorf("curve %v, want %v, the pooled latencies'", s.Curve, want)
	}
	if srcs, _ := poolSources(runs, false); srcs[0].Curve != nil {
		t.Errorf("a curve kept without curves")
	}
}

// server is a server under open-loop traffic whose rate and size are
// parameters.
const server = `
l = listen(":8080")

def handle(c):
    req = c.read()
    work(rand.expo(param("service", "1ms")))
    c.write(req.id)
    c.read()
    c.close()

def serve():
    while True:
        spawn(handle, l.accept())

spawn(serve)
t = traffic(":8080", rate=param("rate", 800), n=param("n", 30))
t.wait()
if param("boom", 0) == 2:
    fail("boom")
`

func newLab(t *testing.T, src string, seeds int, flags []Flag, sweeps ...string) *Lab {
	t.Helper()
	cfg := Config{Script: "server.star", Src: []byte(src), Seeds: seeds, RunFlags: flags}
	for _, s := range sweeps {
		sw, err := ParseSweep(s)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Sweeps = append(cfg.Sweeps, sw)
	}
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func outputs(t *testing.T, r *Report) (table, js string) {
	t.Helper()
	var a, b bytes.Buffer
	if err := r.WriteTable(&a); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return a.String(), b.String()
}

// TestJobs: a lab's report is the same bytes whatever the number of jobs.
func TestJobs(t *testing.T) {
	l := newLab(t, server, 3, nil, "procs=1,2", "rate=500,2000")
	table1, json1 := outputs(t, l.Run(RunOptions{Jobs: 1}))
	table4, json4 := outputs(t, l.Run(RunOptions{Jobs: 4}))
	if table1 != table4 || json1 != json4 {
		t.Errorf("--jobs 1:\n%s\n--jobs 4:\n%s", table1, table4)
	}
	if !strings.Contains(table1, "1 :8080      2  2000    90        90       0") {
		t.Errorf("want the cell procs=2 rate=2000 with 3 seeds' 90 requests:\n%s", table1)
	}
}

// TestCellIsItsSeeds: a cell pools its seeds: its figures are those of
// its seeds' runs, whatever the other cells.
func TestCellIsItsSeeds(t *testing.T) {
	grid := newLab(t, server, 2, nil, "procs=1,2", "rate=500,2000").Run(RunOptions{Jobs: 2})
	one := newLab(t, server, 2, []Flag{{"procs", "2"}, {"param", "rate=500"}}).Run(RunOptions{Jobs: 2})
	if got, want := grid.Cells[2].Sources, one.Cells[0].Sources; !reflect.DeepEqual(got, want) {
		t.Errorf("cell procs=2 rate=500: %+v\nalone: %+v", got, want)
	}
	if s := one.Cells[0].Sources[0]; s.Sent != 60 || s.Answered != 60 {
		t.Errorf("two seeds of 30 requests: sent %d, answered %d", s.Sent, s.Answered)
	}
}

// TestFailingCell: a cell with a seed that fails says which and how to
// replay it; the other cells go on.
func TestFailingCell(t *testing.T) {
	r := newLab(t, server, 2, []Flag{{"costs", "zero"}}, "boom=1,2,3").Run(RunOptions{Jobs: 2})
	if r.Failed() != 1 {
		t.Fatalf("%d cells failed, want 1", r.Failed())
	}
	f := r.Cells[1].Failure
	want := "schedlab run --seed 1 --procs 1 --costs=zero --param boom=2 server.star"
	if f == nil || f.Seed != 1 || f.Outcome != "panic" || f.Message != "fail: boom" || f.Replay != want {
		t.Errorf("failure %+v, want seed 1, panic: fail: boom, replay %s", f, want)
	}
	if len(r.Cells[1].Sources) != 0 || len(r.Cells[0].Sources) != 1 || len(r.Cells[2].Sources) != 1 {
		t.Errorf("sources: the failed cell has %d, the others %d and %d", len(r.Cells[1].Sources), len(r.Cells[0].Sources), len(r.Cells[2].Sources))
	}
	table, _ := outputs(t, r)
	if !strings.Contains(table, "cell boom=2 failed on seed 1: panic: fail: boom\n\t"+want+"\n") {
		t.Errorf("the table does not name the failure:\n%s", table)
	}
}

// TestUnread: a parameter that no run reads is named once.
func TestUnread(t *testing.T) {
	r := newLab(t, server, 1, []Flag{{"param", "size=3"}}, "rate=500", "colour=red,blue").Run(RunOptions{Jobs: 2})
	if !slices.Equal(r.Unread, []string{"colour", "size"}) {
		t.Errorf("unread %q, want colour and size", r.Unread)
	}
	ws := r.Warnings()
	if len(ws) != 2 || !strings.Contains(ws[0], "--sweep colour changes nothing") || !strings.Contains(ws[1], "--param size changes nothing") {
		t.Errorf("warnings %q", ws)
	}
}

// TestQuota: a quota below what the Ps would use throttles the process;
// no quota does not.
func TestQuota(t *testing.T) {
	// 200ms of work in about 70ms: three CPUs' worth, under a quota of 1.
	r := newLab(t, server, 1, []Flag{{"param", "rate=3000"}, {"param", "n=200"}}, "procs=4", "quota=1,unlimited").Run(RunOptions{Jobs: 2})
	if r.Cells[0].Throttled == 0 || r.Cells[1].Throttled != 0 {
		t.Errorf("throttled %d under quota 1, %d unlimited; want some, then none", r.Cells[0].Throttled, r.Cells[1].Throttled)
	}
}

// TestCPUs: four Ps on one CPU answer more slowly than on four, and the
// cells' GOMAXPROCS follows the CPUs where nothing else sets it.
func TestCPUs(t *testing.T) {
	l := newLab(t, server, 1, []Flag{{"param", "rate=3000"}, {"param", "n=200"}}, "cpus=1,4")
	if p := [2]int{l.cells[0].procs, l.cells[1].procs}; p != [2]int{1, 4} {
		t.Errorf("procs %v, want [1 4]: GOMAXPROCS follows --cpus", p)
	}
	r := l.Run(RunOptions{Jobs: 2})
	one, four := r.Cells[0], r.Cells[1]
	if len(one.Sources) != 1 || len(four.Sources) != 1 {
		t.Fatalf("sources %d and %d, want 1 each", len(one.Sources), len(four.Sources))
	}
	a, b := one.Sources[0].Percentiles["p99"], four.Sources[0].Percentiles["p99"]
	t.Logf("p99 %d ns on one CPU, %d ns on four", a, b)
	if a <= b {
		t.Errorf("p99 %d on one CPU, %d on four; want slower on one", a, b)
	}
}

// TestNewErrors: what New refuses.
func TestNewErrors(t *testing.T) {
	for _, test := range []struct {
		src    string
		seeds  int
		flags  []Flag
		sweeps []Sweep
		err    string
	}{
		{server, 0, nil, nil, "--seeds 0: out of range"},
		{server, 1, []Flag{{"procs", "2"}}, []Sweep{{"procs", []string{"1"}}}, "--sweep procs and --procs=2: give one"},
		{server, 1, []Flag{{"cpu-quota", "2"}}, []Sweep{{"quota", []string{"1"}}}, "--sweep quota and --cpu-quota=2: give one"},
		{server, 1, []Flag{{"cpus", "2"}}, []Sweep{{"cpus", []string{"1"}}}, "--sweep cpus and --cpus=2: give one"},
		{server, 1, []Flag{{"gc-assist", "off"}}, []Sweep{{"gc-assist", []string{"on"}}}, "--sweep gc-assist and --gc-assist=off: give one"},
		{server, 1, nil, []Sweep{{"gogc", []string{"-5"}}}, "cell gogc=-5: invalid value"},
		{server, 1, []Flag{{"param", "rate=3"}}, []Sweep{{"rate", []string{"1"}}}, "--sweep rate and --param=rate=3: give one"},
		{"# schedlab: --param rate=5\n" + server, 1, nil, []Sweep{{"rate", []string{"1"}}}, "cell rate=1: invalid value"},
		{"x = (", 1, nil, nil, "server.star:1:6"},
	} {
		_, err := New(Config{Script: "server.star", Src: []byte(test.src), Seeds: test.seeds, RunFlags: test.flags, Sweeps: test.sweeps})
		if err == nil || !strings.Contains(err.Error(), test.err) {
			t.Errorf("New(%v, %v): %v, want %q", test.flags, test.sweeps, err, test.err)
		}
	}
}

// TestStop: a lab stopped early reports the cells whose runs were all
// done before the first run not started.
func TestStop(t *testing.T) {
	l := newLab(t, server, 2, nil, "rate=100,200,300,400")
	stop := make(chan struct{})
	r := l.Run(RunOptions{Jobs: 1, Stop: stop, Progress: func(done int) {
		if done == 3 {
			close(stop)
		}
	}})
	if !r.Interrupted || len(r.Cells) != 1 || r.Cells[0].Settings.String() != "rate=100" {
		t.Errorf("interrupted %v with %d cells, want 1: rate=100 (runs 0 and 1; run 2 is half of rate=200)", r.Interrupted, len(r.Cells))
	}
	table, _ := outputs(t, r)
	if !strings.HasPrefix(table, "lab server.star: 1 of 4 cells done, rate 4, seeds 1-2 each\n") || !strings.HasSuffix(table, "interrupted: the cells above are those done before it\n") {
		t.Errorf("table:\n%s", table)
	}
}

// counter is a RunTracer that counts each cell's events.
type counter struct {
	mu       sync.Mutex
	events   map[int]*int
	settings map[int]string
	done     map[int]bool
}

func (r *counter) Tracer(c int, s *cli.Settings) runtime.Tracer {
	if c == 1 {
		return nil // not this one
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := new(int)
	r.events[c] = n
	var kv []string
	for _, x := range s.Header().Settings {
		kv = append(kv, x.Key+"="+x.Value)
	}
	r.settings[c] = strings.Join(kv, " ")
	return runtime.TracerFunc(func(*runtime.Event) { *n++ })
}

func (r *counter) Done(c int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done[c] = true
}

// TestTrace: a RunTracer traces the first seed of the cells it wants,
// with the settings `schedlab run` gives the cell's replay command; the
// report is the same with tracing and curves as without.
func TestTrace(t *testing.T) {
	l := newLab(t, server, 2, []Flag{{"param", "n=10"}}, "procs=1,2", "rate=500,2000")
	tr := &counter{events: map[int]*int{}, settings: map[int]string{}, done: map[int]bool{}}
	with := l.Run(RunOptions{Jobs: 2, Trace: tr, Curves: true})
	without := l.Run(RunOptions{Jobs: 2})
	for i := range with.Cells {
		with.Cells[i].Sources[0].Curve = nil
	}
	if !reflect.DeepEqual(with, without) {
		t.Errorf("the report with tracing and curves differs from the one without")
	}
	if len(tr.events) != 3 || tr.events[1] != nil || len(tr.done) != 3 {
		t.Fatalf("traced cells %v, done %v; want 0, 2 and 3", slices.Sorted(maps.Keys(tr.events)), tr.done)
	}
	for c, n := range tr.events {
		if *n == 0 {
			t.Errorf("cell %d: no events", c)
		}
	}
	if want := "procs=2 seed=1 preempt=on costs=default param.n=10 param.rate=2000"; tr.settings[3] != want {
		t.Errorf("cell 3's settings %q, want %q", tr.settings[3], want)
	}
}
