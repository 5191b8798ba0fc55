package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// simulate runs the twin script n times, seeds 1 to n, each with the
// settings `schedlab run --seed S --perturb=timing FLAGS script` would use
// (the script's directives included), and returns what the probe would
// have recorded of each: its printed outcome, the state when runtime.main
// called main.main, and when each go statement of the program's
// goroutines returned (its GoCreate, the runtime's own goroutines left
// out), in ns since then.
func simulate(script string, n int, flags []string) ([]run, error) {
	src, err := os.ReadFile(script)
	if err != nil {
		return nil, err
	}
	var runs []run
	for seed := 1; seed <= n; seed++ {
		args := append([]string{fmt.Sprintf("--seed=%d", seed), "--perturb=timing"}, flags...)
		s, err := cli.ScriptSettings(script, src, args)
		if err != nil {
			return nil, err
		}
		var out strings.Builder
		opts := s.Options(&out, io.Discard)
		if !opts.RuntimeMain {
			return nil, fmt.Errorf("%s: the run has no start-up (--startup=bare)", script)
		}
		var r run
		main := int64(-1)
		onStart := opts.OnStart
		opts.OnStart = func(m *runtime.Machine) {
			if onStart != nil {
				onStart(m)
			}
			m.OnMain(func(now int64, p, _ int32) {
				main = now
				r.state = simState(m.Snapshot(), p)
			})
		}
		opts.Tracer = runtime.MultiTracer(opts.Tracer, runtime.TracerFunc(func(ev *runtime.Event) {
			if ev.Kind == runtime.EvGoCreate && main >= 0 && !strings.HasPrefix(ev.Reason, "runtime.") {
				r.spawns = append(r.spawns, ev.Time-main)
			}
		}))
		res := lang.RunFile(script, src, opts)
		if res.ExitCode != 0 {
			return nil, fmt.Errorf("%s: seed %d: the run ended with exit code %d", script, seed, res.ExitCode)
		}
		r.outcome = strings.Join(strings.Fields(out.String()), " ")
		runs = append(runs, r)
	}
	return runs, nil
}

// simState names the engine's state at main.main as classify names a
// recorded one.
func simState(s *runtime.Snapshot, mainP int32) string {
	mine := s.Ps[mainP]
	var others []string
	for i, p := range s.Ps {
		if int32(i) != mainP {
			others = append(others, p.Status.String())
		}
	}
	return stateName(len(mine.Runq) > 0, mine.Runnext != 0, others, strconv.Itoa(int(s.NMSpinning)))
}
