package calibrate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	rt "github.com/schedlab/schedlab/internal/realtrace"
)

// Hand-made traces, where every answer is known to the nanosecond.

func lg(t int64, g int64, msg string) rt.Log {
	return rt.Log{Time: t, G: g, P: 0, M: 1, Category: logCat, Message: msg}
}

func tr(t int64, g int64, from, to rt.State, p, m, by int64) rt.Transition {
	return rt.Transition{Time: t, G: g, From: from, To: to, P: p, M: m, By: by}
}

// A wake-up: the waker G1 on P0 readies G2 at 110; P1 starts on M7 at 200
// and runs G2 at 250. wakeup = 90, the steal 50, in all 140.
func wakeTrace(p1Start int64) *rt.Trace {
	return &rt.Trace{
		Start: 0, End: 1000,
		Logs: []rt.Log{lg(100, 1, "wake"), lg(500, 1, "round wake")},
		Transitions: []rt.Transition{
			tr(90, 2, rt.Running, rt.Waiting, 1, 7, rt.None),
			tr(110, 2, rt.Waiting, rt.Runnable, 0, 1, 1),
			tr(250, 2, rt.Runnable, rt.Running, 1, 7, rt.None),
		},
		Procs: []rt.ProcEvent{
			{Time: 95, P: 1, M: 7},
			{Time: p1Start, P: 1, M: 7, Start: true},
			{Time: 400, P: 1, M: 7},
		},
		Threads: []rt.Thread{{M: 1, First: 0}, {M: 7, First: 50}},
	}
}

func TestAnalyzeWake(t *testing.T) {
	w := analyzeWake(wakeTrace(200))
	if !cmp.Equal(w.wakeup["wake"], []float64{90}) || !cmp.Equal(w.steal["wake"], []float64{50}) || !cmp.Equal(w.total["wake"], []float64{140}) {
		t.Errorf("wakeup %v steal %v total %v, want [90] [50] [140]", w.wakeup, w.steal, w.total)
	}
	// P1 already running at the ready: not a wake-up of an idle P.
	w = analyzeWake(wakeTrace(105))
	if len(w.wakeup["wake"]) != 0 || w.skip["the other P was not idle"] != 1 {
		t.Errorf("P started before the ready: wakeup %v skip %v, want none and one skip", w.wakeup, w.skip)
	}
	// G2 run by the waker's own P: no wake-up either.
	x := wakeTrace(200)
	x.Transitions[2].P = 0
	w = analyzeWake(x)
	if len(w.wakeup["wake"]) != 0 || w.skip["ran on the waker's P"] != 1 {
		t.Errorf("run on the waker's P: wakeup %v skip %v", w.wakeup, w.skip)
	}
}

// Creations by the spawner in a row are gaps; a round's log or the
// spawner's own block ends a row.
func TestSpawnGaps(t *testing.T) {
	x := &rt.Trace{
		End:  1000,
		Logs: []rt.Log{lg(0, 1, "spawn"), lg(500, 1, "spawn")},
		Transitions: []rt.Transition{
			tr(10, 2, rt.NotExist, rt.Runnable, 0, 1, 1),
			tr(310, 3, rt.NotExist, rt.Runnable, 0, 1, 1),
			tr(330, 9, rt.NotExist, rt.Runnable, 1, 2, 8), // another spawner's
			tr(650, 4, rt.NotExist, rt.Runnable, 0, 1, 1),
			tr(700, 1, rt.Running, rt.Waiting, 0, 1, rt.None),
			tr(800, 1, rt.Waiting, rt.Runnable, 0, 1, 5),
			tr(900, 1, rt.Runnable, rt.Running, 0, 1, rt.None),
			tr(950, 5, rt.NotExist, rt.Runnable, 0, 1, 1),
			tr(990, 6, rt.NotExist, rt.Runnable, 0, 1, 1),
		},
	}
	if got, want := spawnGaps(x), []float64{300, 40}; !cmp.Equal(got, want) {
		t.Errorf("spawnGaps = %v, want %v", got, want)
	}
}

