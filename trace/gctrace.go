// Go's gctrace lines.
//
// GODEBUG=gctrace=1 makes a Go program print one line to stderr at the end
// of every GC cycle; gcMarkTermination in $GOROOT/src/runtime/mgc.go
// prints it:
//
//	gc 3 @0.012s 4%: 0.018+1.2+0.020 ms clock, 0.072+0.35/0.90/0.10+0.080 ms cpu, 4->5->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 4 P (forced)
//
// The fields, in order: the cycle's number; when it began, in seconds
// since the program started; the share of the CPU the collector has used
// since then, idle marking left out; the clock time of sweep termination,
// the concurrent mark and mark termination; their CPU time: the first
// pause times the Ps it stopped, then assists, dedicated and fractional
// workers, idle workers, then the second pause; the heap when the cycle
// began, at mark termination, and marked; the heap goal; the stacks and
// globals scanned; GOMAXPROCS; and "(forced)" for runtime.GC.
//
// GCTrace formats a runtime.GCCycleStats, which the Machine fills from
// its model of the cycle (runtime/mgcstats.go) on the virtual clock;
// docs/runtime.md says what the model puts in each field.

package trace

import (
	"io"
	"strconv"

	"github.com/schedlab/schedlab/runtime"
)

// AppendGCTrace appends the gctrace=1 line of cycle c to b, newline
// included, in the format of gcMarkTermination's print.
func AppendGCTrace(b []byte, c *runtime.GCCycleStats) []byte {
	b = append(b, "gc "...)
	b = strconv.AppendInt(b, c.N, 10)
	b = append(b, " @"...)
	b = appendItoaDiv(b, uint64(max(c.Start, 0))/1e6, 3)
	b = append(b, "s "...)
	b = strconv.AppendInt(b, int64(c.CPUFraction*100), 10)
	b = append(b, "%: "...)
	for i, ns := range []int64{c.SweepTermPause(), c.MarkTime(), c.MarkTermPause()} {
		if i != 0 {
			b = append(b, '+')
		}
		b = appendNSAsMS(b, ns)
	}
	b = append(b, " ms clock, "...)
	stw := int64(c.STWProcs)
	for i, ns := range []int64{
		stw * c.SweepTermPause(),
		c.AssistTime,
		c.DedicatedTime + c.FractionalTime,
		c.IdleTime,
		stw * c.MarkTermPause(),
	} {
		switch i {
		case 0:
		case 2, 3:
			b = append(b, '/') // the mark's parts
		default:
			b = append(b, '+')
		}
		b = appendNSAsMS(b, ns)
	}
	b = append(b, " ms cpu, "...)
	b = strconv.AppendUint(b, c.HeapStart>>20, 10)
	b = append(b, "->"...)
	b = strconv.AppendUint(b, c.HeapMarkTerm>>20, 10)
	b = append(b, "->"...)
	b = strconv.AppendUint(b, c.HeapMarked>>20, 10)
	b = append(b, " MB, "...)
	b = strconv.AppendUint(b, c.HeapGoal>>20, 10)
	b = append(b, " MB goal, "...)
	b = strconv.AppendUint(b, c.Stacks>>20, 10)
	b = append(b, " MB stacks, "...)
	b = strconv.AppendUint(b, c.Globals>>20, 10)
	b = append(b, " MB globals, "...)
	b = strconv.AppendInt(b, int64(c.Procs), 10)
	b = append(b, " P"...)
	if c.Forced {
		b = append(b, " (forced)"...)
	}
	return append(b, '\n')
}

// appendItoaDiv appends val/10^dec with dec decimals, as mgc.go's itoaDiv
// writes it: 1234 with 3 decimals is 1.234, 5 is 0.005.
func appendItoaDiv(b []byte, val uint64, dec int) []byte {
	if dec == 0 {
		return strconv.AppendUint(b, val, 10)
	}
	pow := uint64(1)
	for range dec {
		pow *= 10
	}
	b = strconv.AppendUint(b, val/pow, 10)
	b = append(b, '.')
	frac := strconv.AppendUint(nil, val%pow, 10)
	for range dec - len(frac) {
		b = append(b, '0')
	}
	return append(b, frac...)
}

// appendNSAsMS appends ns as milliseconds as mgc.go's fmtNSAsMS does:
// whole milliseconds from 10ms up, else two significant digits with at
// most three decimals (0.018, 0.35, 1.2), and 0 below a microsecond.
func appendNSAsMS(b []byte, ns int64) []byte {
	n := uint64(max(ns, 0))
	if n >= 10e6 {
		return appendItoaDiv(b, n/1e6, 0)
	}
	x := n / 1e3
	if x == 0 {
		return append(b, '0')
	}
	dec := 3
	for x >= 100 {
		x /= 10
		dec--
	}
	return appendItoaDiv(b, x, dec)
}

// GCTrace writes Go's gctrace=1 line of every GC cycle of a run to W, as
// the cycle ends. Give its Cycle method to runtime.Machine.OnGCCycle.
type GCTrace struct {
	W   io.Writer
	buf []byte
	err error // the first write error
}

// NewGCTrace returns a GCTrace writing to w.
func NewGCTrace(w io.Writer) *GCTrace { return &GCTrace{W: w} }

// Cycle writes the line of cycle c.
func (t *GCTrace) Cycle(c *runtime.GCCycleStats) {
	if t.err != nil {
		return
	}
	t.buf = AppendGCTrace(t.buf[:0], c)
	_, t.err = t.W.Write(t.buf)
}

// Err returns the first error writing a line, if any.
func (t *GCTrace) Err() error { return t.err }
