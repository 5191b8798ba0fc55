package check

// The naive walk on several cores.
//
// The depth-first walk (Walk) is one order over the schedules: after a
// run, the deepest point with an answer not yet tried, then its subtree,
// then the next answer there, then shallower points. That order splits
// into blocks that can run at once. Call the walk of the subtrees below a
// point a task: a prefix, and a floor, the point above which it varies
// answers. The whole walk is one task (no prefix, floor -1). A task in
// progress can give away the answers not yet tried at the shallowest
// point above its floor that has any: each becomes a task of its own
// (that prefix, that answer, floor at the point), the giver's floor moves
// down to that point, and in the walk's order the new tasks come right
// after the giver, in the order of their answers, and before what came
// after it. The giver's walk is the one it would have done without them,
// stopped where it would have reached that point; each new task walks
// what the giver would have walked there. So the blocks, each a task's
// runs in its own order, put end to end in the list's order, are the
// sequential walk's runs, in its order, whenever and wherever the tasks
// ran and however they were split.
//
// A worker gives work away when another worker has none. The caller's
// goroutine reads the tasks' runs in the list's order as they finish and
// makes the verdict exactly as Walk does: the first failure in the order,
// the classes in the order they were met, the count at MaxSchedules. So
// the verdict, and the order visit sees the runs in, are the same for any
// number of workers. Runs past the end (a failure with StopAtFailure,
// MaxSchedules) are thrown away: the tasks after it are stopped, and a run
// in progress finishes first.
//
// Only the naive walk splits: with DPOR a run's races mark points of the
// runs before it, so the walk's order is its own (dpor.go).

import (
	"fmt"
	"sync"

	"github.com/schedlab/schedlab/internal/explore"
	"github.com/schedlab/schedlab/internal/explore/scriptrun"
	"github.com/schedlab/schedlab/runtime"
)

// A task is a block of the walk: the runs of the schedules that extend
// prefix and differ from each other only after point floor.
type task struct {
	prefix Schedule
	floor  int
	next   *task // the task after it in the walk's order

	started, done bool
	runs          []*Run // its runs, in order; a run read only for its class is its class's first in the task
	firsts        []bool // by run: the first of its class in this task
	err           error  // a replay that did not fit (ErrNondeterministic)
	hostLimit     string // a limit of the host's stopped its last run
	interrupted   bool   // the walk was stopped before the task was done
	capped        bool   // it stopped at MaxSchedules runs, with more to run
}

// parallelWalk is the state the workers share.
type parallelWalk struct {
	cfg   Config
	visit bool // keep every run's points, for visit

	mu      sync.Mutex
	cond    *sync.Cond
	head    *task // the first task not yet read
	idle    int   // workers waiting for a task
	stopped bool  // the verdict is made, or the walk was stopped: no more runs
	once    sync.Once
}

// walkParallel is Walk's naive walk on cfg.Jobs workers.
func walkParallel(cfg Config, visit func(*Run) bool) (*Verdict, error) {
	pw := &parallelWalk{cfg: cfg, visit: visit != nil}
	pw.cond = sync.NewCond(&pw.mu)
	pw.head = &task{floor: -1}
	for _, stop := range []<-chan struct{}{cfg.Stop, cfg.Options.Cancel} {
		if stop == nil {
			continue
		}
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-stop:
				pw.stop()
			case <-done:
			}
		}()
	}
	var wg sync.WaitGroup
	for range cfg.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pw.work()
		}()
	}
	v, err := pw.read(visit)
	pw.stop()
	wg.Wait()
	return v, err
}

// stop ends the walk: no run starts.
func (pw *parallelWalk) stop() {
	pw.once.Do(func() {
		pw.mu.Lock()
		pw.stopped = true
		pw.cond.Broadcast()
		pw.mu.Unlock()
	})
}

// work runs tasks until the walk is stopped or no task is left.
func (pw *parallelWalk) work() {
	job := scriptrun.New(pw.cfg.Program)
	var spare []Point
	for {
		pw.mu.Lock()
		t := pw.nextTask()
		for t == nil && !pw.stopped && !pw.allDone() {
			pw.idle++
			pw.cond.Wait()
			pw.idle--
			t = pw.nextTask()
		}
		if t == nil || pw.stopped {
			pw.mu.Unlock()
			return
		}
		t.started = true
		pw.mu.Unlock()
		spare = pw.run(job, t, spare)
		pw.mu.Lock()
		t.done = true
		pw.cond.Broadcast()
		pw.mu.Unlock()
	}
}

// nextTask returns the first task in the walk's order not yet started, nil
// if none. pw.mu is held.
func (pw *parallelWalk) nextTask() *task {
	for t := pw.head; t != nil; t = t.next {
		if !t.started {
			return t
		}
	}
	return nil
}

// allDone reports whether every task is done. pw.mu is held.
func (pw *parallelWalk) allDone() bool {
	for t := pw.head; t != nil; t = t.next {
		if !t.done {
			return false
		}
	}
	return true
}

