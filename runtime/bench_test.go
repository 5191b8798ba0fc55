package runtime

import (
	"fmt"
	"iter"
	goruntime "runtime"
	"testing"
	"time"
)

// Engine benchmarks (issue 7; figures and commands in docs/performance.md).
//
// The gosched benchmarks run n goroutines on one P, each looping on
// Gosched forever: every Step is one round trip — the M's trip through
// schedule (findRunnable takes the next G from the local or global queue),
// the coroutine switch to it, and the G's gosched (accounting, the global
// run queue, queueing the M's next schedule) and switch back. One op is one
// Step. The floor under them is a bare round robin of n iter.Pull
// coroutines, each yielding straight back (pullRoundRobin).

// goschedMachine returns a Machine whose n goroutines (after G1, which
// parks for good) gosched forever, with every goroutine started, so that
// each further Step is one gosched round trip. Close stops them.
func goschedMachine(tb testing.TB, n int, tracer Tracer) *Machine {
	m := NewMachine(Config{Procs: 1, NoPreempt: true, Tracer: tracer})
	m.Start(func(g *G) error {
		for range n {
			g.Go(func(g *G) error {
				for {
					g.Gosched()
				}
			}, "spinner")
		}
		wg := g.Machine().NewWaitGroup()
		g.Add(wg, 1)
		g.Wait(wg) // never released
		return nil
	})
	// G1's step, then every spinner's first run (some twice).
	for range 3 * n {
		if !m.Step() {
			tb.Fatal("run ended early")
		}
	}
	return m
}

// pullRoundRobin is n iter.Pull coroutines, each yielding straight back,
// resumed in turn by step.
type pullRoundRobin struct {
	nexts []func() (struct{}, bool)
	stops []func()
	i     int
}

func newPullRoundRobin(n int) *pullRoundRobin {
	p := &pullRoundRobin{nexts: make([]func() (struct{}, bool), n), stops: make([]func(), n)}
	for i := range p.nexts {
		p.nexts[i], p.stops[i] = iter.Pull(func(yield func(struct{}) bool) {
			for yield(struct{}{}) {
			}
		})
		p.nexts[i]() // start it: to its first yield
	}
	return p
}

// step resumes the next coroutine: one resume/yield round trip.
func (p *pullRoundRobin) step() {
	p.nexts[p.i]()
	if p.i++; p.i == len(p.nexts) {
		p.i = 0
	}
}

func (p *pullRoundRobin) stop() {
	for _, s := range p.stops {
		s()
	}
}

var goschedSizes = []int{1, 1000, 100000}

// BenchmarkGosched is one gosched round trip of the engine among n
// goroutines, with tracing off. goroutines=1 is the same goroutine every
// time, hot in the cache.
func BenchmarkGosched(b *testing.B) {
	for _, n := range goschedSizes {
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			benchGosched(b, n, nil)
		})
	}
}

// BenchmarkGoschedTracer is BenchmarkGosched among 1,000 goroutines with
// tracing off (tracer=nil) and with a Tracer that does nothing
// (tracer=noop): the difference is what the event stream costs a run
// whose events go somewhere, and what "off" saves (issue 7: tracing costs
// nothing when off).
func BenchmarkGoschedTracer(b *testing.B) {
	for _, tr := range []struct {
		name   string
		tracer Tracer
	}{{"nil", nil}, {"noop", TracerFunc(func(*Event) {})}} {
		b.Run("tracer="+tr.name, func(b *testing.B) {
			benchGosched(b, 1000, tr.tracer)
		})
	}
}

func benchGosched(b *testing.B, n int, tracer Tracer) {
	m := goschedMachine(b, n, tracer)
	defer m.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Step()
	}
}

// BenchmarkPullRoundRobin is the bare iter.Pull round robin of n
// coroutines: the floor under BenchmarkGosched. One op is one
// resume/yield round trip.
func BenchmarkPullRoundRobin(b *testing.B) {
	for _, n := range goschedSizes {
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			p := newPullRoundRobin(n)
			defer p.stop()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p.step()
			}
		})
	}
}

// BenchmarkGoschedVsPull measures the engine's gosched round trip and the
// bare iter.Pull round trip side by side, in alternating chunks of the
// same length (at least two full rounds of the n goroutines), each chunk
// timed on its own. On a shared machine whose speed drifts, both sides see
// the same drift, so the ratio (engine/pull; issue 7: at most 1.3) is
// steadier than the ratio of two separate benchmarks. One op is one round
// trip of each, so ns/op is the sum of the two; the metrics engine-ns and
// pull-ns split it.
func BenchmarkGoschedVsPull(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			m := goschedMachine(b, n, nil)
			defer m.Close()
			p := newPullRoundRobin(n)
			defer p.stop()
			chunk := max(2*n, 10000)
			b.ReportAllocs()
			b.ResetTimer()
			var engine, pull time.Duration
			for done := 0; done < b.N; {
				k := min(chunk, b.N-done)
				t0 := time.Now()
				for range k {
					m.Step()
				}
				t1 := time.Now()
				for range k {
					p.step()
				}
				engine += t1.Sub(t0)
				pull += time.Since(t1)
				done += k
			}
			b.ReportMetric(float64(engine.Nanoseconds())/float64(b.N), "engine-ns")
			b.ReportMetric(float64(pull.Nanoseconds())/float64(b.N), "pull-ns")
			b.ReportMetric(float64(engine)/float64(pull), "engine/pull")
		})
	}
}

