package runtime

import (
	"fmt"
	"iter"
	goruntime "runtime"
	"testing"
)

// BenchmarkGosched measures one gosched round trip of the engine — pick the
// next G, switch to it, account — among n goroutines on one P. One op is
// one gosched. BenchmarkPullRoundRobin is the bare iter.Pull round-robin it
// is compared with (issue 7: at most 1.3x).
func BenchmarkGosched(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			per := b.N/n + 4 // enough round trips for the warm-up and b.N
			m := NewMachine(Config{Procs: 1, NoPreempt: true})
			defer m.Close()
			m.Start(func(g *G) error {
				for range n {
					g.Go(func(g *G) error {
						for range per {
							g.Gosched()
						}
						return nil
					}, "spinner")
				}
				wg := g.Machine().NewWaitGroup()
				g.Add(wg, 1)
				g.Wait(wg) // never released: the run ends with a deadlock
				return nil
			})
			// Let every goroutine start, then time the round trips.
			for range 3 * n {
				m.Step()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if !m.Step() {
					b.Fatal("run ended early")
				}
			}
		})
	}
}

// BenchmarkPullRoundRobin is a bare round-robin of n iter.Pull coroutines:
// the floor under any scheduler built on them. One op is one resume+yield.
func BenchmarkPullRoundRobin(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			nexts := make([]func() (struct{}, bool), n)
			stops := make([]func(), n)
			for i := range nexts {
				nexts[i], stops[i] = iter.Pull(func(yield func(struct{}) bool) {
					for yield(struct{}{}) {
					}
				})
			}
			defer func() {
				for _, s := range stops {
					s()
				}
			}()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				nexts[i%n]()
			}
		})
	}
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
		events += m.stats.Events
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
