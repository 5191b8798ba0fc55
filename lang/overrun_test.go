package lang

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/schedlab/schedlab/runtime"
)

// overrunWait bounds how long a test's slow stretch waits for the
// overrun's report: far more than the 2*StopGrace it takes.
const overrunWait = 10 * time.Second

// An overrunProbe stops a run as SIGINT does (Options.Cancel), from inside
// a stretch of the run that outlasts StopGrace, and records the report
// OnOverrun is given. The stretch waits for that report (at most
// overrunWait), so each case takes as long as the overrun does.
type overrunProbe struct {
	cancel   chan struct{}
	reported chan struct{} // closed by OnOverrun
	once     sync.Once     // the stop, at the first stretch
	mu       sync.Mutex
	reports  []string
	inside   []bool // for each report, whether the stretch was still under way
	busy     bool   // the slow stretch is under way
}

func newOverrunProbe() *overrunProbe {
	return &overrunProbe{cancel: make(chan struct{}), reported: make(chan struct{})}
}

// options returns the run's options, with OnOverrun recording the report.
func (p *overrunProbe) options() Options {
	return Options{
		Cancel: p.cancel,
		OnOverrun: func(le *runtime.LimitError, report []byte) {
			p.mu.Lock()
			p.reports = append(p.reports, string(report))
			p.inside = append(p.inside, p.busy)
			first := len(p.reports) == 1
			p.mu.Unlock()
			if first {
				close(p.reported)
			}
		},
	}
}

// slow is the stretch: the first time, it stops the run and waits for the
// overrun's report.
func (p *overrunProbe) slow() {
	p.once.Do(func() {
		close(p.cancel)
		p.mu.Lock()
		p.busy = true
		p.mu.Unlock()
		select {
		case <-p.reported:
		case <-time.After(overrunWait):
		}
		p.mu.Lock()
		p.busy = false
		p.mu.Unlock()
	})
}

// report returns the one report OnOverrun was given, and whether the
// stretch was under way then.
func (p *overrunProbe) report(t *testing.T) (string, bool) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.reports) != 1 {
		t.Fatalf("OnOverrun called %d times, want once: %q", len(p.reports), p.reports)
	}
	return p.reports[0], p.inside[0]
}

// slowStep is a Tracer whose events of kind on make the engine slow in the
// middle of its step (probe.slow), as netpollgoready readying many
// goroutines can be on a loaded host or under -race.
type slowStep struct {
	probe *overrunProbe
	on    runtime.EventKind
}

func (s *slowStep) Event(ev *runtime.Event) {
	if ev.Kind == s.on {
		s.probe.slow()
	}
}

var dumpLine = regexp.MustCompile(`(?m)^goroutine \d+ \[`)