// BenchmarkPullDepth is the round robin of BenchmarkPullRoundRobin (1,000
// coroutines) with extra frames between the switch and the loops: the
// scheduler side resumes through `resume` calls of its own, the coroutine
// yields through `yield` calls. A coroutine switch moves to another
// stack, so the CPU's return-address predictor, filled by the other
// side's calls, mispredicts each return on the way back up: every frame
// between a loop and its switch costs about one mispredicted return per
// switch. This is why the engine keeps its switch near the top of Step
// (docs/performance.md).
func BenchmarkPullDepth(b *testing.B) {
	const n = 1000
	for _, d := range [][2]int{{0, 0}, {4, 0}, {0, 4}, {4, 4}, {8, 4}} {
		b.Run(fmt.Sprintf("resume=%d/yield=%d", d[0], d[1]), func(b *testing.B) {
			nexts := make([]func() (struct{}, bool), n)
			stops := make([]func(), n)
			for i := range nexts {
				nexts[i], stops[i] = iter.Pull(func(yield func(struct{}) bool) {
					for deepYield(d[1], yield) {
					}
				})
				nexts[i]()
			}
			defer func() {
				for _, s := range stops {
					s()
				}
			}()
			b.ReportAllocs()
			b.ResetTimer()
			j := 0
			for i := 0; i < b.N; i++ {
				deepResume(d[0], nexts[j])
				if j++; j == n {
					j = 0
				}
			}
		})
	}
}

// deepResume calls next under depth extra frames.
//
//go:noinline
func deepResume(depth int, next func() (struct{}, bool)) {
	if depth == 0 {
		next()
		return
	}
	deepResume(depth-1, next)
}

// deepYield calls yield under depth extra frames.
//
//go:noinline
func deepYield(depth int, yield func(struct{}) bool) bool {
	if depth == 0 {
		return yield(struct{}{})
	}
	return deepYield(depth-1, yield)
}

// BenchmarkSpawn measures newproc: create a goroutine that returns at once,
// run it, reuse its G. One op is one goroutine's life.
func BenchmarkSpawn(b *testing.B) {
	m := NewMachine(Config{Procs: 1})
	defer m.Close()
	b.ReportAllocs()
	m.Start(func(g *G) error {
		nop := func(*G) error { return nil }
		for i := 0; i < b.N; i++ {
			g.Go(nop, "nop")
			if i%64 == 63 {
				g.Gosched()
			}
		}
		return nil
	})
	b.ResetTimer()
	m.Run()
}

// BenchmarkWorkload4P runs 10,000 goroutines on 4 Ps, each doing work,
// channel operations and a gosched, and reports scheduling events per
// second of host time.
func BenchmarkWorkload4P(b *testing.B) {
	var events int64
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m := NewMachine(Config{Procs: 4, Seed: uint64(i)})
		m.Start(func(g *G) error {
			c, _ := g.Machine().NewChan(16)
			wg := g.Machine().NewWaitGroup()
			for j := range 10000 {
				g.Add(wg, 1)
				g.Go(func(g *G) error {
					g.Work(int64(1000 + j%7*100))
					g.Send(c, j)
					g.Gosched()
					g.Recv(c)
					return g.Add(wg, -1)
				}, "w")
			}
			g.Wait(wg)
			return nil
		})
		res := m.Run()
		if res.Outcome != Exited {
			b.Fatal(res.Outcome, res.Err)
		}
		events += m.events()
		m.Close()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkParkedMemory reports the host memory held per parked goroutine
// with 100,000 goroutines blocked on a channel.
func BenchmarkParkedMemory(b *testing.B) {
	const n = 100000
	for i := 0; i < b.N; i++ {
		goruntime.GC()
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		m := NewMachine(Config{Procs: 1})
		m.Start(func(g *G) error {
			c, _ := g.Machine().NewChan(0)
			for range n {
				g.Go(func(g *G) error { g.Recv(c); return nil }, "parked")
			}
			g.Sleep(1)
			goruntime.GC()
			goruntime.ReadMemStats(&after)
			return nil
		})
		m.Run()
		m.Close()
		b.ReportMetric(float64(after.Sys-before.Sys)/n, "sys-bytes/goroutine")
		b.ReportMetric(float64((after.StackInuse+after.HeapInuse)-(before.StackInuse+before.HeapInuse))/n, "inuse-bytes/goroutine")
	}
}
