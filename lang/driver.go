// A run that pauses after a scheduling event: the REPL's :step and the
// playground's Step.
//
// A Driver runs work on a goroutine of its own, the driver, for a host
// that hands it the work and waits. The work drives a run's Machine (a
// Session's world steps it; the playground's stepper runs RunFile), and
// the run's tracer may pause it right after an event, in the middle of
// the action that emitted it (Pause, on the run's goroutine: the driver,
// or the coroutine of the G the Machine runs). Then the host reads the
// Machine, which stands still, and later lets the work go on (Resume).
// Channel operations order the two sides, so exactly one of them touches
// the run at any time, and whatever the host writes before Resume the
// work reads after Pause returns (a Session's next goal, the stepper's
// next target, a request to stop).
//
// Stopping a run that is paused is the run's own business: a Session
// finishes the action and closes its world; the stepper closes its
// run's Options.Cancel and resumes it, so that it ends at its next
// instruction.

package lang

// A Driver runs work on a goroutine of its own that the work can pause,
// from the run's tracer, right after a scheduling event, while the host
// reads the run. Its methods but Pause are the host's and must be called
// from one goroutine.
type Driver struct {
	work    chan func()   // host → driver: run this
	done    chan struct{} // driver → host: it returned
	pausedc chan struct{} // work → host: paused
	resumec chan struct{} // host → work: go on
	paused  bool          // host side: the work is paused
}

// NewDriver starts a driver, waiting for work.
func NewDriver() *Driver {
	d := &Driver{
		work:    make(chan func()),
		done:    make(chan struct{}),
		pausedc: make(chan struct{}),
		resumec: make(chan struct{}),
	}
	go func() {
		for f := range d.work {
			f()
			d.done <- struct{}{}
		}
	}()
	return d
}

// Do runs f on the driver and waits until f returns or pauses. It
// reports whether f paused. No work may be paused.
func (d *Driver) Do(f func()) bool {
	d.work <- f
	return d.wait()
}

// Resume lets the paused work go on, and waits as Do does.
func (d *Driver) Resume() bool {
	d.resumec <- struct{}{}
	return d.wait()
}

// Paused reports whether the work is paused: the last Do or Resume
// returned at a Pause.
func (d *Driver) Paused() bool { return d.paused }

// Pause hands the run to the host until it calls Resume. The work calls
// it, from the run's tracer, while the host waits in Do or Resume.
func (d *Driver) Pause() {
	d.pausedc <- struct{}{}
	<-d.resumec
}

// Close ends the driver's goroutine. No work may be paused.
func (d *Driver) Close() { close(d.work) }

func (d *Driver) wait() bool {
	select {
	case <-d.done:
		d.paused = false
	case <-d.pausedc:
		d.paused = true
	}
	return d.paused
}
