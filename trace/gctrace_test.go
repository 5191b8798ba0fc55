// Tests of the gctrace line: Go's number formats (itoaDiv, fmtNSAsMS),
// one whole line, and the line's regexp against a real Go program's.

package trace

import (
	"testing"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/tracetest"
)

func TestAppendNSAsMS(t *testing.T) {
	for _, test := range []struct {
		ns   int64
		want string
	}{
		{0, "0"}, {999, "0"}, {1000, "0.001"}, {18_000, "0.018"}, {99_999, "0.099"},
		{100_000, "0.10"}, {350_000, "0.35"}, {1_200_000, "1.2"}, {9_990_000, "9.9"},
		{10_000_000, "10"}, {123_456_789, "123"}, {-5, "0"},
	} {
		if got := string(appendNSAsMS(nil, test.ns)); got != test.want {
			t.Errorf("appendNSAsMS(%d) = %s, want %s", test.ns, got, test.want)
		}
	}
}

func TestAppendItoaDiv(t *testing.T) {
	for _, test := range []struct {
		val  uint64
		dec  int
		want string
	}{
		{0, 3, "0.000"}, {5, 3, "0.005"}, {1234, 3, "1.234"}, {60_001, 3, "60.001"}, {42, 0, "42"}, {7, 1, "0.7"},
	} {
		if got := string(appendItoaDiv(nil, test.val, test.dec)); got != test.want {
			t.Errorf("appendItoaDiv(%d, %d) = %s, want %s", test.val, test.dec, got, test.want)
		}
	}
}

func TestAppendGCTrace(t *testing.T) {
	c := &runtime.GCCycleStats{
		N: 3, Forced: true,
		Start: 12_345_678, MarkStart: 12_345_678 + 18_000, MarkTermStart: 12_345_678 + 18_000 + 1_200_000, End: 12_345_678 + 18_000 + 1_200_000 + 20_000,
		Procs: 4, STWProcs: 4,
		AssistTime: 350_000, DedicatedTime: 600_000, FractionalTime: 300_000, IdleTime: 100_000,
		HeapStart: 4 << 20, HeapMarkTerm: 5<<20 + 12, HeapMarked: 1 << 20, HeapGoal: 5 << 20,
		Stacks: 8 << 10, Globals: 154570, CPUFraction: 0.0499,
	}
	const want = "gc 3 @0.012s 4%: 0.018+1.2+0.020 ms clock, 0.072+0.35/0.90/0.10+0.080 ms cpu, 4->5->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 4 P (forced)\n"
	if got := string(AppendGCTrace(nil, c)); got != want {
		t.Errorf("AppendGCTrace:\n got %q\nwant %q", got, want)
	}
	c.Forced, c.STWProcs = false, 2
	const want2 = "gc 3 @0.012s 4%: 0.018+1.2+0.020 ms clock, 0.036+0.35/0.90/0.10+0.040 ms cpu, 4->5->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 4 P\n"
	if got := string(AppendGCTrace(nil, c)); got != want2 {
		t.Errorf("AppendGCTrace with 2 CPUs, not forced:\n got %q\nwant %q", got, want2)
	}
}

// TestGCTraceLineMatchesGo checks tracetest's reader on lines a Go
// 1.26 program printed with GODEBUG=gctrace=1 (linux/amd64, 2 CPUs), so
// that a line of schedlab that it takes is one of Go's format.
func TestGCTraceLineMatchesGo(t *testing.T) {
	for _, line := range []string{
		"gc 9 @0.018s 2%: 0.14+0.80+0.001 ms clock, 0.28+0/0.060/0.060+0.003 ms cpu, 16->30->21 MB, 18 MB goal, 0 MB stacks, 0 MB globals, 2 P",
		"gc 10 @0.022s 2%: 0.098+0.24+0.001 ms clock, 0.19+0.007/0.038/0.054+0.003 ms cpu, 36->63->33 MB, 42 MB goal, 0 MB stacks, 0 MB globals, 2 P",
		"gc 12 @0.035s 1%: 0.084+0.12+0.002 ms clock, 0.16+0/0.053/0.080+0.004 ms cpu, 70->70->4 MB, 94 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)",
	} {
		if _, err := tracetest.ParseGCTrace(line, false); err != nil {
			t.Errorf("Go's line does not parse: %v", err)
		}
	}
}
