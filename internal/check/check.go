// Package check walks every schedule of a script, up to a bound on
// preemptions, as CHESS does: the logic of `schedlab check`.
//
// The engine asks a runtime.Chooser at each of its choice points
// (runtime/choice.go): whether a safe point preempts the running
// goroutine when another could run, and which of several ready cases a
// select takes. A run of the script is then a path through a tree whose
// nodes are those questions. Runs are deterministic, so a path is named by
// its answers alone, a Schedule: the run that gives the same answers
// meets the same questions.
//
// Walk does a depth-first search of the tree, one run per leaf. The first
// run answers 0 everywhere: no preemption, the first ready case, which is
// the schedule Go's rules give without signals (and what `schedlab run`
// prints when no select had a choice). Each next run replays the last
// one's answers up to its deepest question that has an answer not yet
// tried, takes that answer, and answers 0 after it. A question whose
// answer is a preemption counts against the bound (Musuvathi and Qadeer,
// "Iterative Context Bounding for Systematic Testing of Multithreaded
// Programs", PLDI 2007): with bound K, a path has at most K preemptions,
// and the walk is complete when every such path has run. Without a bound
// (K < 0) the walk is exhaustive.
//
// This is the naive enumeration: two schedules that differ only in the
// order of independent operations both run. Partial-order reduction
// comes next; Walk reports how many schedules it ran so that the saving
// can be measured against it.
package check

