package cli

import (
	"errors"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// errNoMachine is why --schedtrace and --scheddetail cannot run yet.
var errNoMachine = errors.New("--schedtrace and --scheddetail are not available yet: " +
	"they read the scheduler's state, and package lang does not yet hand the run's Machine to its caller (lang.Options.OnStart)")

// onStart arranges for f to be called with the run's Machine before the
// run's first event, for the views that read the scheduler's state
// rather than its events (--schedtrace takes snapshots). It reports
// whether it could.
//
// lang.RunFile makes the Machine itself and has no hook that hands it
// out yet; once lang.Options has one (OnStart func(*runtime.Machine),
// called right after runtime.NewMachine), this becomes
//
//	prev := opts.OnStart
//	opts.OnStart = func(m *runtime.Machine) { if prev != nil { prev(m) }; f(m) }
//	return true
func onStart(opts *lang.Options, f func(*runtime.Machine)) bool {
	return false
}
