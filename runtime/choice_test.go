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
