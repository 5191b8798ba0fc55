// The end of the virtual clock.
//
// Virtual time is an int64 count of nanoseconds, as Go's nanotime is, and a
// deadline computed as now+d could wrap past 2^63-1 into the past:
// sleep(1 << 62) twice would print a negative now(). The real runtime
// saturates instead: when(d) in time.go returns maxWhen (1<<63 - 1) for
// a deadline that overflows, and a timer set there never fires in
// practice, because the clock never gets there. The Machine follows it:
// every deadline (a timer's, the end of work or a syscall, any action) is
// computed by when and saturates at maxWhen, and so does every sum that
// makes one: a deadline plus the cost model's timer lateness (addtimer),
// a wake-up plus newm (startm), a ticker's next tick. A sum that wrapped
// would put the action in the past: the timer's wake-up would run at
// once, find nothing due and leave the sleeper with nothing to wake it,
// a false deadlock. Since a simulation does
// reach the end of its clock when nothing else is left, the run stops
// there with a limit (Step): "virtual time limit of 2562047h47m16.854775807s
// reached", the largest time.Duration, about 292 years. now() never
// wraps, and never reaches maxWhen itself.

package runtime

import (
	"fmt"
	"math"
)

// maxWhen is the end of the virtual clock, as in time.go.
const maxWhen = math.MaxInt64

// when returns the virtual time d ns from now, saturated at maxWhen.
// Mirrors when in time.go.
func (m *Machine) when(d int64) int64 {
	if d <= 0 {
		return m.now
	}
	if d > maxWhen-m.now {
		return maxWhen
	}
	return m.now + d
}

// addWhen returns t+d saturated at maxWhen, for t and d not negative: a
// deadline d after t (a ticker's next tick, a timer's deadline plus its
// lateness) or the sum of two durations (a wake-up and newm).
func addWhen(t, d int64) int64 {
	if d > maxWhen-t {
		return maxWhen
	}
	return t + d
}

// AddTime returns the virtual time d ns after t (before it, for d < 0),
// saturated at the ends of the int64 clock instead of wrapping: for a
// deadline the language computes itself, as context.WithTimeout computes
// now+d (time.Time.Add never wraps either). A deadline at the end of the
// clock is never reached: the run stops there with a limit.
func AddTime(t, d int64) int64 {
	switch {
	case d > 0 && t > maxWhen-d:
		return maxWhen
	case d < 0 && t < math.MinInt64-d:
		return math.MinInt64
	}
	return t + d
}

// clockEndError is the limit of a run whose next action is at the end of
// the virtual clock: nothing can happen before it.
func clockEndError() *LimitError {
	return &LimitError{What: "virtual time", Msg: fmt.Sprintf(
		"virtual time limit of %s reached: the end of the virtual clock (2^63-1 ns, the largest time.Duration), and every goroutine left waits beyond it",
		FormatDuration(maxWhen))}
}
