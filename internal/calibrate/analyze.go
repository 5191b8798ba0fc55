package calibrate

import (
	"fmt"
	"slices"
	"sort"

	"github.com/schedlab/schedlab/internal/realtrace"
)

// The analysis: from a probe's trace, the runtime's steps as samples.
//
// Each function finds the probe's goroutines by their log lines (probes.go)
// and measures between two events of the trace, as the doc comment of each
// says. None looks at the probe's own clock readings: those are the
// end-to-end samples that the level correction compares (calibrate.go).

// logs returns the probe's log lines with message msg (all if msg is "").
func logs(tr *realtrace.Trace, msg string) []realtrace.Log {
	var out []realtrace.Log
	for _, l := range tr.Logs {
		if l.Category == logCat && (msg == "" || l.Message == msg) {
			out = append(out, l)
		}
	}
	return out
}

// logGs returns the goroutines that logged msg.
func logGs(tr *realtrace.Trace, msg string) map[int64]bool {
	gs := map[int64]bool{}
	for _, l := range logs(tr, msg) {
		gs[l.G] = true
	}
	return gs
}

// spawnGaps returns the time between two consecutive goroutine creations
// by a spawner of probeSpawn (GoCreate to GoCreate), when the spawner did
// nothing else the trace sees in between: one newproc and one clock
// reading.
func spawnGaps(tr *realtrace.Trace) []float64 {
	spawners := logGs(tr, "spawn")
	marks := logs(tr, "spawn")
	last := map[int64]int64{} // spawner -> time of its last creation, this round
	var out []float64
	li := 0
	for _, t := range tr.Transitions {
		for ; li < len(marks) && marks[li].Time <= t.Time; li++ {
			delete(last, marks[li].G) // a new round
		}
		switch {
		case spawners[t.G]:
			delete(last, t.G) // the spawner itself stopped or blocked
		case t.From == realtrace.NotExist && t.To == realtrace.Runnable && spawners[t.By]:
			if prev, ok := last[t.By]; ok {
				out = append(out, float64(t.Time-prev))
			}
			last[t.By] = t.Time
		}
	}
	return out
}

// switchGaps returns, for the two goroutines that logged msg, the time
// from one leaving its thread (GoBlock when to is Waiting, GoStop when to
// is Runnable, with the given reason unless it is "") to the other
// starting on the same thread and P (GoStart).
func switchGaps(tr *realtrace.Trace, msg string, to realtrace.State, reason string) []float64 {
	gs := logGs(tr, msg)
	var out []float64
	for _, s := range tr.Switches() {
		if gs[s.From] && gs[s.To] && s.From != s.To && s.SameP && s.FromTo == to && (reason == "" || s.Reason == reason) {
			out = append(out, float64(s.Start-s.Left))
		}
	}
	return out
}

// wakeParts are the steps of probeWake's wake-ups, by the round's class.
type wakeParts struct {
	wakeup map[string][]float64 // ready (GoUnblock) to the idle P's start (ProcStart): startm until the woken M runs schedule
	steal  map[string][]float64 // the P's start to the readied G's start on it (GoStart): the steal of runnext
	total  map[string][]float64 // ready to start
	skip   map[string]int       // rounds left out, by why
}

// analyzeWake measures each round of probeWake: after the waker's "wake"
// log, its first ready of a goroutine (the sleeper), and the dispatch that
// follows. Only rounds in which the sleeper ran on another P, which was
// idle at the ready and started after it, are wake-ups.
func analyzeWake(tr *realtrace.Trace) wakeParts {
	w := wakeParts{
		wakeup: map[string][]float64{}, steal: map[string][]float64{}, total: map[string][]float64{},
		skip: map[string]int{},
	}
	byP := map[int64][]realtrace.ProcRun{}
	for _, r := range tr.ProcRuns() {
		byP[r.P] = append(byP[r.P], r)
	}
	ds := tr.Dispatches()
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Ready < ds[j].Ready })
	all := logs(tr, "")
	for i, l := range all {
		if l.Message != "wake" {
			continue
		}
		class := ""
		for _, l2 := range all[i+1:] {
			if l2.G == l.G && len(l2.Message) > 6 && l2.Message[:6] == "round " {
				class = l2.Message[6:]
				break
			}
		}
		if class == "" || class == "skip" {
			w.skip["not a round"]++
			continue
		}
		k := sort.Search(len(ds), func(k int) bool { return ds[k].Ready >= l.Time })
		for ; k < len(ds) && !(ds[k].By == l.G && ds[k].Cause == realtrace.Waiting); k++ {
		}
		if k == len(ds) || !ds[k].Started {
			w.skip["no ready"]++
			continue
		}
		d := ds[k]
		if d.StartP == d.ReadyP || d.StartP == realtrace.None {
			w.skip["ran on the waker's P"]++
			continue
		}
		runs := byP[d.StartP]
		j := sort.Search(len(runs), func(j int) bool { return runs[j].Start > d.Start }) - 1
		if j < 0 || runs[j].Partial || runs[j].Start < d.Ready {
			w.skip["the other P was not idle"]++
			continue
		}
		run := runs[j]
		w.wakeup[class] = append(w.wakeup[class], float64(run.Start-d.Ready))
		w.steal[class] = append(w.steal[class], float64(d.Start-run.Start))
		w.total[class] = append(w.total[class], float64(d.Start-d.Ready))
	}
	return w
}

