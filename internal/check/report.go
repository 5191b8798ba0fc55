package check

import (
	"fmt"
	"io"
	"strings"
)

// Budget says why a walk stopped before it was complete: "" when it did
// not stop early.
type Budget string

// A Replay is a command that replays the failing schedule, and how it
// does: "replay" (schedlab run), "repl" (the REPL's world), "playground"
// (a share link).
type Replay struct {
	How, Command string
}

// WriteText writes the verdict as `schedlab check` prints it: the failure
// with its run's stderr and the commands that replay it, or that there
// was none, in how many schedules and how complete the walk was; then the
// outcomes seen. bound is the walk's bound (below 0: none); stopped is
// why it stopped early, if it did; replay are the commands that replay
// the failing schedule, a line each.
func (v *Verdict) WriteText(w io.Writer, bound int, stopped Budget, replay []Replay) error {
	var b strings.Builder
	upTo := "exhaustive"
	if bound >= 0 {
		upTo = fmt.Sprintf("complete up to bound %d", bound)
	}
	if f := v.Failure; f != nil {
		fmt.Fprintf(&b, "%s in schedule %d (%s): %s\n", f.Result.Outcome, v.failureAt, plural(f.Preemptions(), "preemption"), f.Result.Message)
		if len(f.Stderr) > 0 {
			for _, line := range strings.Split(strings.TrimRight(string(f.Stderr), "\n"), "\n") {
				fmt.Fprintf(&b, "    %s\n", line)
			}
		}
		for _, r := range replay {
			fmt.Fprintf(&b, "%s: %s\n", r.How, r.Command)
		}
	}
	switch {
	case v.Failure == nil && stopped == "":
		fmt.Fprintf(&b, "no failure in %s (%s)\n", plural(v.Schedules, "schedule"), upTo)
	case v.Failure == nil:
		fmt.Fprintf(&b, "no failure in %s: incomplete, %s before the walk was done (it would be %s)\n", plural(v.Schedules, "schedule"), stopped, upTo)
	case v.Complete:
		fmt.Fprintf(&b, "%d of %s failed (%s)\n", v.failures, plural(v.Schedules, "schedule"), upTo)
	case stopped != "":
		fmt.Fprintf(&b, "%d of %s failed: incomplete, %s\n", v.failures, plural(v.Schedules, "schedule"), stopped)
	default:
		fmt.Fprintf(&b, "stopped at the first failure, after %s (--keep-going walks on)\n", plural(v.Schedules, "schedule"))
	}
	fmt.Fprintf(&b, "outcomes:\n")
	for _, c := range v.Classes {
		what := string(c.Key.Outcome)
		if c.Key.Message != "" {
			what += ": " + c.Key.Message
		}
		fmt.Fprintf(&b, "  %6d  %-40s output %s\n", c.Runs, what, c.Key.Output)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Failures returns how many runs failed.
func (v *Verdict) Failures() int { return v.failures }

// failed records run, the v.Schedules'th, as a failure.
func (v *Verdict) failed(run *Run) {
	v.failures++
	if v.Failure == nil {
		v.Failure, v.failureAt = run, v.Schedules
	}
}
