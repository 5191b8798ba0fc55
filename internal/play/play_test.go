package play

import (
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/explore"
	"github.com/schedlab/schedlab/internal/views"
)

// eventLines returns the event lines of a text trace: not its header, not
// the program's output.
func eventLines(trace string) []string {
	var evs []string
	for _, line := range strings.Split(trace, "\n") {
		if eventLine.MatchString(line) {
			evs = append(evs, line)
		}
	}
	return evs
}

var eventLine = regexp.MustCompile(`^ *-?[0-9]+\.[0-9]{3}µs `)

func fmtDigest(r *RunResult) string {
	d := explore.Digest(r.Code, []byte(r.Stdout), []byte(r.Stderr))
	return hex.EncodeToString(d[:])
}

// TestStepperFollowsTheRun steps every example to the end and checks that
// the stepper's run is the run: as many events as the trace has, each
// step's line the trace's line of that event, and the output at the end
// the run's output and stderr.
func TestStepperFollowsTheRun(t *testing.T) {
	for _, ex := range Examples() {
		t.Run(ex.Name, func(t *testing.T) {
			for _, args := range [][]string{nil, {"--procs", "4", "--seed", "7"}} {
				res := Run(RunRequest{Filename: ex.Name, Src: ex.Src, Args: args}, nil, nil)
				lines := eventLines(res.Trace)
				if len(lines) != res.Events {
					t.Fatalf("%v: the trace has %d event lines, the run counted %d events", args, len(lines), res.Events)
				}
				st, err := NewStepper(ex.Name, []byte(ex.Src), args)
				if err != nil {
					t.Fatal(err)
				}
				for k := 1; k <= res.Events; k += max(1, res.Events/7) {
					st = st.Goto(k)
					if p := st.Picture(); p.Line != lines[k-1] || p.Step != k || p.Done {
						t.Fatalf("%v: step %d shows %q (step %d, done %v), want the trace's line %q", args, k, p.Line, p.Step, p.Done, lines[k-1])
					}
				}
				st = st.Goto(res.Events)
				if p := st.Picture(); p.Step != res.Events || p.Line != lines[len(lines)-1] {
					t.Fatalf("%v: at the last event the stepper shows step %d %q", args, p.Step, p.Line)
				}
				st.Forward(1)
				p := st.Picture()
				if !p.Done || p.Code != res.Code {
					t.Fatalf("%v: after the last event: done %v, exit %d; the run exited %d", args, p.Done, p.Code, res.Code)
				}
				// With --trace on stdout (a directive), the run's stdout
				// is the trace, and the stepper's output the prints.
				if !strings.HasPrefix(res.Stdout, "# schedlab trace") && p.Output != res.Stdout+res.Stderr {
					t.Errorf("%v: output at the end:\n%s\nwant the run's stdout and stderr:\n%s%s", args, p.Output, res.Stdout, res.Stderr)
				}
			}
		})
	}
}

// TestStepperBack checks that going back replays: the picture at step k
// reached from a later step is the one reached going forward.
func TestStepperBack(t *testing.T) {
	src := mustExample(t, "stealing.star")
	st, err := NewStepper("stealing.star", []byte(src), []string{"--procs=4"})
	if err != nil {
		t.Fatal(err)
	}
	st = st.Goto(40)
	want := *st.Picture()
	st = st.Goto(60)
	st = st.Goto(40)
	got := *st.Picture()
	if got.PS != want.PS || got.RunqT != want.RunqT || got.Line != want.Line || got.Output != want.Output {
		t.Fatalf("step 40 after 60:\n%s%s%s\nwant, going forward:\n%s%s%s", got.Line, got.PS, got.RunqT, want.Line, want.PS, want.RunqT)
	}
	st.Close()
}

// TestStepperStopsARunaway closes a stepper paused in a loop that never
// ends and checks that its run stops.
func TestStepperStopsARunaway(t *testing.T) {
	st, err := NewStepper("loop.star", []byte("def f():\n    while True:\n        pass\nspawn(f)\nwhile True:\n    pass\n"), []string{"--procs=2"})
	if err != nil {
		t.Fatal(err)
	}
	st = st.Goto(5)
	st.Close()
	if !st.Done() {
		t.Fatal("the stepper's run goes on after Close")
	}
}

// TestBadFlags checks that a bad flag is reported as `schedlab run`
// reports it, in the run and in the stepper.
func TestBadFlags(t *testing.T) {
	res := Run(RunRequest{Filename: "x.star", Src: "print(1)\n", Args: []string{"--procs=0"}}, nil, nil)
	if res.Code != 2 || !strings.Contains(res.Stderr, "schedlab run: invalid value \"0\" for flag -procs") {
		t.Errorf("--procs=0: exit %d, stderr %q", res.Code, res.Stderr)
	}
	if _, err := NewStepper("x.star", []byte("print(1)\n"), []string{"--timeline=x.html"}); err == nil || !strings.Contains(err.Error(), "--timeline is not available here") {
		t.Errorf("--timeline: %v", err)
	}
	if _, err := cli.PageSettings("x.star", []byte("print(1)\n"), []string{"other.star"}); err == nil {
		t.Errorf("a script name among the flags is accepted")
	}
}