// run walks task t's schedules depth first, as Walk does, giving work away
// when a worker waits for some. It returns the points' buffer to reuse.
func (pw *parallelWalk) run(job *scriptrun.Job, t *task, spare []Point) []Point {
	cfg := pw.cfg
	prefix := t.prefix
	classes := map[explore.Key]*Run{} // each class's first run in the task
	lastPoints := 0
	for {
		pw.mu.Lock()
		stopped := pw.stopped
		pw.mu.Unlock()
		if stopped {
			t.interrupted = true
			return spare
		}
		ch := &chooser{prefix: prefix, points: emptied(spare, lastPoints+lastPoints/8)}
		opts := cfg.Options
		opts.Chooser = ch
		if opts.Cancel == nil {
			// As Walk's runs: a run in progress when the walk ends
			// for another reason finishes (a cancel channel costs each
			// run a goroutine).
			opts.Cancel = cfg.Stop
		}
		res, lres := job.Run(opts)
		if ch.err != nil {
			t.err = ch.err
			return nil
		}
		if hl := lres.HostLimit; hl != nil {
			if hl.What == "interrupt" {
				t.interrupted = true
			} else {
				t.hostLimit = hl.Msg
			}
			return nil
		}
		if len(ch.points) < len(prefix) {
			t.err = fmt.Errorf("%w: schedule %v ended after %d of its %d choice points", ErrNondeterministic, prefix, len(ch.points), len(prefix))
			return nil
		}
		points := ch.points
		lastPoints = len(points)
		key := res.Key()
		firstRun, seen := classes[key]
		if !pw.visit && seen && !res.Outcome.Failure() {
			// read only for its class, which the class's first run in
			// the task gives: a walk of a million schedules keeps a
			// pointer a run, not a million runs and their output
			t.runs = append(t.runs, firstRun)
		} else {
			run := &Run{Points: append([]Point(nil), points...), Result: res}
			stdout, stderr := job.Output()
			run.Stdout, run.Stderr = append([]byte(nil), stdout...), append([]byte(nil), stderr...)
			if !seen {
				classes[key] = run
			}
			t.runs = append(t.runs, run)
		}
		t.firsts = append(t.firsts, !seen)
		if res.Outcome.Failure() && cfg.StopAtFailure {
			return points
		}
		pw.mu.Lock()
		if pw.idle > 0 && pw.nextTask() == nil {
			pw.give(t, points)
		}
		pw.mu.Unlock()
		var ok bool
		if prefix, ok = nextAbove(prefix, points, cfg.Bound, nil, t.floor); !ok {
			return points
		}
		if cfg.MaxSchedules > 0 && len(t.runs) >= cfg.MaxSchedules {
			t.capped = true // the walk ends in this task or before it, incomplete
			return points
		}
		spare = points
	}
}

// give makes tasks of the answers not yet tried at the shallowest point
// of t above its floor that has any, after the run that met points, and
// puts them after t in the walk's order; t's floor moves down to the
// point. pw.mu is held.
func (pw *parallelWalk) give(t *task, points []Point) {
	before := 0 // preemptions before point j
	for j, p := range points {
		if j > t.floor {
			var given []*task
			for a := p.Answer + 1; a < p.N; a++ {
				if p.Kind != runtime.ChoiceSelect && pw.cfg.Bound >= 0 && before+1 > pw.cfg.Bound {
					break // as next: one preemption more than the bound allows
				}
				prefix := make(Schedule, j+1)
				for i := range j {
					prefix[i] = points[i].Answer
				}
				prefix[j] = a
				given = append(given, &task{prefix: prefix, floor: j})
			}
			if len(given) > 0 {
				for i := len(given) - 1; i >= 0; i-- {
					given[i].next, t.next = t.next, given[i]
				}
				t.floor = j
				pw.cond.Broadcast()
				return
			}
		}
		if p.preempts() {
			before++
		}
	}
}

// read makes the verdict from the tasks' runs in the walk's order, as
// they finish, and calls visit on each.
func (pw *parallelWalk) read(visit func(*Run) bool) (*Verdict, error) {
	cfg := pw.cfg
	v := &Verdict{}
	classes := map[explore.Key]int{}
	pw.mu.Lock()
	defer pw.mu.Unlock()
	for t := pw.head; ; {
		for !t.done && (t.started || !pw.stopped) {
			pw.cond.Wait()
		}
		if !t.done { // stopped before it started
			v.Interrupted = true
			return v, nil
		}
		pw.mu.Unlock()
		for i, run := range t.runs {
			if cfg.MaxSchedules > 0 && v.Schedules >= cfg.MaxSchedules {
				pw.mu.Lock()
				return v, nil
			}
			v.Schedules++
			if cfg.Progress != nil {
				cfg.Progress(v.Schedules)
			}
			key := run.Result.Key()
			if c, ok := classes[key]; ok {
				v.Classes[c].Runs++
			} else {
				if !t.firsts[i] {
					panic("check: a class's first run in the walk is not its task's first")
				}
				classes[key] = len(v.Classes)
				v.Classes = append(v.Classes, Class{Key: key, Runs: 1, First: run.Schedule()})
			}
			if run.Result.Outcome.Failure() {
				v.failed(run)
			}
			if visit != nil && !visit(run) {
				pw.mu.Lock()
				return v, nil
			}
			if v.Failure != nil && cfg.StopAtFailure {
				pw.mu.Lock()
				return v, nil
			}
		}
		pw.mu.Lock()
		switch {
		case t.err != nil:
			return v, t.err
		case t.hostLimit != "":
			v.HostLimit = fmt.Sprintf("schedule %d reached a limit of the host's: %s", v.Schedules+1, t.hostLimit)
			return v, nil
		case t.interrupted:
			v.Interrupted = true
			return v, nil
		case t.capped:
			return v, nil // at MaxSchedules, with more to run
		}
		if t.next == nil {
			v.Complete = true
			return v, nil
		}
		t = t.next
		pw.head = t // what is read is no one's
	}
}