// stealTries is the number of passes stealWork makes over the other Ps
// (proc.go, stealTries).
const stealTries = 4

// stealPasses returns the fruitless runs of a P: it started (a spinning M
// took it), ran no goroutine and stopped again, which is one findRunnable
// of a spinning M whose stealWork found nothing; a quarter of it is one
// of stealWork's passes. Runs outside the probe's logs (the trace's start
// and stop) are left out.
func stealPasses(tr *realtrace.Trace) []float64 {
	ls := logs(tr, "")
	if len(ls) == 0 {
		return nil
	}
	from, to := ls[0].Time, ls[len(ls)-1].Time
	var out []float64
	for _, r := range tr.ProcRuns() {
		if r.Partial || !r.Stopped || r.Starts > 0 || r.Start < from || r.Stop > to {
			continue
		}
		out = append(out, float64(r.Stop-r.Start)/stealTries)
	}
	return out
}

// syscallParts returns the two halves of the runtime's share of each
// syscall of probeSyscall, within a batch: enter is the span the trace
// puts inside the syscall (GoSyscallBegin to GoSyscallEnd) less the
// kernel's time kernel, exit the span from GoSyscallEnd to the next
// GoSyscallBegin. The last syscall of a batch has no exit.
func syscallParts(tr *realtrace.Trace, kernel float64) (enter, exit []float64) {
	marks := logs(tr, "syscall")
	gs := logGs(tr, "syscall")
	var prev *realtrace.SyscallSpan
	mi := 0
	spans := tr.Syscalls()
	for i := range spans {
		s := &spans[i]
		if !gs[s.G] || !s.Ended || s.Blocked {
			prev = nil
			continue
		}
		newBatch := false
		for ; mi < len(marks) && marks[mi].Time <= s.Begin; mi++ {
			newBatch = true
		}
		if prev != nil && !newBatch && prev.G == s.G {
			exit = append(exit, float64(s.Begin-prev.End))
		}
		enter = append(enter, float64(s.End-s.Begin)-kernel)
		prev = s
	}
	return enter, exit
}

// timerLates returns how late each sleep of probeTimers was readied
// (GoBlock "sleep" to GoUnblock, less the duration), by class.
func timerLates(tr *realtrace.Trace, rounds int) (map[string][]float64, error) {
	gs := logGs(tr, "timers")
	var blocks []realtrace.Block
	for _, b := range tr.Blocks() {
		if gs[b.G] && b.Reason == "sleep" && b.Unblocked {
			blocks = append(blocks, b)
		}
	}
	if want := rounds * len(timerDurations); len(blocks) != want {
		return nil, fmt.Errorf("timer probe: %d sleeps in the trace, want %d", len(blocks), want)
	}
	out := map[string][]float64{}
	for i, b := range blocks {
		d := timerDurations[i%len(timerDurations)]
		c := timerClass(d)
		out[c] = append(out[c], float64(b.End-b.Begin-d))
	}
	return out, nil
}

// shift returns xs less c, each.
func shift(xs []float64, c float64) []float64 {
	out := slices.Clone(xs)
	for i := range out {
		out[i] -= c
	}
	return out
}

// scale returns xs times f, each.
func scale(xs []float64, f float64) []float64 {
	out := slices.Clone(xs)
	for i := range out {
		out[i] *= f
	}
	return out
}
