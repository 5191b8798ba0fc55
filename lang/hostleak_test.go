package lang

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/schedlab/schedlab/runtime"
)

// An outcomeCase is a script that ends a run in one particular way.
type outcomeCase struct {
	name    string
	src     string
	opts    Options
	outcome runtime.Outcome // the engine's; Running for a script that never starts
	code    int
}

// everyOutcome is one script per way a run can end: success (with and
// without goroutines left behind), a panic, a deadlock, every limit, a
// cancel from the host, a load error, and a fatal error. Each leaves
// goroutines blocked, runnable or mid-loop behind, for Close to stop.
func everyOutcome() []outcomeCase {
	spin := "def spin():\n    while True:\n        pass\n"
	busy := "ch = chan()\nfor i in range(20):\n    spawn(ch.recv)\n    spawn(park)\n    spawn(sleep, '1s')\n"
	return []outcomeCase{
		{"success", "wg = waitgroup()\nfor i in range(10):\n    wg.add(1)\n    spawn(wg.done)\nwg.wait()\n", Options{Procs: 2}, runtime.Exited, 0},
		{"success with leaks", busy + "def f():\n    c = chan()\n    spawn(c.recv)\n    spawn(select)\nf()\nsleep(1)\n", Options{}, runtime.Exited, 0},
		{"panic", busy + "def f():\n    1 // 0\nspawn(f)\nsleep(1)\n", Options{}, runtime.Panicked, 2},
		{"deadlock", busy + "sleep('2s')\nch.recv()\n", Options{Procs: 3}, runtime.Deadlock, 2},
		{"step limit", busy + spin + "spawn(spin)\nspin()\n", Options{MaxSteps: 3000, Preempt: true, SliceSteps: 500}, runtime.Limit, 2},
		{"goroutine limit", busy + "for i in range(100):\n    spawn(park)\n", Options{MaxGoroutines: 70}, runtime.Limit, 2},
		{"virtual time limit", busy + "spawn(lambda: work('1s'))\nwork('1s')\n", Options{MaxTime: 1_000_000, Procs: 2}, runtime.Limit, 2},
		{"wall time limit", busy + spin + "spawn(spin)\nspin()\n", Options{Timeout: time.Millisecond, Preempt: true, SliceSteps: 500}, runtime.Limit, 2},
		{"wedged", busy + spin + "spawn(spin)\nsleep(1)\n", Options{WedgeSteps: 3000}, runtime.Limit, 2},
		{"canceled", busy + spin + "spin()\n", Options{Preempt: true, SliceSteps: 500}, runtime.Canceled, 2},
		{"fatal error", busy + "mutex().unlock()\n", Options{}, runtime.Panicked, 2},
		{"load error", "x = = 1\n", Options{}, runtime.Running, 1},
	}
}

// TestHostNoLeak runs 1,000 scripts in this process, ending in every way
// a run can end, and checks that the host's goroutines are back to their
// number before (every coroutine of every run was stopped) and that the
// heap does not grow from run 100 to run 1,000.
func TestHostNoLeak(t *testing.T) {
	runs := 1000
	if testing.Short() {
		runs = 200
	}
	cases := everyOutcome()
	baseline := goruntime.NumGoroutine()
	heapAt := func() uint64 {
		goruntime.GC()
		goruntime.GC()
		var ms goruntime.MemStats
		goruntime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	var heap100 uint64
	for i := range runs {
		tc := cases[i%len(cases)]
		opts := tc.opts
		if tc.outcome == runtime.Canceled {
			opts.OnStart = func(m *runtime.Machine) {
				time.AfterFunc(time.Millisecond, func() { m.Interrupt(errors.New("canceled by the host")) })
			}
		}
		_, stderr, res := runSrc(t, tc.src, opts)
		got := runtime.Running
		if res.Run != nil {
			got = res.Run.Outcome
		}
		if res.ExitCode != tc.code || got != tc.outcome {
			t.Fatalf("run %d (%s): exit %d, outcome %v, want %d, %v; stderr:\n%s", i, tc.name, res.ExitCode, got, tc.code, tc.outcome, stderr)
		}
		if i+1 == runs/10 {
			heap100 = heapAt()
		}
	}
	heapEnd := heapAt()

	var after int
	for range 200 {
		if after = goruntime.NumGoroutine(); after <= baseline {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if after > baseline {
		buf := make([]byte, 1<<20)
		buf = buf[:goruntime.Stack(buf, true)]
		t.Errorf("%d host goroutines before %d runs, %d after:\n%s", baseline, runs, after, buf)
	}
	// Flat: what is still in use after run 1,000 is what was in use after
	// run 100, give or take 8 MiB and 50% for the allocator's slack.
	if limit := heap100 + heap100/2 + 8<<20; heapEnd > limit {
		t.Errorf("heap in use %s after run %d, %s after run %d: grows", mib(heap100), runs/10, mib(heapEnd), runs)
	}
	t.Logf("%d runs; host goroutines %d before, %d after; heap in use %s after run %d, %s after run %d",
		runs, baseline, after, mib(heap100), runs/10, mib(heapEnd), runs)
}

func mib(n uint64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