// TestWarnings checks that the page's stderr says what schedlab run's
// does about a bare small int given as a duration.
func TestWarnings(t *testing.T) {
	res := Run(RunRequest{Filename: "x.star", Src: "sleep(1)\nprint(1)\n"}, nil, nil)
	want := `x.star:1:6: warning: sleep(1) is 1ns: a bare int is nanoseconds; write sleep("1ms") for milliseconds, or sleep("1ns") to mean it (said once a run)` + "\n"
	if res.Code != 0 || res.Stdout != "1\n" || res.Stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want stderr %q", res.Code, res.Stdout, res.Stderr, want)
	}
}

func mustExample(t *testing.T, name string) string {
	t.Helper()
	for _, ex := range Examples() {
		if ex.Name == name {
			return ex.Src
		}
	}
	t.Fatalf("no example %s", name)
	return ""
}

// TestExamplesAreAll checks that the embedded examples are every
// examples/*.star.
func TestExamplesAreAll(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.star")
	if len(files) == 0 || len(files) != len(Examples()) {
		t.Fatalf("%d examples embedded, %d in examples/", len(Examples()), len(files))
	}
}

// TestLinks round-trips links and checks the errors of bad ones.
func TestLinks(t *testing.T) {
	src := mustExample(t, "hello.star")
	for _, l := range []Link{
		{Version: "devel-abc", Name: "hello.star", Script: src, Flags: []string{"--procs=4", "--seed", "7"}, Step: 12},
		{Version: "v1", Name: "x.star", Script: "print(1)\n", Flags: []string{}},
	} {
		frag, err := EncodeLink(l)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeLink(frag)
		if err != nil {
			t.Fatalf("%s: %v", frag, err)
		}
		if got.Version != l.Version || got.Name != l.Name || got.Script != l.Script || strings.Join(got.Flags, " ") != strings.Join(l.Flags, " ") || got.Step != l.Step {
			t.Errorf("round trip of %+v gave %+v", l, got)
		}
		if len(l.Script) > 1000 && !strings.HasPrefix(frag, "1.z.") {
			t.Errorf("a long script's link is not compressed: %.20s...", frag)
		}
		if len(l.Script) < 20 && !strings.HasPrefix(frag, "1.j.") {
			t.Errorf("a short script's link is compressed, which makes it longer: %s", frag)
		}
		// Cut short, as a link copied in part.
		if _, err := DecodeLink(frag[:len(frag)*2/3]); err == nil {
			t.Errorf("a link cut short decodes")
		}
	}
	for frag, want := range map[string]error{
		"":               ErrLinkCorrupt,
		"1.z.!!!":        ErrLinkCorrupt,
		"1.q.AAAA":       ErrLinkCorrupt,
		"1.j.e30":        nil, // {}
		"x.j.e30":        ErrLinkCorrupt,
		"2.z.AAAA":       &NewerFormatError{2},
		"1.j.bm90anNvbg": ErrLinkCorrupt,
	} {
		_, err := DecodeLink(frag)
		var nf *NewerFormatError
		switch {
		case want == nil && err != nil:
			t.Errorf("%q: %v", frag, err)
		case errors.As(want, &nf):
			var got *NewerFormatError
			if !errors.As(err, &got) || got.Format != nf.Format {
				t.Errorf("%q: %v, want %v", frag, err, want)
			}
		case want != nil && !errors.Is(err, want):
			t.Errorf("%q: %v, want %v", frag, err, want)
		}
	}
	long := Link{Name: "x.star", Script: strings.Repeat("#\n", MaxLinkScript)}
	if _, err := EncodeLink(long); err == nil {
		t.Errorf("a script over the limit gets a link")
	}
}

// TestNote checks that the note is read from docs/runtime.md.
func TestNote(t *testing.T) {
	n, err := ModelNote()
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Diffs) < 3 || !strings.Contains(n.Model, "Machine") || !strings.HasPrefix(n.Doc, "docs/runtime.md#where-schedlab-differs-from-go") {
		t.Errorf("note: %+v", n)
	}
	for _, d := range n.Diffs {
		if d.Title == "" || d.Text == "" {
			t.Errorf("a difference without a bold title or text: %+v", d)
		}
	}
	if _, err := parseNote("# nothing\n"); err == nil {
		t.Errorf("a runtime.md without the sections gives a note")
	}
}

// TestExplore sweeps lost_update, whose counter loses updates on some
// schedules, and checks that the sweep finds more than one class and that
// each class's replay flags reproduce its first run.
func TestExplore(t *testing.T) {
	src := mustExample(t, "lost_update.star")
	progress := 0
	res := Explore(ExploreRequest{Filename: "lost_update.star", Src: src, Runs: 60}, func(done int) { progress = done })
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	if res.Done != 60 || progress != 60 {
		t.Fatalf("done %d, progress %d", res.Done, progress)
	}
	if len(res.Classes) < 2 {
		t.Fatalf("one class in 60 runs of lost_update:\n%s", res.Table)
	}
	for _, c := range res.Classes {
		if !strings.Contains(strings.Join(c.ReplayFlags, " "), "--perturb=timing") {
			t.Errorf("replay flags %v", c.ReplayFlags)
		}
		r := Run(RunRequest{Filename: "lost_update.star", Src: src, Args: c.ReplayFlags}, nil, nil)
		if got := fmtDigest(r); got != c.Digest {
			t.Errorf("replaying %v: digest %s, want %s", c.ReplayFlags, got, c.Digest)
		}
	}
}

