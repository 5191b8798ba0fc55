// Command alloc is the real-Go side of the GC pacing twins: a program
// with a steady live heap that allocates short-lived objects, with a
// little CPU work for each, for a fixed total.
//
//	GODEBUG=gctrace=1 GOGC=100 GOMAXPROCS=1 go run ./bench/gcpacing/alloc \
//		-live 8MiB -block 64KiB -obj 16KiB -total 2GiB -work 12000
//
// What it does, in this order, with no goroutine but main:
//
//  1. it times its CPU work loop (spin) with the thread's CPU clock, before
//     allocating anything;
//  2. it builds the live heap: -live bytes as blocks of -block bytes, kept
//     in one slice that stays reachable to the end. A block is a []byte
//     (no pointers: the collector marks it but does not scan it) or, with
//     -ptrs, an array of pointers, all scanned;
//  3. it allocates -total bytes as objects of -obj bytes ([]byte, dead at
//     once: only a global keeps the last one), running spin(-work) after
//     each.
//
// Every -poll bytes it reads runtime/metrics' count of ended cycles and
// heap goal; when the count has moved, the goal read at the poll before is
// the goal the cycle was paced against (gctrace's "MB goal", in bytes),
// and the bytes allocated by then, the live heap's included, are where
// the cycle was seen ended. At the end it prints to stderr one line:
//
//	# summary cycles=N goals=G1,G2,... at=B1,B2,... allocs=A blocks=B wall_ns=W cpu_ns=C gc_cpu_ns=X spin_ns_per_iter=S
//
// cpu_ns is the process's user and system time (getrusage); gc_cpu_ns is
// runtime/metrics' /cpu/classes/gc/total; (cpu_ns - gc_cpu_ns) / A is the
// program's own CPU for one allocation and its work, which its Starlark
// twin spends with work(). The gctrace lines go to stderr too.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Sinks that keep the compiler from dropping what the program does.
var (
	sink    []byte
	spinOut uint64
	target  int // what every pointer of a -ptrs block points to
)

// spin is n steps of xorshift64: about a nanosecond each, CPU only.
//
//go:noinline
func spin(n int) uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// threadCPU returns the calling thread's CPU time.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	// CLOCK_THREAD_CPUTIME_ID is 3 on Linux.
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

// processCPU returns the process's user and system time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// join returns the numbers in vs, comma-separated.
func join(vs []uint64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.FormatUint(v, 10)
	}
	return strings.Join(s, ",")
}

// size is a flag holding a byte count: 4096, 64KiB, 2GiB.
type size int64

func (s *size) String() string { return strconv.FormatInt(int64(*s), 10) }

func (s *size) Set(v string) error {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSuffix(v, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a positive size such as 4096 or 64KiB, got %q", v)
	}
	*s = size(n * mult)
	return nil
}

func main() {
	live, block, obj, total, poll := size(8<<20), size(64<<10), size(16<<10), size(2<<30), size(256<<10)
	flag.Var(&live, "live", "the live heap in `bytes`, kept to the end")
	flag.Var(&block, "block", "the live heap's blocks, in `bytes`")
	flag.Var(&obj, "obj", "each short-lived object, in `bytes`")
	flag.Var(&total, "total", "the short-lived `bytes` allocated in all")
	flag.Var(&poll, "poll", "the `bytes` allocated between two reads of the cycle count and the heap goal")
	ptrs := flag.Bool("ptrs", false, "live blocks of pointers (scanned) instead of []byte (not scanned)")
	work := flag.Int("work", 12000, "spin `steps` after each allocation")
	flag.Parse()

	// 1. The work loop's speed, on this thread's CPU clock.
	runtime.LockOSThread()
	const calib = 50_000_000
	t0 := threadCPU()
	spinOut += spin(calib)
	spinNs := float64(threadCPU()-t0) / calib
	runtime.UnlockOSThread()

	samples := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/goal:bytes"}}
	var goals, at []uint64
	var lastCycles, lastGoal uint64
	var allocated uint64 // bytes allocated so far, the live heap's included
	read := func() {
		metrics.Read(samples)
		cycles, goal := samples[0].Value.Uint64(), samples[1].Value.Uint64()
		if cycles != lastCycles {
			// One goal for every cycle that started since the poll
			// before: all of them were paced against the goal read
			// then, as far as a poll can tell.
			for range cycles - lastCycles {
				goals = append(goals, lastGoal)
				at = append(at, allocated)
			}
		}
		lastCycles, lastGoal = cycles, goal
	}
	read()
	wall0 := time.Now()
	cpu0 := processCPU()

	// 2. The live heap.
	nblocks := int(live / block)
	var keptBytes [][]byte
	var keptPtrs [][]*int
	if *ptrs {
		keptPtrs = make([][]*int, nblocks)
	} else {
		keptBytes = make([][]byte, nblocks)
	}
	var sincePoll size
	for i := range nblocks {
		if *ptrs {
			b := make([]*int, block/8)
			for j := range b {
				b[j] = &target
			}
			keptPtrs[i] = b
		} else {
			keptBytes[i] = make([]byte, block)
		}
		allocated += uint64(block)
		if sincePoll += block; sincePoll >= poll {
			read()
			sincePoll = 0
		}
	}

	// 3. The short-lived objects.
	allocs := int64(total / obj)
	for range allocs {
		b := make([]byte, obj)
		b[0] = byte(spinOut)
		sink = b
		spinOut += spin(*work)
		allocated += uint64(obj)
		if sincePoll += obj; sincePoll >= poll {
			read()
			sincePoll = 0
		}
	}
	read()
	wall := time.Since(wall0)
	cpu := processCPU() - cpu0
	gcSample := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(gcSample)
	runtime.KeepAlive(keptBytes)
	runtime.KeepAlive(keptPtrs)
	runtime.KeepAlive(sink)

	fmt.Fprintf(os.Stderr, "# summary cycles=%d goals=%s at=%s allocs=%d blocks=%d wall_ns=%d cpu_ns=%d gc_cpu_ns=%d spin_ns_per_iter=%.4f\n",
		lastCycles, join(goals), join(at), allocs, nblocks, wall.Nanoseconds(), cpu.Nanoseconds(),
		int64(gcSample[0].Value.Float64()*1e9), spinNs)
}