// A stopped run that is slow in the engine, rather than inside one call
// of a universe builtin, changes what a goroutine dump reads: the overrun
// must not read it (which -race reports as a data race, and which made
// the report hold a dump taken in the middle of a step). It looks again
// until StopGrace after its first look, then gives the report without
// the dump; the run ends with its own report once the step is over.
func TestOverrunSlowEngine(t *testing.T) {
	for _, tc := range []struct {
		name string
		on   runtime.EventKind
		src  string
	}{
		// G1 spawns: the engine's newproc is slow.
		{"spawn", runtime.EvGoCreate, "spawn(lambda: None)\nsleep(\"1ms\")\n"},
		// G1 is inside list(ch), a universe builtin's call, which
		// receives through the engine: G2's send readies G1, slowly.
		{"inside list(ch)", runtime.EvGoUnblock, `
ch = chan()
def f():
    ch.send(1)
    ch.close()
spawn(f)
x = list(ch)
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probe := newOverrunProbe()
			opts := probe.options()
			opts.Tracer = &slowStep{probe: probe, on: tc.on}
			_, stderr, res := runSrc(t, tc.src, opts)
			report, inside := probe.report(t)
			if dumpLine.MatchString(report) {
				t.Errorf("the overrun read the run in the middle of the engine's step (still under way: %v): its report holds a goroutine dump:\n%s", inside, report)
			}
			for _, want := range []string{"schedlab: interrupted (SIGINT)\n", "can neither be stopped halfway nor read for a goroutine dump while it runs: the process exits\n"} {
				if !strings.Contains(report, want) {
					t.Errorf("no %q in the overrun's report:\n%s", want, report)
				}
			}
			if !IsInterrupt(res) || !strings.Contains(stderr, "schedlab: interrupted (SIGINT)") {
				t.Errorf("outcome %v, err %v; stderr:\n%s", res.Run.Outcome, res.Run.Err, stderr)
			}
		})
	}
}

// slowValue is a value whose String and comparisons wait in the middle of
// the call that makes them, as str() of a list nested a million deep does.
type slowValue struct{ probe *overrunProbe }

func (v slowValue) String() string        { v.probe.slow(); return "slow" }
func (v slowValue) Type() string          { return "slow" }
func (v slowValue) Freeze()               {}
func (v slowValue) Truth() starlark.Bool  { return starlark.True }
func (v slowValue) Hash() (uint32, error) { return 0, nil }
func (v slowValue) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	v.probe.slow()
	return op == syntax.EQL || op == syntax.LE || op == syntax.GE, nil
}

// A stopped run inside one call of a universe builtin is parked: the
// overrun's report holds the dump and names the call, and the run goes
// on from the call only once the report is out.
func TestOverrunInsideCall(t *testing.T) {
	for _, tc := range []struct {
		name, src, call string
		dump            bool // the report holds the dump
	}{
		{"str", "s = str(slow)\n", "str", true},
		{"repr of a list", "s = repr([1, slow])\n", "repr", true},
		{"max", "s = max([slow, slow])\n", "max", true},
		// key= calls back into Starlark: max is not parked, but str is,
		// inside the callback.
		{"max with key", "s = max([slow, slow], key=lambda x: x)\n", "", false},
		{"str inside min's key", "s = min([1, 2], key=lambda x: str(slow))\n", "str", true},
		// An instruction, not a call: the interpreter's own.
		{"one instruction", "s = \"%s\" % slow\n", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probe := newOverrunProbe()
			opts := probe.options()
			opts.Predeclared = starlark.StringDict{"slow": slowValue{probe}}
			_, stderr, res := runSrc(t, tc.src, opts)
			report, _ := probe.report(t)
			if got := dumpLine.MatchString(report); got != tc.dump {
				t.Fatalf("dump in the report: %v, want %v:\n%s", got, tc.dump, report)
			}
			if tc.dump {
				for _, want := range []string{
					"schedlab: interrupted (SIGINT)\n\ngoroutine 1 [running]:\n",
					": in <toplevel>\n",
					"schedlab: goroutine 1 is still inside one call of " + tc.call + ", and a call cannot be stopped halfway: the process exits\n",
				} {
					if !strings.Contains(report, want) {
						t.Errorf("no %q in the overrun's report:\n%s", want, report)
					}
				}
			}
			if !IsInterrupt(res) {
				t.Errorf("outcome %v, err %v; stderr:\n%s", res.Run.Outcome, res.Run.Err, stderr)
			}
		})
	}
}

// The universe's parked builtins are made once for every run: each is
// the universe's call on a thread that no run made, a run's names hold
// them under their own names unless lang or Options.Predeclared names
// them, and a REPL session's globals never hold them.
func TestParkedUniverse(t *testing.T) {
	if n := len(parkedUniverse); n != 21 {
		t.Errorf("%d parked builtins, want 21", n)
	}
	for name, v := range parkedUniverse {
		if b := v.(*starlark.Builtin); b.Name() != name {
			t.Errorf("parkedUniverse[%q] is named %q", name, b.Name())
		}
	}
	got, err := starlark.Call(&starlark.Thread{}, parkedUniverse["str"], starlark.Tuple{starlark.MakeInt(7)}, nil)
	if err != nil || got != starlark.String("7") {
		t.Errorf("str(7) on a thread of no run = %v, %v, want \"7\"", got, err)
	}
	r := newRun(Options{Predeclared: starlark.StringDict{"sorted": starlark.None}})
	for _, tc := range []struct {
		name string
		want starlark.Value
	}{
		{"str", parkedUniverse["str"]},
		{"sorted", starlark.None}, // Options.Predeclared's
		{"len", nil},              // constant time: the universe's own
	} {
		if got := r.names[tc.name]; got != tc.want {
			t.Errorf("names[%q] = %v, want %v", tc.name, got, tc.want)
		}
	}
	if isParked("print", r.names["print"]) {
		t.Errorf("print is parked, want lang's")
	}
	s := NewSession(SessionOptions{})
	defer s.Close()
	for name, v := range s.Globals() {
		if isParked(name, v) {
			t.Errorf("the session's globals hold the parked %s", name)
		}
	}
	if _, ok := s.Globals()["spawn"]; !ok {
		t.Errorf("the session's globals have no spawn")
	}
}
