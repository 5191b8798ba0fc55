package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// A footprintLog is a Chooser that answers 0 and logs what the Machine
// tells a Tracker.
type footprintLog struct {
	names map[any]string
	log   []string
}

func (f *footprintLog) Choose(kind ChoiceKind, g int64, n int) int {
	f.log = append(f.log, fmt.Sprintf("choose %v G%d", kind, g))
	return 0
}

func (f *footprintLog) Running(g int64) {
	if n := len(f.log); n > 0 && f.log[n-1] == "running G0" {
		f.log = f.log[:n-1] // goroutine 0 steps that touched nothing
	}
	f.log = append(f.log, fmt.Sprintf("running G%d", g))
}

func (f *footprintLog) Touch(obj any, a Access) {
	name, ok := f.names[obj]
	if !ok {
		name = fmt.Sprintf("%T %v", obj, obj)
	}
	f.log = append(f.log, fmt.Sprintf("  %s %s", []string{"read", "write", "release", "acquire", "park", "exit"}[a], name))
}

func (f *footprintLog) Alternative(g int64) {
	f.log = append(f.log, fmt.Sprintf("  alternative G%d", g))
}

// TestTrackerFootprints: with a Chooser that is a Tracker, the Machine
// reports which goroutine runs, what each touches (a channel by identity,
// a select that finds nothing ready as a read), the release of a spawned
// or woken goroutine, its park and its exit; and who a preemption would
// run at a preempt point.
func TestTrackerFootprints(t *testing.T) {
	f := &footprintLog{names: map[any]string{}}
	m := NewMachine(Config{Chooser: f, Costs: ZeroCosts()})
	defer m.Close()
	m.Start(func(g *G) error {
		a, _ := g.Machine().NewChan(0)
		b, _ := g.Machine().NewChan(1)
		f.names[a], f.names[b] = "a", "b"
		g.Go(func(g *G) error { g.Send(a, 1); return nil }, "sender")
		g.SafePoint()
		g.Select([]SelectCase{{Dir: SelectRecv, Chan: b}}, false)
		g.Recv(a)
		return nil
	})
	for m.Step() {
	}
	got := strings.Join(f.log, "\n")
	want := `running G1
  release runtime.GKey 2
  alternative G2
choose preempt G1
  read b
  write a
  park runtime.GKey 1
running G2
  write a
  release runtime.GKey 1
  exit runtime.GKey 2
running G1
  exit runtime.GKey 1`
	if got != want {
		t.Errorf("footprints:\n%s\nwant\n%s", got, want)
	}
}

// TestTrackerChangesNothing: the same run with and without a Tracker
// gives the same trace.
func TestTrackerChangesNothing(t *testing.T) {
	run := func(c Chooser) string {
		var b strings.Builder
		m := NewMachine(Config{Chooser: c, Procs: 2, Tracer: TracerFunc(func(e *Event) { fmt.Fprintln(&b, *e) })})
		defer m.Close()
		m.Start(func(g *G) error {
			c, _ := g.Machine().NewChan(0)
			mu := g.Machine().NewMutex()
			for i := range 4 {
				g.Go(func(g *G) error {
					g.Lock(mu)
					g.SafePoint()
					g.Unlock(mu)
					g.Send(c, i)
					return nil
				}, "w")
			}
			for range 4 {
				g.Recv(c)
				g.SafePoint()
			}
			return nil
		})
		for m.Step() {
		}
		return b.String()
	}
	plain := run(NewReplay(nil))
	tracked := run(&footprintLog{names: map[any]string{}})
	if plain != tracked {
		t.Errorf("a Tracker changed the run")
	}
}

// stallAt is a Chooser that answers 1 to the nth ChoiceStall it is asked
// (from 1) and 0 to everything else, and counts the stall questions.
type stallAt struct {
	n, asked int
}

func (s *stallAt) Choose(kind ChoiceKind, g int64, n int) int {
	if kind != ChoiceStall {
		return 0
	}
	s.asked++
	if s.asked == s.n {
		return 1
	}
	return 0
}

// A stall makes the running G's thread lose its CPU until the next event
// of the process other than sysmon's is due: here the sleeper's timer,
// 100µs on. The sleeper then runs first on the other P and its send is
// seen before main's, which it cannot be without the stall. Without
// Config.ChooseStalls the question is never asked.
func TestChoiceStall(t *testing.T) {
	run := func(stalls bool, ch *stallAt) (order string, at int64) {
		t.Helper()
		var got []string
		m := NewMachine(Config{Procs: 2, Chooser: ch, ChooseStalls: stalls, Costs: ZeroCosts()})
		defer m.Close()
		m.Start(func(g *G) error {
			c, _ := g.Machine().NewChan(2)
			g.Go(func(g *G) error {
				g.Sleep(100_000)
				g.Send(c, "sleeper")
				return nil
			}, "sleeper")
			g.Work(1000) // the sleeper is on the other P by now, asleep
			g.SafePoint()
			at = g.Now()
			g.Send(c, "main")
			for range 2 {
				v, _ := g.Recv(c)
				got = append(got, v.(string))
			}
			return nil
		})
		if res := *m.Run(); res.Outcome != Exited {
			t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
		}
		return strings.Join(got, " "), at
	}
	if order, at := run(false, &stallAt{n: 1}); order != "main sleeper" || at != 1000 {
		t.Errorf("without stalls: %q at %dns; want main first, at 1000ns", order, at)
	}
	ch := &stallAt{n: 1}
	if order, at := run(true, ch); order != "sleeper main" || at != 100_000 {
		t.Errorf("with a stall at the safe point: %q, main going on at %dns; want the sleeper first, main at 100000ns (the sleeper's timer)", order, at)
	}
	if ch.asked == 0 {
		t.Error("no stall question asked with ChooseStalls")
	}
	none := &stallAt{}
	run(false, none)
	if none.asked != 0 {
		t.Errorf("%d stall questions without ChooseStalls, want 0", none.asked)
	}
}