import (
	"errors"
	"fmt"

	"github.com/schedlab/schedlab/internal/explore"
	"github.com/schedlab/schedlab/internal/explore/scriptrun"
	"github.com/schedlab/schedlab/internal/schedfile"
	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// A Schedule is a run's answers to its choice points, in the order the
// run met them.
type Schedule []int

// A Point is one choice point of a run: what was asked and answered.
type Point struct {
	Kind   runtime.ChoiceKind
	G      int64 // the goroutine running when it was asked
	N      int   // the answers there were
	Answer int
	// Alt is, at a preempt point of a walk with DPOR, the goroutine a
	// preemption would run next; 0 when the engine cannot say.
	Alt int64
}

// Config says what to walk.
type Config struct {
	Program *lang.Program
	// Options are every run's options (procs, seed, costs, limits); Walk
	// sets Chooser, Stdout and Stderr.
	Options lang.Options
	// Bound is the most preemptions a schedule may have; below 0, none:
	// the walk is exhaustive.
	Bound int
	// MaxSchedules stops the walk after that many runs; 0 means no limit.
	MaxSchedules int
	// StopAtFailure ends the walk at the first failing schedule.
	StopAtFailure bool
	// Stop, once closed, ends the walk after the run in progress
	// (SIGINT); the verdict says Interrupted.
	Stop <-chan struct{}
	// Reduction is the schedules the walk may leave out: none, or those
	// that DPOR shows equivalent to one it runs (dpor.go).
	Reduction Reduction
	// Jobs is how many runs the naive walk does at once, on as many
	// goroutines; below 2, one. The verdict is the same for any number
	// (parallel.go). A walk with DPOR does one at a time.
	Jobs int
	// Progress, if not nil, is called after each run the verdict counts,
	// with the count: in the walk's order, on Walk's goroutine.
	Progress func(schedules int)

	// wrap, in tests, wraps each run's chooser (with a tracker even
	// without DPOR) and returns a function to call after the run.
	wrap func(*trackingChooser) (runtime.Chooser, func())
}

// A Run is one schedule run: its choice points and how it ended.
type Run struct {
	Points []Point
	Result explore.Result
	Stdout []byte
	Stderr []byte
}

// preempts reports whether p's answer switches away from a G that could
// have gone on: a preemption, or letting what else is due go first.
func (p Point) preempts() bool {
	return p.Answer == 1 && (p.Kind == runtime.ChoicePreempt || p.Kind == runtime.ChoiceInterleave || p.Kind == runtime.ChoiceStall)
}

// Schedule returns the answers of r's choice points.
func (r *Run) Schedule() Schedule {
	s := make(Schedule, len(r.Points))
	for i, p := range r.Points {
		s[i] = p.Answer
	}
	return s
}

// Preemptions returns how many of r's answers preempt.
func (r *Run) Preemptions() int {
	n := 0
	for _, p := range r.Points {
		if p.preempts() {
			n++
		}
	}
	return n
}

// A Verdict is what a walk found.
type Verdict struct {
	Schedules   int  // runs done
	Complete    bool // every schedule within the bound ran
	Interrupted bool // Config.Stop ended the walk
	// HostLimit says which run a limit of the host's (the wall-clock
	// timeout, memory) stopped, ending the walk before it: "" if none.
	// That run is not counted, and is not a failure: where it stopped
	// depends on the machine, not on the schedule.
	HostLimit string
	// Failure is the first schedule whose run failed (explore's outcomes:
	// a deadlock, a leak, a failed assert, a panic, a limit), nil if none.
	Failure *Run
	// Classes counts the runs by how they ended: outcome, message and
	// output, in the order they were first met.
	Classes []Class

	failures  int // runs that failed
	blocked   int // runs in which a sleeper ran asleep (sleep.go)
	failureAt int // Failure's place in the walk, from 1
}

// A Class is the runs that ended alike, and the first of them.
type Class struct {
	Key   explore.Key
	Runs  int
	First Schedule
}

// ErrNondeterministic is a replay that met other choice points than the
// run it replays: the script or the engine depends on something the
// schedule does not fix.
var ErrNondeterministic = errors.New("nondeterministic run")

// Walk runs the schedules of cfg depth first and calls visit, if not nil,
// after each run. It stops at cfg.MaxSchedules runs, at the first failure
// with cfg.StopAtFailure, or when visit returns false.
//
// The run's Points are visit's only until it returns: Walk reuses them
// for the next run's, so a visit that keeps them keeps a copy. (The
// points of the verdict's Failure are not reused.)
func Walk(cfg Config, visit func(*Run) bool) (*Verdict, error) {
	if cfg.Jobs > 1 && cfg.Reduction == NoReduction && cfg.wrap == nil {
		return walkParallel(cfg, visit)
	}
	job := scriptrun.New(cfg.Program)
	v := &Verdict{}
	classes := map[explore.Key]int{}
	var prefix Schedule
	var marks []bool       // with DPOR: whether to try the switch at each point of the path
	var sleepers []sleeper // with sleep sets: the next run's (sleep.go)
	lastPoints := 0        // the last run's choice points: room for the next run's
	var spare []Point      // the last run's points once consumed: the next run's
	var tr *tracker        // with a tracker: the last run's, reset for the next
	heap := cfg.Program.SharedPlainState() != ""
	sleeping := sleepSets(cfg, heap)
	for {
		if cfg.MaxSchedules > 0 && v.Schedules >= cfg.MaxSchedules {
			return v, nil
		}
		select {
		case <-cfg.Stop:
			v.Interrupted = true
			return v, nil
		default:
		}
		room := lastPoints + lastPoints/8 // runs differ a little in length
		ch := &chooser{prefix: prefix, points: emptied(spare, room)}
		spare = nil
		opts := cfg.Options
		opts.Chooser = ch
		var after func()
		if cfg.Reduction == DPOR || cfg.wrap != nil {
			if tr == nil {
				tr = newTracker(heap)
			} else {
				tr.reset()
			}
			if sleeping {
				tr.sleep(sleepers, room)
			}
			if cfg.Reduction == DPOR && !heap {
				tr.stutter(room)
			}
			opts.Chooser = &trackingChooser{ch, tr}
			if cfg.wrap != nil {
				opts.Chooser, after = cfg.wrap(opts.Chooser.(*trackingChooser))
			}
		}
		if opts.Cancel == nil {
			opts.Cancel = cfg.Stop // a long run ends at the interrupt too
		}
		res, lres := job.Run(opts)
		if after != nil {
			after()
		}
		if ch.err != nil {
			return v, ch.err
		}
		if hl := lres.HostLimit; hl != nil {
			// The host stopped the run where its time or memory ran out,
			// not where the schedule led: the walk ends there, incomplete.
			if hl.What == "interrupt" {
				v.Interrupted = true
			} else {
				v.HostLimit = fmt.Sprintf("schedule %d reached a limit of the host's: %s", v.Schedules+1, hl.Msg)
			}
			return v, nil
		}
		if len(ch.points) < len(prefix) {
			return v, fmt.Errorf("%w: schedule %v ended after %d of its %d choice points", ErrNondeterministic, prefix, len(ch.points), len(prefix))
		}
		v.Schedules++
		if cfg.Progress != nil {
			cfg.Progress(v.Schedules)
		}
		run := &Run{Points: ch.points, Result: res}
		lastPoints = len(run.Points)
		stdout, stderr := job.Output()
		run.Stdout, run.Stderr = append([]byte(nil), stdout...), append([]byte(nil), stderr...)
		key := res.Key()
		if i, ok := classes[key]; ok {
			v.Classes[i].Runs++
		} else {
			classes[key] = len(v.Classes)
			v.Classes = append(v.Classes, Class{Key: key, Runs: 1, First: run.Schedule()})
		}
		if res.Outcome.Failure() {
			v.failed(run)
		}
		if visit != nil && !visit(run) {
			return v, nil
		}
		if v.Failure != nil && cfg.StopAtFailure {
			return v, nil
		}
		if tr != nil && cfg.Reduction == DPOR {
			tr.finish()
			marks = append(marks[:min(len(marks), len(prefix))], make([]bool, len(run.Points)-min(len(marks), len(prefix)))...)
			for i, m := range tr.marks(run.Points, cfg.Bound >= 0) {
				marks[i] = marks[i] || m
			}
			tr.st.moveMarks(marks)
		}
		points := run.Points
		if sleeping && tr.blocked >= 0 {
			// A sleeper ran: what follows only reorders what has run.
			points = points[:tr.blocked]
			v.blocked++
		}
		var ok bool
		if prefix, ok = next(prefix, points, cfg.Bound, marks); !ok {
			v.Complete = true
			return v, nil
		}
		if sleeping {
			sleepers = tr.sleepersAt(run.Points, len(prefix)-1)
		}
		if v.Failure != run {
			spare = run.Points // done with: the next run's
		}
	}
}

// next returns the schedule to run after the one that met points: the
// deepest point with an answer not yet tried that the bound allows, that
// answer, and the answers before it, in s's room if it has enough (the
// last schedule's, done with). It reports false when there is none: the
// walk is done.
//
// With marks (DPOR), a preempt or interleave point whose answer is 0 is
// tried with 1 only if it is marked.
func next(s Schedule, points []Point, bound int, marks []bool) (Schedule, bool) {
	return nextAbove(s, points, bound, marks, -1)
}

// nextAbove is next, choosing only among the points after point floor:
// the walk of a task that varies the answers after it (parallel.go).
func nextAbove(s Schedule, points []Point, bound int, marks []bool, floor int) (Schedule, bool) {
	before := 0 // preemptions before point i, counted down from all of them
	for _, p := range points {
		if p.preempts() {
			before++
		}
	}
	for i := len(points) - 1; i > floor; i-- {
		p := points[i]
		if p.preempts() {
			before--
		}
		a := p.Answer + 1
		if a >= p.N {
			continue
		}
		if p.Kind != runtime.ChoiceSelect && bound >= 0 && before+1 > bound {
			continue // answer 1 preempts once more than the bound allows
		}
		if p.Kind != runtime.ChoiceSelect && marks != nil && !marks[i] {
			continue // no race below the 0 that a switch here could reverse
		}
		s = emptied(s, i+1)[:i+1]
		for j := range i {
			s[j] = points[j].Answer
		}
		s[i] = a
		return s, true
	}
	return nil, false
}

// A chooser answers a run's choice points: from prefix while it lasts,
// then 0, and records every point.
type chooser struct {
	prefix Schedule
	points []Point
	err    error
}

func (c *chooser) Choose(kind runtime.ChoiceKind, g int64, n int) int {
	i := len(c.points)
	a := 0
	if i < len(c.prefix) {
		a = c.prefix[i]
		if a >= n && c.err == nil {
			c.err = fmt.Errorf("%w: choice point %d (%v, G%d) has %d answers, the schedule gives %d", ErrNondeterministic, i+1, kind, g, n, a)
			a = 0
		}
	}
	if len(c.points) == cap(c.points) {
		// Double, where append grows a long slice by a quarter: a run of
		// millions of points (a loop that never blocks) would copy its
		// points about five times over.
		c.points = append(make([]Point, 0, 2*cap(c.points)+1024), c.points...)
	}
	c.points = append(c.points, Point{Kind: kind, G: g, N: n, Answer: a})
	return a
}

// A trackingChooser is a chooser that records each transition's footprint
// for DPOR (runtime.Tracker).
type trackingChooser struct {
	*chooser
	*tracker
}

func (c *trackingChooser) Choose(kind runtime.ChoiceKind, g int64, n int) int {
	a := c.chooser.Choose(kind, g, n)
	c.chooser.points[len(c.chooser.points)-1].Alt = c.tracker.nextAlt
	c.tracker.chose()
	c.tracker.st.chose(kind, a)
	if a == 1 && kind != runtime.ChoiceSelect {
		// The switch changes Go's run queues (sleep.go).
		c.tracker.sleepTouch(runqKey{}, runtime.AccessWrite)
	}
	return a
}

// File returns r's schedule as a schedule file of the script with source
// src, run with settings (cli.Settings.ScheduleSettings).
func (r *Run) File(script string, src []byte, settings string) *schedfile.File {
	outcome := string(r.Result.Outcome)
	if r.Result.Message != "" {
		outcome += ": " + r.Result.Message
	}
	return &schedfile.File{Script: script, SHA256: schedfile.Hash(src), Settings: settings, Outcome: outcome, Choices: r.Schedule()}
}
