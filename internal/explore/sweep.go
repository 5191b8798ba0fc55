package explore

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// SweepOptions say how a sweep is run.
type SweepOptions struct {
	Jobs     int  // runs at once; less than 1 means 1
	FailFast bool // stop at the first failure (the lowest failing run index)
	Policy   Policy

	// Progress, if not nil, is called after each run, from the job that
	// did it, with the number of runs done so far.
	Progress func(done int)

	// Stop, if not nil, ends the sweep early once it is closed (the
	// command's SIGINT): no run starts after it, the runs under way
	// finish, and the tally is of the runs before the first that did not
	// start, with Interrupted set.
	Stop <-chan struct{}
}

// A Tally is what a sweep found: its classes, with their counts and first
// runs.
type Tally struct {
	Done    int  // runs tallied: the whole shard, or up to the first failure with FailFast
	Stopped bool // FailFast or Stop ended the sweep before the end of the shard
	// Interrupted: Stop ended the sweep.
	Interrupted bool
	Classes     []Class // in report order (see sortClasses)
	Policy      Policy  // how the runs were classed and judged
}

// A Class is the runs of a sweep that ended alike.
type Class struct {
	Key              // as the policy groups it
	First   Run      // the run with the lowest index
	Example Key      // the full key of the first run, for the report
	Count   int      // runs in the class
	Digest  [32]byte // what the first run printed (Result.Digest)
	Text    string   // the first run's stdout (Result.Text)
}

// Sweep does the runs of p's shard and tallies them. newJob is called once
// for each of opt.Jobs goroutines and returns the function that job calls
// to do a run; such a function is never called by two goroutines at once.
//
// The tally does not depend on opt.Jobs or on the order in which runs
// finish. With FailFast, the sweep stops at the failing run with the lowest
// index: runs after it are not counted even if they were done, and every
// run before it is waited for, so that the tally is the same as a
// one-job sweep's that stopped there.
func Sweep(p *Plan, newJob func() func(Run) Result, opt SweepOptions) *Tally {
	lo, hi := p.Range()
	jobs := min(max(opt.Jobs, 1), max(hi-lo, 1))

	var (
		next       atomic.Int64 // the next run index to take
		stop       atomic.Int64 // runs at this index and beyond are not needed
		done       atomic.Int64
		wasStopped atomic.Bool // Stop was seen
		mu         sync.Mutex  // guards ids and classes
		ids        = map[Key]int32{}
		cls        []Class
		runOf      = make([]int32, hi-lo) // class id of each run of the shard
	)
	next.Store(int64(lo))
	stop.Store(int64(hi))

	var wg sync.WaitGroup
	for range jobs {
		do := newJob()
		wg.Go(func() {
			for {
				if interrupted(opt.Stop) {
					// Every run below next was taken, and will be
					// waited for: the tally stays a prefix.
					wasStopped.Store(true)
					for s, n := stop.Load(), next.Load(); n < s && !stop.CompareAndSwap(s, n); s, n = stop.Load(), next.Load() {
					}
					return
				}
				i := next.Add(1) - 1
				if i >= stop.Load() {
					return
				}
				run := p.Run(int(i))
				res := do(run)

				mu.Lock()
				key := opt.Policy.Key(res.Key())
				id, ok := ids[key]
				if !ok {
					id = int32(len(cls))
					ids[key] = id
					cls = append(cls, Class{Key: key, First: Run{Index: math.MaxInt}})
				}
				if c := &cls[id]; run.Index < c.First.Index {
					c.First, c.Digest, c.Example, c.Text = run, res.Digest, res.Key(), res.Text
				}
				mu.Unlock()
				runOf[i-int64(lo)] = id

				if opt.FailFast && opt.Policy.Failure(res.Outcome) {
					for s := stop.Load(); i+1 < s && !stop.CompareAndSwap(s, i+1); s = stop.Load() {
					}
				}
				if opt.Progress != nil {
					opt.Progress(int(done.Add(1)))
				}
			}
		})
	}
	wg.Wait()

	n := int(stop.Load()) - lo
	t := &Tally{Done: n, Stopped: n < hi-lo, Interrupted: wasStopped.Load() && n < hi-lo, Policy: opt.Policy}
	for _, id := range runOf[:n] {
		cls[id].Count++
	}
	for _, c := range cls {
		if c.Count > 0 {
			t.Classes = append(t.Classes, c)
		}
	}
	sortClasses(t.Classes, opt.Policy)
	return t
}

// interrupted reports whether stop is closed.
func interrupted(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// sortClasses puts classes in report order: failures first, then the
// others, each by their first run.
func sortClasses(cs []Class, p Policy) {
	slices.SortFunc(cs, func(a, b Class) int {
		if fa, fb := p.Failure(a.Outcome), p.Failure(b.Outcome); fa != fb {
			if fa {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.First.Index, b.First.Index)
	})
}
