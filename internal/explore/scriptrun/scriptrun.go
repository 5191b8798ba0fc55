// Package scriptrun does the runs of a sweep: it runs a compiled script
// for each explore.Run and classifies how the run ended. It is the half
// of `schedlab explore` that internal/explore, which never runs a
// script, leaves to its callers, shared by the command and the
// playground so that a sweep is the same sweep in both.
package scriptrun

import (
	"bytes"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/internal/explore"
	"github.com/schedlab/schedlab/lang"
)

// NewJob returns the function with which one job of a sweep does its
// runs of prog: each run has base's options with the Run's seed and proc
// count, and prints into buffers the job reuses from run to run. The
// language's assert is watched: a panic with the message of an assert
// that failed is an assertion failure (explore.Classify). What the run
// prints does not change.
func NewJob(prog *lang.Program, base lang.Options) func(explore.Run) explore.Result {
	var stdout, stderr bytes.Buffer
	var assertMsg string
	orig := lang.Builtins()["assert"].(*starlark.Builtin)
	watched := starlark.NewBuiltin("assert", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		v, err := orig.CallInternal(thread, args, kwargs)
		if err != nil && assertMsg == "" {
			assertMsg = err.Error()
		}
		return v, err
	})
	predeclared := starlark.StringDict{"assert": watched}
	return func(r explore.Run) explore.Result {
		stdout.Reset()
		stderr.Reset()
		assertMsg = ""
		opts := base
		opts.Seed, opts.Procs = r.Seed, r.Procs
		opts.Stdout, opts.Stderr = &stdout, &stderr
		opts.Predeclared = predeclared
		res := prog.Run(opts)
		return explore.Classify(res.ExitCode, stdout.Bytes(), stderr.Bytes(), assertMsg)
	}
}
