package runtime

import (
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
)

// waitNumGoroutine polls for up to a second until runtime.NumGoroutine is
// back to at most want, and reports an error if it is not.
func waitNumGoroutine(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		got := goruntime.NumGoroutine()
		if got <= want {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:goruntime.Stack(buf, true)]
			t.Errorf("NumGoroutine = %d, want %d (goroutines left behind)\n%s", got, want, buf)
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCoroResumeYield(t *testing.T) {
	var log []string
	c := newCoro(func(c *coro) {
		for i := range 3 {
			log = append(log, fmt.Sprint("in", i))
			c.yield()
		}
		log = append(log, "return")
	})
	for i := range 4 {
		alive := c.resume()
		log = append(log, fmt.Sprint("out", i))
		if want := i < 3; alive != want {
			t.Errorf("resume #%d = %v, want %v", i, alive, want)
		}
	}
	want := "in0 out0 in1 out1 in2 out2 return out3"
	if got := strings.Join(log, " "); got != want {
		t.Errorf("log = %q, want %q", got, want)
	}
	if !c.done || c.panicked != nil {
		t.Errorf("after return: done = %v, panicked = %v; want true, nil", c.done, c.panicked)
	}
}

func TestCoroStopUnwindsParked(t *testing.T) {
	base := goruntime.NumGoroutine()
	var unwound, resumedAfterYield bool
	c := newCoro(func(c *coro) {
		defer func() { unwound = true }()
		c.yield()
		resumedAfterYield = true
	})
	if !c.resume() {
		t.Fatal("resume = false, want true (the coroutine yielded)")
	}
	if unwound {
		t.Fatal("deferred call ran before stop")
	}
	c.stop()
	if !unwound {
		t.Error("stop did not unwind the parked coroutine (its deferred call did not run)")
	}
	if resumedAfterYield {
		t.Error("stop returned from yield instead of unwinding")
	}
	if !c.done || c.panicked != nil {
		t.Errorf("after stop: done = %v, panicked = %v; want true, nil", c.done, c.panicked)
	}
	c.stop() // a second stop does nothing
	waitNumGoroutine(t, base)
}

func TestCoroStopBeforeStart(t *testing.T) {
	base := goruntime.NumGoroutine()
	ran := false
	c := newCoro(func(c *coro) { ran = true })
	c.stop()
	if ran {
		t.Error("a coroutine stopped before its first resume ran its function")
	}
	waitNumGoroutine(t, base)
}

func TestCoroStopFinished(t *testing.T) {
	c := newCoro(func(c *coro) {})
	if c.resume() {
		t.Fatal("resume = true, want false (the function returned)")
	}
	c.stop() // must not block or panic
	if !c.done {
		t.Error("done = false after the function returned")
	}
}

func TestCoroPanic(t *testing.T) {
	base := goruntime.NumGoroutine()
	type myErr struct{ n int }
	c := newCoro(func(c *coro) {
		c.yield()
		panic(myErr{42})
	})
	c.resume()
	if c.resume() {
		t.Fatal("resume = true after the coroutine panicked, want false")
	}
	if !c.done {
		t.Error("done = false after the coroutine panicked")
	}
	p := c.panicked
	if p == nil {
		t.Fatal("panicked = nil, want the panic")
	}
	if p.Value != (myErr{42}) {
		t.Errorf("panicked.Value = %v, want {42}", p.Value)
	}
	if !strings.Contains(p.Error(), "{42}") {
		t.Errorf("panicked.Error() = %q, want it to show the value", p.Error())
	}
	if !strings.Contains(string(p.Stack), "TestCoroPanic") {
		t.Errorf("panicked.Stack does not show the panicking function:\n%s", p.Stack)
	}
	c.stop()
	waitNumGoroutine(t, base)
}

func TestCoroYieldOutside(t *testing.T) {
	const want = "schedlab: yield called outside its task"
	yieldFrom := func(c *coro) (v any) {
		ch := make(chan any)
		go func() {
			defer func() { ch <- recover() }()
			c.yield()
		}()
		return <-ch
	}
	c := newCoro(func(c *coro) { c.yield() })
	c.resume()
	if v := yieldFrom(c); !strings.HasPrefix(fmt.Sprint(v), want) {
		t.Errorf("yield of a parked coroutine from another goroutine: panicked with %v, want %q", v, want)
	}
	c.resume()
	if v := yieldFrom(c); !strings.HasPrefix(fmt.Sprint(v), want) {
		t.Errorf("yield of a finished coroutine: panicked with %v, want %q", v, want)
	}
}

func TestCoroNoGoroutineLeak(t *testing.T) {
	base := goruntime.NumGoroutine()
	var cs []*coro
	for i := range 300 {
		c := newCoro(func(c *coro) {
			for range 3 {
				c.yield()
			}
			if i%3 == 2 {
				panic("boom")
			}
		})
		cs = append(cs, c)
		switch i % 3 {
		case 0: // never started
		case 1: // parked in yield
			c.resume()
		case 2: // ran to its panic
			for c.resume() {
			}
		}
	}
	// base may count a few goroutines of earlier tests that were exiting.
	if n := goruntime.NumGoroutine(); n < base+190 {
		t.Errorf("NumGoroutine = %d with 200 live coroutines, want about %d", n, base+200)
	}
	for _, c := range cs {
		c.stop()
	}
	waitNumGoroutine(t, base)
}

// chanCoro is the lesson's handoff over unbuffered channels, kept here only
// to be measured against coro (BenchmarkSwitchChan). It has coro's shape:
// resume runs the task until it yields or finishes, yield parks the task
// until the next resume, stop unwinds a parked task.
//
// resume is a send on the task's own channel followed by a receive on the
// park channel that the scheduler shares with all its tasks; yield is the
// mirror image. Each rendezvous wakes the other goroutine through the host
// scheduler's run queue.
type chanCoro struct {
	wake chan struct{} // the task's resume channel; closed by stop
	park chan bool     // shared with the scheduler: true = yielded, false = finished
	done bool          // the function returned or the task was stopped
}

// chanStopped is the panic value with which yield unwinds a stopped chanCoro.
type chanStopped struct{}

// newChanCoro starts a goroutine that waits for the first resume and then
// runs f. park is the scheduler's channel.
func newChanCoro(park chan bool, f func(c *chanCoro)) *chanCoro {
	c := &chanCoro{wake: make(chan struct{}), park: park}
	go func() {
		defer func() {
			if r := recover(); r != nil && r != (chanStopped{}) {
				panic(r)
			}
			park <- false // the last signal; never wait for wake again
		}()
		if _, ok := <-c.wake; ok {
			f(c)
		}
	}()
	return c
}

func (c *chanCoro) resume() bool {
	c.wake <- struct{}{}
	alive := <-c.park
	if !alive {
		c.done = true
	}
	return alive
}

func (c *chanCoro) yield() {
	c.park <- true
	if _, ok := <-c.wake; !ok {
		panic(chanStopped{})
	}
}

func (c *chanCoro) stop() {
	if c.done {
		return
	}
	c.done = true
	close(c.wake)
	<-c.park
}

// TestChanCoro checks that the benchmarked channel handoff is a correct
// switch: round robin, stop unwinds, no goroutine left.
func TestChanCoro(t *testing.T) {
	base := goruntime.NumGoroutine()
	park := make(chan bool)
	var log []string
	var unwound bool
	a := newChanCoro(park, func(c *chanCoro) {
		for i := range 2 {
			log = append(log, fmt.Sprint("a", i))
			c.yield()
		}
	})
	b := newChanCoro(park, func(c *chanCoro) {
		defer func() { unwound = true }()
		for i := 0; ; i++ {
			log = append(log, fmt.Sprint("b", i))
			c.yield()
		}
	})
	for range 3 {
		a.resume()
		b.resume()
	}
	a.stop()
	b.stop()
	if got, want := strings.Join(log, " "), "a0 b0 a1 b1 b2"; got != want {
		t.Errorf("log = %q, want %q", got, want)
	}
	if !a.done || !b.done || !unwound {
		t.Errorf("a.done = %v, b.done = %v, b unwound = %v; want all true", a.done, b.done, unwound)
	}
	waitNumGoroutine(t, base)
}

// The switch benchmarks resume tasks in round robin, each task yielding
// straight back. One op is one resume/yield pair: the baton goes from the
// scheduler to a task and back, which is what every yield of a Sched task
// or every dispatch of the Machine costs.

var switchTasks = []int{1, 1000}

func BenchmarkSwitchChan(b *testing.B) {
	for _, n := range switchTasks {
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
			park := make(chan bool)
			cs := make([]*chanCoro, n)
			for i := range cs {
				cs[i] = newChanCoro(park, func(c *chanCoro) {
					for {
						c.yield()
					}
				})
				cs[i].resume() // start the goroutine outside the timed loop
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				cs[i].resume()
				if i++; i == n {
					i = 0
				}
			}
			for _, c := range cs {
				c.stop()
			}
		})
	}
}

func BenchmarkSwitchPull(b *testing.B) {
	for _, n := range switchTasks {
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
			cs := make([]*coro, n)
			for i := range cs {
				cs[i] = newCoro(func(c *coro) {
					for {
						c.yield()
					}
				})
				cs[i].resume() // start the goroutine outside the timed loop
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				cs[i].resume()
				if i++; i == n {
					i = 0
				}
			}
			for _, c := range cs {
				c.stop()
			}
		})
	}
}
