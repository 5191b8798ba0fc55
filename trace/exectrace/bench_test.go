package exectrace

import (
	"io"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// BenchmarkWriter measures the encoder alone: a goroutine that yields
// and starts again, with a two-frame stack on every stop, as events per
// op. Run with -benchmem; compare with benchstat.
func BenchmarkWriter(b *testing.B) {
	var s stream
	s.add(0, runtime.EvProcStart, 0, 0, 0, 0, 0, "")
	s.add(0, runtime.EvGoStart, 0, 0, 1, 0, 0, "")
	for i := int64(0); i < 10_000; i++ {
		s.add(10+i*10, runtime.EvGoSched, 0, 0, 1, 0, 0, "")
		s.add(10+i*10+5, runtime.EvGoStart, 0, 0, 1, 0, 0, "")
	}
	b.ReportAllocs()
	for b.Loop() {
		w := New(io.Discard, Options{Procs: 1, Stacks: fakeStacks{}})
		for i := range s.evs {
			w.Event(&s.evs[i])
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(s.evs)), "ns/event")
}