// The steal pass is a quarter of a P's run that started no goroutine,
// within the probe's logs.
func TestStealPasses(t *testing.T) {
	x := &rt.Trace{
		End:  10_000,
		Logs: []rt.Log{lg(100, 1, "spawn"), lg(9000, 1, "spawn")},
		Procs: []rt.ProcEvent{
			{Time: 0, P: 1, M: 2, Start: true, Status: true},
			{Time: 50, P: 1, M: 2},
			{Time: 1000, P: 1, M: 2, Start: true},
			{Time: 1400, P: 1, M: 2}, // fruitless: 400
			{Time: 2000, P: 1, M: 2, Start: true},
			{Time: 3000, P: 1, M: 2}, // ran G5
			{Time: 8000, P: 1, M: 2, Start: true},
			{Time: 9500, P: 1, M: 2}, // past the last log
		},
		Transitions: []rt.Transition{
			tr(1990, 5, rt.Waiting, rt.Runnable, 0, 1, 1),
			tr(2500, 5, rt.Runnable, rt.Running, 1, 2, rt.None),
		},
	}
	if got, want := stealPasses(x), []float64{100}; !cmp.Equal(got, want) {
		t.Errorf("stealPasses = %v, want %v", got, want)
	}
}

func TestSyscallParts(t *testing.T) {
	x := &rt.Trace{
		End:  1000,
		Logs: []rt.Log{lg(0, 1, "syscall"), lg(500, 1, "syscall")},
		Transitions: []rt.Transition{
			tr(10, 1, rt.Running, rt.Syscall, 0, 1, rt.None),
			tr(110, 1, rt.Syscall, rt.Running, 0, 1, rt.None),
			tr(150, 1, rt.Running, rt.Syscall, 0, 1, rt.None),
			tr(260, 1, rt.Syscall, rt.Running, 0, 1, rt.None),
			tr(600, 1, rt.Running, rt.Syscall, 0, 1, rt.None), // a new batch
			tr(690, 1, rt.Syscall, rt.Running, 0, 1, rt.None),
		},
	}
	enter, exit := syscallParts(x, 60)
	if !cmp.Equal(enter, []float64{40, 50, 30}) || !cmp.Equal(exit, []float64{40}) {
		t.Errorf("syscallParts = %v, %v; want [40 50 30], [40]", enter, exit)
	}
}

func TestTimerLates(t *testing.T) {
	x := &rt.Trace{End: 1e9, Logs: []rt.Log{lg(0, 1, "timers")}}
	at := int64(1000)
	var want = map[string][]float64{}
	for i, d := range timerDurations {
		late := int64(1000 * (i + 1))
		x.Transitions = append(x.Transitions,
			rt.Transition{Time: at, G: 1, From: rt.Running, To: rt.Waiting, Reason: "sleep", By: rt.None},
			rt.Transition{Time: at + d + late, G: 1, From: rt.Waiting, To: rt.Runnable, By: rt.None},
			rt.Transition{Time: at + d + late + 10, G: 1, From: rt.Runnable, To: rt.Running, By: rt.None})
		want[timerClass(d)] = append(want[timerClass(d)], float64(late))
		at += d + late + 100
	}
	got, err := timerLates(x, 1)
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("timerLates = %v, %v; want %v", got, err, want)
	}
	if _, err := timerLates(x, 2); err == nil {
		t.Error("timerLates with too few sleeps: no error")
	}
}

// A fruitless run as long as runqgrab's shortest nap slept in it: its
// passes are left out, since the engine charges the nap apart
// (runnext_sleep).
func TestWithoutNaps(t *testing.T) {
	passes := []float64{90, 150, 2800, 18500, 20000}
	if got, want := withoutNaps(passes, 72000), []float64{90, 150, 2800}; !cmp.Equal(got, want) {
		t.Errorf("withoutNaps(%v, 72µs) = %v, want %v", passes, got, want)
	}
	if got := withoutNaps(passes, 0); !cmp.Equal(got, passes) {
		t.Errorf("withoutNaps with no nap measured = %v, want every pass", got)
	}
}
