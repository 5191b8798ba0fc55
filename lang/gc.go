// The heap and the garbage collector: alloc, retain, release, gc, gogc and
// memlimit.
//
// A Starlark value has no size a program can reason about, so a script
// says what it allocates, in bytes: alloc(n) for memory that dies young,
// retain(n) for memory that stays reachable until release(n). The
// engine's heap and pacer (runtime/mgc.go, runtime/mgcpacer.go) count it
// and start cycles as Go's would. gc, gogc and memlimit are runtime.GC,
// debug.SetGCPercent and debug.SetMemoryLimit.

package lang

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

// size is a number of bytes, as a builtin's argument: an int or a size
// string ("64KiB", "1.5MB" is not one: whole numbers only, ParseSize).
type size int64

var _ starlark.Unpacker = (*size)(nil)

// Unpack reads an int or a size string.
func (s *size) Unpack(v starlark.Value) error {
	switch v := v.(type) {
	case starlark.Int:
		n, ok := v.Int64()
		if !ok {
			return fmt.Errorf("size %s does not fit in 64 bits", v)
		}
		*s = size(n)
		return nil
	case starlark.String:
		n, err := ParseSize(string(v))
		if err != nil {
			return fmt.Errorf("invalid size %q (want bytes as an int, or a size such as \"64KiB\")", string(v))
		}
		if n > math.MaxInt64 {
			return fmt.Errorf("size %q does not fit in 64 bits", string(v))
		}
		*s = size(n)
		return nil
	}
	return fmt.Errorf("got %s, want int (bytes) or size string", v.Type())
}

// sizeArg unpacks the arguments of alloc, retain and release, nbytes
// and pointers (True unless given), and returns them with the calling
// goroutine.
func sizeArg(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (*goroutine, int64, bool, error) {
	var n size
	pointers := true
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "nbytes", &n, "pointers?", &pointers); err != nil {
		return nil, 0, false, err
	}
	if n < 0 {
		return nil, 0, false, fmt.Errorf("%s: negative size %d", b.Name(), n)
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, 0, false, err
	}
	return gr, int64(n), pointers, nil
}

