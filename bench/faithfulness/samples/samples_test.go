package samples

import (
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

func TestQuantilesNearestRank(t *testing.T) {
	// 201 samples 0..200, shuffled: the i-th quantile is 10·i.
	xs := make([]int64, 201)
	for i := range xs {
		xs[i] = int64((i * 37) % 201)
	}
	q := Quantiles(xs)
	for i, v := range q {
		if v != int64(10*i) {
			t.Fatalf("quantile %d is %d, want %d: %v", i, v, 10*i, q)
		}
	}
	if got := Format([runtime.NumQuantiles]int64{1, 2}); got != "[1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]" {
		t.Errorf("Format: %s", got)
	}
}

func TestCappedAtP995(t *testing.T) {
	// 1000 samples 1..1000 and one outlier: p100 becomes the p99.5.
	xs := make([]int64, 1001)
	for i := range 1000 {
		xs[i] = int64(i + 1)
	}
	xs[1000] = 9_000_000
	q := Capped(xs)
	if q[runtime.NumQuantiles-1] != 996 {
		t.Errorf("capped p100 %d, want 996 (the p99.5)", q[runtime.NumQuantiles-1])
	}
	if q[runtime.NumQuantiles-2] != Quantiles(xs)[runtime.NumQuantiles-2] {
		t.Errorf("capping moved p95")
	}
	// derive's form of the same: the count, then the capped quantiles.
	if got := DeriveArg(xs); !strings.HasPrefix(got, "1001:1,51,101,") || !strings.HasSuffix(got, ",951,996") {
		t.Errorf("DeriveArg: %s", got)
	}
	// The tail keeps the top twentieth: nearest-rank p96 ... p99.9, and
	// p100 the largest sample.
	if got := DeriveArgTail(xs); !strings.HasPrefix(got, "1001:1,51,101,") || !strings.HasSuffix(got, ",951,9000000:961,971,981,991,996,1000") {
		t.Errorf("DeriveArgTail: %s", got)
	}
}

func TestReadLines(t *testing.T) {
	series, err := ReadLines(strings.NewReader("# header\nwake 1 2\n\nspin 5\nwake 3\n"), "wake", "spin")
	if err != nil {
		t.Fatal(err)
	}
	if got := Line("wake", series["wake"]) + "; " + Line("spin", series["spin"]); got != "wake 1 2 3; spin 5" {
		t.Errorf("read %q, want the kinds' samples in order", got)
	}
	for _, bad := range []string{"walk 1\n", "wake 1x\n"} {
		if _, err := ReadLines(strings.NewReader(bad), "wake", "spin"); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("ReadLines(%q): %v, want an error naming line 1", bad, err)
		}
	}
}

// P names a P of this process: one of its GOMAXPROCS.
func TestP(t *testing.T) {
	if p, n := P(), int64(goruntime.GOMAXPROCS(0)); p < 0 || p >= n {
		t.Errorf("P() = %d, want one of the %d Ps", p, n)
	}
}

func TestReadPerf(t *testing.T) {
	src := "some header\n" +
		"      ctx_fanout    11 100.010150000:     syscalls:sys_enter_write: fd: 0x00000001, count: 0x00000007\n" +
		"    other proc     7 100.010151000:      syscalls:sys_exit_write: 0xfffffffffffffffc\n" +
		"      ctx_fanout    11 100.010152000:       sched:sched_switch: prev_comm=ctx_fanout prev_pid=11\n" +
		"      stalltimes  9/12 100.010153000:       sched:sched_switch: prev_comm=stalltimes prev_pid=12\n"
	evs, err := ReadPerf(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []PerfEvent{
		{Comm: "ctx_fanout", Tid: 11, At: 100_010_150_000, Call: "write", Fields: "fd: 0x00000001, count: 0x00000007"},
		{Comm: "other proc", Tid: 7, At: 100_010_151_000, Exit: true, Call: "write", Fields: "0xfffffffffffffffc"},
		{Comm: "ctx_fanout", Tid: 11, At: 100_010_152_000, Call: "sched:sched_switch", Fields: "prev_comm=ctx_fanout prev_pid=11"},
		{Comm: "stalltimes", Pid: 9, Tid: 12, At: 100_010_153_000, Call: "sched:sched_switch", Fields: "prev_comm=stalltimes prev_pid=12"},
	}
	if !slices.Equal(evs, want) {
		t.Errorf("ReadPerf:\n got %+v\nwant %+v", evs, want)
	}
}

func TestSpread(t *testing.T) {
	// 1..100 in reverse: the nearest-rank p10 is 10, p25 25, and so on.
	xs := make([]int64, 100)
	for i := range xs {
		xs[i] = int64(100 - i)
	}
	if got, want := Spread(xs), "10/25/50/75/90"; got != want {
		t.Errorf("Spread(1..100) = %q, want %q", got, want)
	}
	if xs[0] != 100 {
		t.Error("Spread sorted its argument")
	}
	if got := Spread([]int64{7}); got != "7/7/7/7/7" {
		t.Errorf("Spread([7]) = %q", got)
	}
	if got := Spread(nil); got != "-" {
		t.Errorf("Spread(nil) = %q, want -", got)
	}
}
