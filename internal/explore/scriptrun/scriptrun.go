// Package scriptrun does the runs of a sweep: it runs a compiled script
// for each explore.Run and classifies how the run ended. It is the half
// of `schedlab explore` that internal/explore, which never runs a
// script, leaves to its callers, shared by the command, the playground
// and the latency lab (internal/lab) so that a sweep is the same sweep in
// each.
//
// Start from NewJob, the function a sweep's job calls for each run; a
// caller that sets more of each run's options than its seed and procs,
// or reads more of it than its outcome, uses a Job directly.
package scriptrun

import (
	"bytes"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/internal/explore"
	"github.com/schedlab/schedlab/lang"
)

// A Job does runs of one program, one after another, printing into
// buffers it reuses from run to run. The language's assert is watched: a
// panic with the message of an assert that failed is an assertion
// failure (explore.Classify). What the run prints does not change. A Job
// is not for two goroutines at once: a sweep makes one per job.
type Job struct {
	prog           *lang.Program
	stdout, stderr bytes.Buffer
	assertMsg      string
	predeclared    starlark.StringDict
}

// New returns a Job that runs prog.
func New(prog *lang.Program) *Job {
	j := &Job{prog: prog}
	orig := lang.Builtins()["assert"].(*starlark.Builtin)
	watched := starlark.NewBuiltin("assert", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		v, err := orig.CallInternal(thread, args, kwargs)
		if err != nil && j.assertMsg == "" {
			j.assertMsg = err.Error()
		}
		return v, err
	})
	j.predeclared = starlark.StringDict{"assert": watched}
	return j
}

// Run runs the program with opts, but with the job's buffers as its
// Stdout and Stderr and the watched assert among its Predeclared names,
// and returns how the run ended, classified, and lang's own result.
func (j *Job) Run(opts lang.Options) (explore.Result, *lang.Result) {
	j.stdout.Reset()
	j.stderr.Reset()
	j.assertMsg = ""
	opts.Stdout, opts.Stderr = &j.stdout, &j.stderr
	opts.Predeclared = j.predeclared
	res := j.prog.Run(opts)
	return explore.Classify(res.ExitCode, j.stdout.Bytes(), j.stderr.Bytes(), j.assertMsg), res
}

// NewJob returns the function with which one job of a sweep does its
// runs of prog: each run has base's options with the Run's seed and proc
// count (a Job's run).
func NewJob(prog *lang.Program, base lang.Options) func(explore.Run) explore.Result {
	j := New(prog)
	return func(r explore.Run) explore.Result {
		opts := base
		opts.Seed, opts.Procs = r.Seed, r.Procs
		res, _ := j.Run(opts)
		return res
	}
}

// Output returns what the last run printed on stdout and stderr. The
// slices are the job's buffers: the next run overwrites them.
func (j *Job) Output() (stdout, stderr []byte) { return j.stdout.Bytes(), j.stderr.Bytes() }