// alloc(nbytes, pointers=True): allocate memory that dies young (an
// object nothing keeps); pointers=False for pointer-free memory (a
// []byte), which adds nothing to the scannable heap. It may start a GC
// cycle.
func alloc(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	gr, n, pointers, err := sizeArg(r, thread, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	stw := gr.mayStopTheWorld()
	if pointers {
		err = gr.g.Alloc(n)
	} else {
		err = gr.g.AllocNoscan(n)
	}
	if stw {
		gr.arm()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return starlark.None, nil
}

// retain(nbytes, pointers=True): allocate memory that stays live until
// release, and that every cycle marks and scans; pointers=False for
// pointer-free memory (a []byte), which cycles mark without scanning: it
// counts in the heap goal but adds no mark work. It may start a GC cycle.
func retain(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	gr, n, pointers, err := sizeArg(r, thread, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	stw := gr.mayStopTheWorld()
	if pointers {
		err = gr.g.Retain(n)
	} else {
		err = gr.g.RetainNoscan(n)
	}
	if stw {
		gr.arm()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return starlark.None, nil
}

// release(nbytes, pointers=True): drop retained memory, of the kind
// retain(nbytes, pointers) made; the next cycle does not mark it.
func release(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	gr, n, pointers, err := sizeArg(r, thread, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	if pointers {
		err = gr.g.ReleaseHeap(n)
		if err != nil && r.m.GCStats().Noscan > 0 {
			err = fmt.Errorf("%v; release(n, pointers=False) drops pointer-free memory", err)
		}
	} else {
		err = gr.g.ReleaseNoscan(n)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return starlark.None, nil
}

// gc(): runtime.GC, a cycle now whatever the heap.
func gc(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	stw := gr.mayStopTheWorld()
	gr.g.GC()
	if stw {
		gr.arm()
	}
	return starlark.None, nil
}

// mayStopTheWorld reports whether a cycle started by gr stops the world
// (--gc-cycle=stw), in which case the builtin may give up the processor:
// the steps gr ran so far are accounted for first, and its budget set
// again after (gr.arm). Under --gc-cycle=instant a cycle changes nothing
// and the call is as any other.
func (gr *goroutine) mayStopTheWorld() bool {
	if gr.run.opts.GCCycle == runtime.GCInstant {
		return false
	}
	gr.account()
	return true
}

// gogc(percent) → int: debug.SetGCPercent; -1 turns the collector off.
// Returns the previous percent.
func gogc(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var percent int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "percent", &percent); err != nil {
		return nil, err
	}
	if err := CheckGOGC(percent); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	return starlark.MakeInt(int(gr.g.SetGCPercent(int32(percent)))), nil
}

// CheckGOGC returns an error unless percent is a GOGC schedlab takes: -1
// (off) or a percent from 0 to math.MaxInt32. Go takes any negative
// value for off; schedlab refuses those below -1 as likely mistakes.
func CheckGOGC(percent int64) error {
	if percent < -1 {
		return fmt.Errorf("percent %d is below -1 (off)", percent)
	}
	if percent > math.MaxInt32 {
		return fmt.Errorf("percent %d is more than %d", percent, math.MaxInt32)
	}
	return nil
}

// memlimit(nbytes) → int: debug.SetMemoryLimit; a negative limit only
// asks. Returns the previous limit (math.MaxInt64 when there is none).
func memlimit(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n size
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "nbytes", &n); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	return starlark.MakeInt64(gr.g.SetMemoryLimit(int64(n))), nil
}

// gcStats is stats()["gc"]: the heap and the collector, in a fixed order.
func gcStats(s runtime.GCStats) *starlark.Dict {
	kv := []struct {
		k string
		v starlark.Value
	}{
		{"cycles", starlark.MakeInt64(s.Cycles)},
		{"forced", starlark.MakeInt64(s.Forced)},
		{"gogc", starlark.MakeInt(int(s.GOGC))},
		{"memlimit", starlark.MakeInt64(s.MemoryLimit)},
		{"heap_live", starlark.MakeUint64(s.HeapLive)},
		{"heap_marked", starlark.MakeUint64(s.HeapMarked)},
		{"retained", starlark.MakeInt64(s.Retained)},
		{"retained_noscan", starlark.MakeInt64(s.Noscan)},
		{"heap_goal", starlark.MakeUint64(s.HeapGoal)},
		{"trigger", starlark.MakeUint64(s.Trigger)},
		{"last_heap_goal", starlark.MakeUint64(s.LastHeapGoal)},
		{"total_alloc", starlark.MakeUint64(s.TotalAlloc)},
		{"stacks", starlark.MakeUint64(s.Stacks)},
		{"globals", starlark.MakeUint64(s.Globals)},
		{"dedicated", starlark.MakeInt64(s.Dedicated)},
		{"fractional", starlark.Float(s.Fractional)},
		{"pause_total", starlark.MakeInt64(s.PauseTotal)},
		{"pause_max", starlark.MakeInt64(s.PauseMax)},
		{"assist_time", starlark.MakeInt64(s.AssistTime)},
		{"limiter_cycle", starlark.MakeInt64(s.LimiterCycle)},
	}
	d := starlark.NewDict(len(kv))
	for _, e := range kv {
		d.SetKey(starlark.String(e.k), e.v) // a fresh dict of string keys: cannot fail
	}
	return d
}

// byteUnits are the units ParseSize takes, longest suffix first.
var byteUnits = []struct {
	suffix string
	size   uint64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"b", 1},
}

// ParseSize reads a number of bytes with an optional unit: B, KiB, MiB,
// GiB, TiB (powers of 1024) or KB, MB, GB, TB (of 1000), in any case, as
// --max-memory, --memlimit and the size arguments of alloc, retain,
// release and memlimit take it.
func ParseSize(v string) (uint64, error) {
	num, unit := strings.ToLower(v), uint64(1)
	for _, u := range byteUnits {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, unit = n, u.size
			break
		}
	}
	n, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
	if err != nil || n > math.MaxUint64/unit {
		return 0, fmt.Errorf("want a size such as 512MiB or 8GiB")
	}
	return n * unit, nil
}
