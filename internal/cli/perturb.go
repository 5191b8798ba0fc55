package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/schedlab/schedlab/runtime"
)

// PerturbModes are the values of --perturb, in the order the help lists
// them. Each names a preset of runtime.Perturb (see Perturbation).
var PerturbModes = []string{"none", "timing", "runnext", "pct", "all"}

// The presets' parameters. They are part of what a seed means: changing one
// changes the schedule every `--perturb` seed replays.
const (
	// perturbJitter scales work, sleep and syscall durations by a factor
	// in [0.75, 1.25] when the costs profile has no distributions (the
	// zero profile).
	perturbJitter = 0.25
	// perturbWakeup is the most latency, in ns, added to a thread wake-up
	// (startm) when the costs profile has no wake-up distribution (the
	// zero profile): 50µs, a slow futex wake on a loaded Linux host.
	perturbWakeup = 50_000
	// perturbPreempt is the chance of a preemption at each safe point, as
	// if sysmon's signal (or a GC's stack scan) landed there, on the zero
	// profile (which has no stall distributions).
	perturbPreempt = 0.05
	// pctDepth change points among the first pctSteps safe points.
	pctDepth = 3
	pctSteps = 200
)

// Perturbation returns the runtime.Perturb of a --perturb mode for a run
// on the default costs profile, or an error for an unknown mode. See
// PerturbationFor.
func Perturbation(mode string) (runtime.Perturb, error) {
	return PerturbationFor(mode, runtime.DefaultCosts())
}

// PerturbationFor returns the runtime.Perturb of a --perturb mode for a
// run on the costs profile costs (nil for the zero profile):
//
//	none     nothing: the scheduler's own seeded choices only
//	timing   every cost drawn from the profile's distribution, measured
//	         on real Go (schedlab calibrate): thread wake-ups, new
//	         threads, timer lateness, spawns, switches, syscalls, steal
//	         passes and steps; the quantum of steps after which two Ps'
//	         code interleaves; and thread stalls (runtime.Perturb.Stalls:
//	         the OS taking a thread's CPU in the middle of its code, the
//	         profile's stall and stall_every). The zero profile has no
//	         distributions: there durations are jittered by
//	         ±perturbJitter, a thread wake-up is late by up to
//	         perturbWakeup and a G is preempted at a safe point with
//	         chance perturbPreempt instead. Schedules Go itself can produce
//	runnext  runnext flipped half the time, as the race detector's
//	         randomizeScheduler does: beyond a race-free Go build
//	pct      PCT change points (Burckhardt et al., ASPLOS 2010): beyond Go
//	all      timing, runnext and pct together
func PerturbationFor(mode string, costs *runtime.Costs) (runtime.Perturb, error) {
	timing := runtime.Perturb{SampleCosts: true, QuantumJitter: true, Stalls: true}
	if costs.IsZero() {
		// Nothing to sample: uniform stand-ins for the durations' and
		// the wake-up's variation.
		timing = runtime.Perturb{Jitter: perturbJitter, WakeupJitter: perturbWakeup, PreemptProb: perturbPreempt, QuantumJitter: true}
	}
	switch mode {
	case "", "none":
		return runtime.Perturb{}, nil
	case "timing":
		return timing, nil
	case "runnext":
		return runtime.Perturb{RunnextFlip: true}, nil
	case "pct":
		return runtime.Perturb{PCTDepth: pctDepth, PCTSteps: pctSteps}, nil
	case "all":
		p := timing
		p.RunnextFlip = true
		p.PCTDepth, p.PCTSteps = pctDepth, pctSteps
		return p, nil
	}
	return runtime.Perturb{}, fmt.Errorf("want %s", strings.Join(PerturbModes, ", "))
}

// ScriptSettings returns the settings of a run of the script filename with
// source src: the defaults, then the script's `# schedlab:` directives,
// then the flags in args (which must hold flags only, as Run has checked
// them). It is how `schedlab explore` starts each of its runs from
// exactly the settings `schedlab run` would use.
func ScriptSettings(filename string, src []byte, args []string) (*Settings, error) {
	return settingsFor(filename, src, args)
}

// perturbation is the runtime.Perturb of s.Perturb, which the flag has
// checked, for the run's costs profile.
func (s *Settings) perturbation() runtime.Perturb {
	p, _ := PerturbationFor(s.Perturb, s.CostsProfile())
	return p
}

// Given reports whether the flag name was set explicitly, by a directive
// or on the command line, rather than left at its default.
func (s *Settings) Given(name string) bool { return s.set[name] }

// RegisterFlags defines on fs the run flags named (such as "preempt" and
// "max-steps"), bound to s, with the usage text of `schedlab run` and the
// defaults s holds. It is for commands that take some of run's flags and
// pass them on to ScriptSettings (explore).
func (s *Settings) RegisterFlags(fs *flag.FlagSet, names ...string) {
	all := flag.NewFlagSet("", flag.ContinueOnError)
	s.register(all)
	for _, name := range names {
		f := all.Lookup(name)
		fs.Var(f.Value, f.Name, f.Usage)
	}
}