// TestPictureShowsNetpoll steps examples/read_deadline.star on 2 Ps and
// checks that the picture shows the network poller as :netpoll and :ms
// do: at some step an M is blocked in netpoll (activity "netpoll", the
// poller's M) while goroutines wait in accept and in a read with its
// deadline, the picture's waiters are those of :ps's "fd=N mode", and
// its :netpoll text is the views' text of its data.
func TestPictureShowsNetpoll(t *testing.T) {
	src := mustExample(t, "read_deadline.star")
	res := Run(RunRequest{Filename: "read_deadline.star", Src: src, Args: []string{"--procs=2"}}, nil, nil)
	st, err := NewStepper("read_deadline.star", []byte(src), []string{"--procs=2"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { st.Close() }()
	seen := map[string]bool{}
	for k := 1; k <= res.Events; k++ {
		st = st.Goto(k)
		p := st.Picture()
		np := p.Runq.Netpoll
		var b strings.Builder
		views.WriteNetpoll(&b, np, p.Time)
		if p.NetT != b.String() {
			t.Fatalf("step %d: the picture's :netpoll text is\n%s\nits data prints\n%s", k, p.NetT, b.String())
		}
		for _, m := range p.Runq.Ms {
			if (m.Activity == "netpoll") != (np.M == m.ID) || m.Netpoll != (np.M == m.ID) {
				t.Fatalf("step %d: M%d is %q (netpoll %v), the poller's M is %d", k, m.ID, m.Activity, m.Netpoll, np.M)
			}
		}
		where := map[int64]string{}
		for _, g := range p.Gs {
			where[g.ID] = g.Where
		}
		for _, w := range np.Waiting {
			if want := fmt.Sprintf("fd=%d %s", w.FD, w.Mode); where[w.G] != want {
				t.Fatalf("step %d: :ps puts G%d at %q, :netpoll at %q", k, w.G, where[w.G], want)
			}
			seen[w.Mode] = true
			if w.Deadline > 0 {
				seen["deadline"] = true
			}
		}
		if np.M >= 0 {
			seen["m"] = true
		}
	}
	t.Logf("%d steps, seen %v", res.Events, seen)
	for _, s := range []string{"accept", "read", "connect", "deadline", "m"} {
		if !seen[s] {
			t.Errorf("read_deadline.star on 2 Ps: the picture never showed %q (seen %v)", s, seen)
		}
	}
}

// TestPictureAfterStops steps a run one event at a time and checks that
// the picture shows each stop once it is made: after a ProcStop its P is
// idle (or stopped) and has no M, never "running · no M"; after an MStop
// its M is parked, idle or locked, never "starting". The scenario hands
// Ps back and forth (syscalls, sleeps, goroutines that end) on 4 Ps, once
// with runtime.main's start-up, whose locked M0 stops its P in
// stoplockedm and startlockedm.
func TestPictureAfterStops(t *testing.T) {
	const src = `def worker(i):
    syscall("30us")
    sleep("20us")
    work("10us")

for i in range(6):
    spawn(worker, i)
sleep("1ms")
`
	for _, args := range [][]string{{"--procs=4"}, {"--procs=4", "--startup=go"}} {
		st, err := NewStepper("stops.star", []byte(src), args)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for k := 1; !st.Done(); k++ {
			st.Forward(1)
			p := st.Picture()
			f := strings.Fields(p.Line)
			if st.Done() || len(f) < 5 {
				continue
			}
			switch f[4] {
			case "ProcStop":
				seen[f[4]]++
				for _, pp := range p.Runq.Ps {
					if "P"+strconv.Itoa(pp.ID) == f[1] && (pp.Status == "running" || pp.M >= 0) {
						t.Errorf("%v: step %d %q: P%d is %s with M%d, want it stopped without an M", args, k, p.Line, pp.ID, pp.Status, pp.M)
					}
				}
			case "MStop":
				seen[f[4]]++
				for _, mm := range p.Runq.Ms {
					if "M"+strconv.Itoa(mm.ID) == f[2] && mm.Activity != "idle" && mm.Activity != "locked" {
						t.Errorf("%v: step %d %q: M%d is %q, want it parked (idle or locked)", args, k, p.Line, mm.ID, mm.Activity)
					}
				}
			}
		}
		if seen["ProcStop"] == 0 || seen["MStop"] == 0 {
			t.Errorf("%v: the run stopped no P or no M (%v): the scenario tests nothing", args, seen)
		}
		t.Logf("%v: %v", args, seen)
	}
}
