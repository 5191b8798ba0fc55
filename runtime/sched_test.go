package runtime_test

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedlab/schedlab/runtime"
)

// mustPanic calls f and returns the value it panicked with; it fails the test
// if f returns normally.
func mustPanic(t *testing.T, f func()) (v any) {
	t.Helper()
	defer func() { v = recover() }()
	f()
	t.Fatal("did not panic")
	return nil
}

// runWithTimeout calls s.Run on a fresh goroutine and returns the value Run
// panicked with (nil if it returned). It fails the test if Run does not
// finish within 5s.
func runWithTimeout(t *testing.T, s *runtime.Sched) (panicked any) {
	t.Helper()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		s.Run()
	}()
	select {
	case v := <-done:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5s")
		return nil
	}
}

func TestSchedRoundRobin(t *testing.T) {
	tests := []struct {
		name     string
		segments []int // per task: the number of yields plus one
		want     string
	}{
		{"3x3", []int{3, 3, 3}, "a0 b0 c0 a1 b1 c1 a2 b2 c2"},
		{"uneven", []int{1, 3, 2}, "a0 b0 c0 b1 c1 b2"},
		{"first longest", []int{4, 1, 1}, "a0 b0 c0 a1 a2 a3"},
		{"one task", []int{3}, "a0 a1 a2"},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log []string
			s := runtime.NewSched()
			for i, n := range tt.segments {
				name := string(rune('a' + i))
				s.Go(func(yield func()) {
					for j := range n {
						if j > 0 {
							yield()
						}
						log = append(log, fmt.Sprintf("%s%d", name, j))
					}
				})
			}
			s.Run()
			if got := strings.Join(log, " "); got != tt.want {
				t.Errorf("order = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSchedOneBaton checks the invariant: however many host threads may run
// goroutines, at most one task is ever inside its work section, and the
// interleaving is the same every time.
func TestSchedOneBaton(t *testing.T) {
	const tasks, yields = 8, 50
	var want []int
	for range yields + 1 {
		for i := range tasks {
			want = append(want, i)
		}
	}
	for _, procs := range []int{1, 2, 32} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(procs))
			var inside, maxInside atomic.Int32
			var order []int
			s := runtime.NewSched()
			for i := range tasks {
				s.Go(func(yield func()) {
					for j := 0; ; j++ {
						n := inside.Add(1)
						for {
							m := maxInside.Load()
							if n <= m || maxInside.CompareAndSwap(m, n) {
								break
							}
						}
						order = append(order, i)
						// Give any other goroutine that is (wrongly)
						// runnable every chance to enter its section too.
						for range 3 {
							goruntime.Gosched()
						}
						inside.Add(-1)
						if j == yields {
							return
						}
						yield()
					}
				})
			}
			s.Run()
			if m := maxInside.Load(); m != 1 {
				t.Errorf("at most %d tasks were inside their work section at once, want 1", m)
			}
			if !slices.Equal(order, want) {
				t.Errorf("order = %v, want round robin %v", order, want)
			}
		})
	}
}

