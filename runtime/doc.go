// Package runtime is schedlab's engine: a deterministic simulation of Go's
// M:P:G scheduler, written after the real runtime's proc.go, chan.go,
// select.go, time.go and sema.go, whose function names it keeps. It knows
// nothing of Starlark: a goroutine is a Go function (a Func) running as a
// coroutine, and package lang binds scripts to it.
//
// Start from Machine, made by NewMachine from a Config (procs, seed,
// preemption, tracer, limits): Start gives it G1, Run or Step drives it,
// Result says how it ended. A goroutine's code does what a Go program
// does (spawn, block on a channel, sleep, work, make a syscall) through
// the methods of its own *G (goapi.go). Every scheduling decision is
// reported as an Event to a Tracer. Sched is the cooperative core of the
// lesson: tasks that yield, without Ps or Ms.
//
// A run is a pure function of the program, the Config and the seed: one
// goroutine runs real code at a time, time is virtual, and every choice
// the real runtime makes by chance is drawn from one PRNG seeded by
// Config.Seed.
//
// The files:
//
//   - machine.go: Machine, Config, Result, the virtual clock and the run
//     loop (Step).
//   - costs.go: Costs, what each step of the runtime takes, as
//     distributions (ParseCosts; DefaultCosts, embedded from
//     costs_default.json).
//   - clock.go: Ps in parallel: a G's code and the runtime's work take
//     time on its P's clock.
//   - steps.go: the time slice in steps, when code takes no time:
//     sysmon's retake counted in a P's steps, and the wedge of a
//     cooperative scheduler (StepBudget, StepsSpent).
//   - runtime2.go: the G, M and P structs and the queues that link them.
//   - status.go: G and P states and the one checked transition
//     (casgstatus); InternalError, the engine's throw.
//   - proc.go: the scheduler: run queues, schedule, findRunnable,
//     stealing, spinning Ms, syscalls, sysmon, preemption.
//   - goapi.go: the goroutine's side: what a Func calls on its *G.
//   - chan.go, select.go: channels and select (chansend, chanrecv,
//     closechan, selectgo).
//   - clockend.go: the end of the virtual clock, where int64 time runs out.
//   - time.go: per-P timer heaps: sleep and after.
//   - timer.go: the timers of package time: Timer, Ticker, After, Tick,
//     AfterFunc, on synchronous channels as since Go 1.23.
//   - netpoll.go: the network poller: poll descriptors, netpollblock,
//     netpoll, the M blocked in it, sysmon's poll, deadlines.
//   - net.go: sockets and the network between hosts: Listen, Accept,
//     Dial, Read, Write, Close, as internal/poll's FD and the kernel.
//   - traffic.go: load from hosts outside the process (a wrk2 of the
//     simulated world).
//   - mgc.go: the heap a program allocates and retains, and the GC
//     cycles the pacer starts: instant, with their stop-the-world
//     pauses, or with the mark on Ps (--gc-cycle), and the mark workers.
//   - mgcmark.go: the mark work, drained by the workers and paid by the
//     goroutines that allocate during the mark (mark assists).
//   - mgclimit.go: the GC CPU limiter, a leaky bucket that turns assists
//     off when the collector has had more than half the CPU.
//   - mgcpacer.go: the pacer's arithmetic: heap goal, memory limit goal,
//     trigger, cons/mark, the mark workers' split, the assist ratio
//     (gcControllerState).
//   - mgcstats.go: the record of each GC cycle that Go's gctrace line
//     prints (GCCycleStats, Machine.OnGCCycle), filled by mgc.go's hooks.
//   - sema.go: semaphores, and the Mutex and WaitGroup built on them.
//   - syncx.go: RWMutex, Cond and x/sync's Weighted, on the same queues.
//   - startup.go: what runtime.main does before main.main (--startup=go).
//   - quota.go: the CPU quota, Linux's CFS bandwidth control.
//   - cpus.go: the machine's CPUs, which threads beyond them share.
//   - variant.go: scheduler variants, Go's rejected designs as switches.
//   - perturb.go: Perturb, the schedules timing would produce (explore).
//   - choice.go: the choice points a Chooser answers (schedlab check),
//     and the footprints a Tracker records for its partial-order reduction.
//   - statekey.go: engine objects' and timers' states written out
//     (AppendStateKey, StateTracker), for schedlab check's stutter reduction.
//   - event.go: Event, EventKind and Tracer: the event stream.
//   - snapshot.go: Snapshot of the scheduler's state, and CheckInvariants.
//   - coro.go: the task switch shared by Sched and the Machine.
//   - sched.go: Sched, the cooperative core.
//   - duration.go: virtual durations as the command line writes them.
//
// Each core file opens with an essay on the part of the real runtime it
// mirrors. docs/runtime.md maps every rule to the function of proc.go it
// follows.
package runtime
