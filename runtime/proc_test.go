package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// run runs main on a Machine with cfg and returns what the goroutines
// logged and the result. The Machine is closed afterwards.
func run(t *testing.T, cfg Config, main func(g *G, log func(format string, args ...any)) error) (string, *Result) {
	t.Helper()
	var b strings.Builder
	log := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	m := NewMachine(cfg)
	m.Start(func(g *G) error { return main(g, log) })
	res := *m.Run()
	m.Close()
	return b.String(), &res
}

// TestRunnextOrder: spawn g0..g9 on one P, then block: g9 sits in runnext
// and runs first, then the ring in order. Mirrors runqput(next=true).
func TestRunnextOrder(t *testing.T) {
	out, res := run(t, Config{Procs: 1}, func(g *G, log func(string, ...any)) error {
		done, _ := g.Machine().NewChan(0)
		for i := range 10 {
			g.Go(func(g *G) error {
				log("g%d", i)
				return g.Send(done, i)
			}, fmt.Sprintf("g%d", i))
		}
		for range 10 {
			g.Recv(done)
		}
		return nil
	})
	if res.Outcome != Exited {
		t.Fatalf("outcome %v: %v", res.Outcome, res.Err)
	}
	want := "g9\ng0\ng1\ng2\ng3\ng4\ng5\ng6\ng7\ng8\n"
	if out != want {
		t.Errorf("order:\n%s\nwant:\n%s", out, want)
	}
}
