// Package lang is schedlab's language: Starlark scripts whose goroutines
// run on the simulated scheduler of package runtime. It loads a script and
// the modules it loads, binds the builtins (spawn, gosched, chan, select,
// sleep, work, syscall, mutex, waitgroup, ...), runs the top level as the
// main goroutine G1 on a runtime.Machine, and reports how the run ended in
// Go's own words: a panic with its Starlark backtrace, a deadlock with its
// goroutine dump, the goroutines still alive or leaked, a limit.
//
// Start from RunFile, which is what `schedlab run` does with a script, and
// Options, which configure a run (procs, seed, preemption, tracer,
// limits). Compile makes a Program that runs many times (explore's seeds).
// A Session is the REPL's world: G1 runs one statement at a time, and the
// host steps the scheduler between statements. Every run, whoever drives
// it, is built by the same construction in run.go.
//
// The files:
//
//   - api.go: Options, Result, RunFile, Compile and Program, and runMain,
//     which runs a compiled script to its end (runMachine).
//   - run.go: one run: the construction of its Machine, G1 and threads
//     (start, machineConfig, newThread), each goroutine as a Starlark
//     thread, and its steps: told to the engine, which decides the time
//     slice and its preemption (account, arm, blocking), and counted
//     against the limits.
//   - builtins.go: the builtins, in one literal table.
//   - values.go: the value types: task, chan, select_case, mutex,
//     waitgroup.
//   - syncx.go: the rest of sync: rwmutex, cond, once, atomic_int,
//     semaphore, and waitgroup's go.
//   - context.go: package context's cancellation: background,
//     with_cancel, with_timeout, with_deadline.
//   - timer.go: package time's timers: timer, ticker, tick, after_func,
//     and nil_chan.
//   - gofmt.go: printing the Go way: printf, sprintf, println.
//   - net.go: the network as a script sees it: listen, dial, listeners,
//     connections, their error values.
//   - traffic.go: traffic(), load from outside the process.
//   - param.go: param(name, default), a value the command line sets.
//   - rand.go: rand, seeded randomness for scripts.
//   - gc.go: the heap and the collector: alloc, retain, release, gc,
//     gogc, memlimit.
//   - stdlib.go: Starlark's standard modules math, json, struct and a
//     time without the host's clock and zones; a module's missing field.
//   - sched.go: sched(), the snapshot of every P and M that scripts read,
//     as a frozen struct (SchedValue); :runq, :ms and the playground use
//     internal/views.
//   - duration.go: durations as builtins take them ("1ms", 1000).
//   - source.go: reading and bounding source text (ReadScript, the size
//     limit), the one place that reads the script's files.
//   - shared.go: whether goroutines may share a changing plain value
//     (Program.SharedPlainState), for schedlab check's reduction.
//   - statekey.go: a goroutine's Starlark state at a safe point, written
//     out (AppendStateKey), for schedlab check's stutter reduction.
//   - stepkind.go: the kind of statement on each line, so that a profile
//     that charges a step by its kind (runtime.StepKind) is told which
//     kind a goroutine's steps are.
//   - load.go: compiling a script and the modules it loads, confined to
//     its directory tree, before anything runs; a name used before the
//     load that binds it.
//   - report.go: how a run ends, in Go's words: compile errors, panics,
//     deadlocks, goroutine dumps, exit statuses; a REPL statement's
//     error as a panic of G1 (FormatPanic).
//   - gohints.go: answers for Go habits: a syntax error with its source
//     line, a caret and hints; ch <- v refused at load time; a hint line
//     in the panics of habits that load (runtimeHint); the warning about
//     a bare small int given as a duration (smallDuration).
//   - leak.go: Go 1.26's goroutine leak detection, by walking the
//     Starlark values reachable from the goroutines that can still run.
//   - overrun.go: host limits (the wall-clock timeout, --max-memory) that
//     one call outlasts, and SIGINT; Starlark's builtins as they park the
//     calling thread's run in their calls, the only time the overrun may
//     read its goroutine dump.
//   - memory.go: the memory limit's watchdog; memory_linux.go and
//     memory_other.go read the resident set where there is one.
//   - host_js.go, host_other.go: giving the host's scheduler a turn on
//     js/wasm (the playground), where it does not preempt.
//   - gotrace.go: the goroutines' Starlark stacks for --go-trace.
//   - session.go: the REPL's Session: items, undo by replay, stepping.
//   - driver.go: Driver, a run on a goroutine of its own that pauses
//     after a scheduling event while the host reads it: the Session's
//     worlds and the playground's stepper.
//
// Each file opens with an essay on what it holds. docs/language.md is the
// reference for users.
package lang
