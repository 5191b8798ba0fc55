// Package cli holds what the schedlab command does with its flags: the
// settings of one run, their flags, the `# schedlab:` directive that sets a
// script's defaults, and Run, which is `schedlab run`. It is a package of its
// own so that the golden-file harness (package golden) can run a script
// exactly as `schedlab run --trace` does, with the same code.
//
// Start from Settings, the flags of one run (NewSettings holds the
// defaults), and Settings.Options, the one function that turns them into
// lang.Options, for `schedlab run`, `schedlab test`, each run of `schedlab
// explore` and the REPL's world. A Host says what the runs may do to the
// process they run in: the command's may end it at a memory overrun, a
// test's may not. Run (or Host.Run) is `schedlab run` itself.
//
// Adding a run flag takes a field in Settings and one line in
// (*Settings).register, then the use of the value in Settings.Options or
// in runScript (an output file is one more entry in its table of
// outputs). A flag that changes the run also gets a line in
// (*Settings).Header, so that the trace names it; one that writes a file
// goes in fileFlags, so that directives cannot set it.
//
// The files:
//
//   - settings.go: Settings, their flags and the flag types (on/off,
//     ranges, durations, sizes), the trace Header, Host and Options.
//   - run.go: Run, the command line and the directives, and runScript
//     with its table of output sinks.
//   - directive.go: reading the `# schedlab:` lines of a script.
//   - costs.go: --costs: the default profile, zero, or a profile file.
//   - params.go: --param NAME=VALUE, the script's parameters.
//   - schedule.go: --choices and --schedule, a schedule to replay
//     (schedlab check), and the settings a schedule file must match.
//   - output.go: output files, checked before the run so that none
//     overwrites an input or another output.
//   - interrupt.go: SIGINT and its exit status.
//   - compare.go: `schedlab compare`, one script under several
//     scheduler variants, one table.
//   - perturb.go: the --perturb presets, ScriptSettings and RegisterFlags,
//     which explore uses to start each run as `schedlab run` would.
//   - determinism.go: --check-determinism.
//   - views.go: RunViews and PageSettings, a run's views as the
//     playground shows them (with and without --trace, the timeline).
package cli