func TestSchedRunWaitsForEveryTask(t *testing.T) {
	yields := []int{0, 1, 5, 100, 0, 3}
	segments := make([]int, len(yields))
	returned := make([]bool, len(yields))
	s := runtime.NewSched()
	for i, n := range yields {
		s.Go(func(yield func()) {
			defer func() { returned[i] = true }()
			for j := 0; j <= n; j++ {
				if j > 0 {
					yield()
				}
				segments[i]++
			}
			if i == 0 {
				// Hold the baton for a while with a blocking host call:
				// Run must still wait for this task.
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	s.Run()
	for i, n := range yields {
		if !returned[i] {
			t.Errorf("task %d had not returned when Run returned", i)
		}
		if segments[i] != n+1 {
			t.Errorf("task %d ran %d segments, want %d", i, segments[i], n+1)
		}
	}
}

func TestSchedZeroValue(t *testing.T) {
	var s runtime.Sched
	ran := false
	s.Go(func(yield func()) { yield(); ran = true })
	s.Run()
	if !ran {
		t.Error("task of a zero Sched did not run to completion")
	}
}

func TestSchedNoGoroutineLeft(t *testing.T) {
	base := goruntime.NumGoroutine()
	during := 0
	s := runtime.NewSched()
	for i := range 100 {
		s.Go(func(yield func()) {
			if i == 0 {
				during = goruntime.NumGoroutine()
			}
			for range i % 7 {
				yield()
			}
		})
	}
	s.Run()
	if during <= base {
		t.Errorf("NumGoroutine during Run = %d, want more than %d (tasks are goroutines)", during, base)
	}
	runtime.WaitNumGoroutine(t, base)
}

func TestSchedTaskPanic(t *testing.T) {
	base := goruntime.NumGoroutine()
	var log []string
	unwound := map[string]bool{}
	s := runtime.NewSched()
	for _, name := range []string{"a", "b", "c"} {
		s.Go(func(yield func()) {
			defer func() { unwound[name] = true }()
			for i := range 10 {
				log = append(log, fmt.Sprintf("%s%d", name, i))
				if name == "b" && i == 1 {
					panic("boom")
				}
				yield()
			}
		})
	}
	v := runWithTimeout(t, s)
	tp, ok := v.(*runtime.TaskPanic)
	if !ok {
		t.Fatalf("Run panicked with %T %v, want *runtime.TaskPanic", v, v)
	}
	if tp.Value != "boom" {
		t.Errorf("TaskPanic.Value = %v, want boom", tp.Value)
	}
	if got := tp.Error(); !strings.Contains(got, "boom") {
		t.Errorf("TaskPanic.Error() = %q, want it to contain boom", got)
	}
	if !strings.Contains(string(tp.Stack), "TestSchedTaskPanic") {
		t.Errorf("TaskPanic.Stack does not show the panicking task:\n%s", tp.Stack)
	}
	if got, want := strings.Join(log, " "), "a0 b0 c0 a1 b1"; got != want {
		t.Errorf("order = %q, want %q (nothing may run after the panic)", got, want)
	}
	for _, name := range []string{"a", "b", "c"} {
		if !unwound[name] {
			t.Errorf("task %s was not unwound (its deferred call did not run)", name)
		}
	}
	runtime.WaitNumGoroutine(t, base)
}

// A task that calls runtime.Goexit (t.FailNow does) ends the goroutine that
// called Run, as iter.Pull does; the other tasks must still be stopped.
func TestSchedTaskGoexit(t *testing.T) {
	base := goruntime.NumGoroutine()
	var unwound atomic.Int32
	returned := false
	s := runtime.NewSched()
	s.Go(func(yield func()) {
		defer unwound.Add(1)
		for {
			yield()
		}
	})
	s.Go(func(yield func()) {
		yield()
		goruntime.Goexit()
	})
	var wg sync.WaitGroup
	wg.Go(func() {
		s.Run()
		returned = true
	})
	wg.Wait()
	if returned {
		t.Error("Run returned normally after a task called Goexit")
	}
	if unwound.Load() != 1 {
		t.Error("the other task was not stopped")
	}
	runtime.WaitNumGoroutine(t, base)
}

func TestSchedGoAfterRun(t *testing.T) {
	const msg = "schedlab: Sched.Go called after Run started"
	t.Run("after Run returned", func(t *testing.T) {
		s := runtime.NewSched()
		s.Go(func(yield func()) {})
		s.Run()
		if v := mustPanic(t, func() { s.Go(func(yield func()) {}) }); v != msg {
			t.Errorf("Go after Run panicked with %v, want %q", v, msg)
		}
	})
	t.Run("from a task", func(t *testing.T) {
		s := runtime.NewSched()
		s.Go(func(yield func()) { s.Go(func(yield func()) {}) })
		v := runWithTimeout(t, s)
		var tp *runtime.TaskPanic
		if err, _ := v.(error); !errors.As(err, &tp) || tp.Value != msg {
			t.Errorf("Run panicked with %v, want a TaskPanic of %q", v, msg)
		}
	})
	t.Run("Run twice", func(t *testing.T) {
		s := runtime.NewSched()
		s.Run()
		v := mustPanic(t, s.Run)
		if !strings.Contains(fmt.Sprint(v), "Run called more than once") {
			t.Errorf("second Run panicked with %v", v)
		}
	})
	t.Run("nil function", func(t *testing.T) {
		v := mustPanic(t, func() { runtime.NewSched().Go(nil) })
		if !strings.Contains(fmt.Sprint(v), "nil function") {
			t.Errorf("Go(nil) panicked with %v", v)
		}
	})
}

func TestSchedYieldOutsideItsTask(t *testing.T) {
	const want = "schedlab: yield called outside its task"
	// recoverFrom calls yield on a new goroutine and returns what it
	// panicked with.
	recoverFrom := func(yield func()) any {
		ch := make(chan any)
		go func() {
			defer func() { ch <- recover() }()
			yield()
		}()
		return <-ch
	}

	base := goruntime.NumGoroutine()
	var yieldA func()
	var fromGoroutine, fromTask any
	s := runtime.NewSched()
	s.Go(func(yield func()) {
		yieldA = yield
		yield()
		yield()
	})
	s.Go(func(yield func()) {
		// a is parked in its first yield: another goroutine calls a's
		// yield while b holds the baton.
		fromGoroutine = recoverFrom(yieldA)
		yield()
		// b calls a's yield itself.
		fromTask = mustPanic(t, yieldA)
	})
	if v := runWithTimeout(t, s); v != nil {
		t.Fatalf("Run panicked: %v", v)
	}
	if !strings.HasPrefix(fmt.Sprint(fromGoroutine), want) {
		t.Errorf("yield from another goroutine: panicked with %v, want %q", fromGoroutine, want)
	}
	if !strings.HasPrefix(fmt.Sprint(fromTask), want) {
		t.Errorf("yield from another task: panicked with %v, want %q", fromTask, want)
	}
	// a has returned: its yield must refuse to run anywhere.
	if v := recoverFrom(yieldA); !strings.HasPrefix(fmt.Sprint(v), want) {
		t.Errorf("yield after the task returned: panicked with %v, want %q", v, want)
	}
	runtime.WaitNumGoroutine(t, base)
}

func ExampleSched() {
	s := runtime.NewSched()
	for _, name := range []string{"ping", "pong", "pang"} {
		s.Go(func(yield func()) {
			for i := range 2 {
				fmt.Println(name, i)
				yield()
			}
		})
	}
	s.Run()
	fmt.Println("all done")
	// Output:
	// ping 0
	// pong 0
	// pang 0
	// ping 1
	// pong 1
	// pang 1
	// all done
}
