package calibrate

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"
)

// The probes: small Go programs run inside this process, each the same
// code with and without runtime/trace. Each one times, on the monotonic
// clock, the interval a program would see (an end-to-end sample); under
// the trace, the events split that interval into the runtime's steps.
//
// Each probe marks the goroutines the analysis must find with a
// runtime/trace.Log line in the category logCat: the log's goroutine is the
// probe's, whatever its ID. Outside a trace those calls do nothing.

// logCat is the category of the probes' trace.Log lines.
const logCat = "schedlab/calibrate"

// epoch is the origin of now.
var epoch = time.Now()

// now is the monotonic clock in ns.
func now() int64 { return int64(time.Since(epoch)) }

// spin runs for d ns without blocking.
func spin(d int64) {
	for end := now() + d; now() < end; {
	}
}

// samples are a probe's end-to-end measurements, by class.
type samples map[string][]float64

func (s samples) add(class string, v int64) { s[class] = append(s[class], float64(v)) }

// merge adds the samples of o to s.
func (s samples) merge(o samples) {
	for class, vs := range o {
		s[class] = append(s[class], vs...)
	}
}

// clockCost is the median time between two consecutive readings of the
// clock now: what one reading adds to an interval measured around code.
func clockCost() int64 {
	const n = 2001
	gaps := make([]float64, 0, n)
	last := now()
	for range n {
		t := now()
		gaps = append(gaps, float64(t-last))
		last = t
	}
	return int64(median(gaps))
}

// spawnBatch is the number of goroutines the spawn probe makes in a row.
const spawnBatch = 8

// probeSpawn makes spawnBatch goroutines in a row, each of which blocks
// until the batch is done, and times each go statement (class "spawn",
// including one clock reading).
func probeSpawn(ctx context.Context, rounds int) samples {
	s := samples{}
	ts := make([]int64, spawnBatch+1)
	for range rounds {
		trace.Log(ctx, logCat, "spawn")
		release := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(spawnBatch)
		ts[0] = now()
		for i := 1; i <= spawnBatch; i++ {
			go func() {
				<-release
				wg.Done()
			}()
			ts[i] = now()
		}
		close(release)
		wg.Wait()
		for i := 1; i <= spawnBatch; i++ {
			s.add("spawn", ts[i]-ts[i-1])
		}
	}
	return s
}

// probeSwitch is a ping-pong on one P: each goroutine readies the other
// (into runnext) and blocks, and the time from its block to the other
// running is one same-P hand-off (class "switch", including one clock
// reading). The first two are left out: the partner may not be waiting
// yet.
func probeSwitch(ctx context.Context, rounds int) samples {
	ping, pong := make(chan int), make(chan int)
	var mark atomic.Int64
	a := make([]int64, 0, rounds)
	b := make([]int64, 0, rounds)
	done := make(chan struct{})
	go func() {
		trace.Log(ctx, logCat, "switch")
		for v := range ping {
			b = append(b, now()-mark.Load())
			pong <- v
			mark.Store(now())
		}
		close(done)
	}()
	trace.Log(ctx, logCat, "switch")
	for r := range rounds + 2 {
		ping <- r
		mark.Store(now())
		<-pong
		a = append(a, now()-mark.Load())
	}
	close(ping)
	<-done
	s := samples{}
	for _, v := range a[2:] {
		s.add("switch", v)
	}
	for _, v := range b[2:] {
		s.add("switch", v)
	}
	return s
}

// probeGosched is two goroutines on one P calling runtime.Gosched in
// turn: the time from one's call to the other running on is a Gosched
// (class "gosched", including one clock reading). The first and last two
// of each are left out: the other may not have started yet, or be done.
func probeGosched(ctx context.Context, rounds int) samples {
	var mark atomic.Int64
	var wg sync.WaitGroup
	got := make([][]int64, 2)
	for i := range 2 {
		wg.Go(func() {
			trace.Log(ctx, logCat, "gosched")
			out := make([]int64, 0, rounds+4)
			for range rounds + 4 {
				mark.Store(now())
				runtime.Gosched()
				out = append(out, now()-mark.Load())
			}
			got[i] = out
		})
	}
	wg.Wait()
	s := samples{}
	for _, out := range got {
		for _, v := range out[2 : len(out)-2] {
			s.add("gosched", v)
		}
	}
	return s
}

// wakeSpin is how long the waker runs, once the sleeper is about to block,
// before readying it, so that the other P has gone idle (a spinning M gives
// up within microseconds). How long a thread has been idle decides how
// long it takes to wake: on a VM the idle vCPU polls for a while (KVM's
// halt polling, 200µs by default) before the host deschedules it. 100µs
// is the idle of a short racy program between bursts, as in
// bench/faithfulness's wake_window; wakeWindow is how long the waker keeps
// running after the ready: a sleeper that has not run by then is not a
// sample.
const (
	wakeSpin   = 100_000
	wakeWindow = 5_000_000
)

// A wakeResult is what the readied goroutine reports.
type wakeResult struct {
	latency int64 // from just before the ready to its running, by the clock
	tid     int64 // the thread it ran on
}

// probeWake readies a goroutine while the waker goes on running and the
// other P is idle: the other P's thread must wake up, steal it from the
// waker's runnext and run it (class "wake": the interval from the ready to
// it running). The waker logs "wake" just before the ready and "round
// CLASS" after the round ("round skip" if the sleeper was not waiting in
// time or did not run within wakeWindow). Needs at least 2 Ps.
func probeWake(ctx context.Context, rounds int) samples {
	s := samples{}
	for range rounds {
		ch := make(chan int64, 1)
		res := make(chan int64, 1)
		var blocked atomic.Bool
		go func() {
			blocked.Store(true)
			t0 := <-ch
			res <- now() - t0
		}()
		// The sleeper is made on this P and stolen by the other, which
		// wakes for it: wait until it is about to block, then long
		// enough for the other P's thread to have gone back to sleep.
		for deadline := now() + wakeWindow; !blocked.Load() && now() < deadline; {
		}
		spin(wakeSpin)
		ok := blocked.Load()
		trace.Log(ctx, logCat, "wake")
		ch <- now()
		for end := now() + wakeWindow; len(res) == 0 && now() < end; {
		}
		latency := <-res
		class := "wake"
		if !ok || latency > wakeWindow {
			class = "skip"
		}
		// The round's class, for the analysis of the trace; logged
		// after the timing.
		trace.Log(ctx, logCat, "round "+class)
		if class != "skip" {
			s.add(class, latency)
		}
	}
	return s
}

// handoffGap is the pause between two rounds of probeHandoff, for the
// thread a round ended (a locked goroutine's exit) to be gone.
const handoffGap = 200_000

// probeHandoff times startm's two ways of finding a thread for a P: an
// idle M from the list (mget, notewakeup) or a new one (newm, clone). A
// goroutine locked to its thread readies another into its runnext and
// blocks; the locked thread stops (stoplockedm) and hands its P off
// (handoffp, which sees the runnable goroutine and calls startm), and the
// thread startm finds runs the readied goroutine. The interval is from
// just before the block to the readied goroutine running. With exit, the
// locked goroutine exits still locked, which ends its thread (mexit), so
// that the next rounds find fewer idle threads and startm makes new ones;
// without, it unlocks first and its thread goes back to the idle list.
// Rounds whose readied goroutine ran on a thread that /proc/self/task did
// not list just before the block are class "handoff_new", the others
// "handoff_idle". One P is enough (and is what the probe runs at).
func probeHandoff(rounds int, exit bool) samples {
	s := samples{}
	for range rounds {
		res := make(chan wakeResult, 1)
		done := make(chan struct{})
		var before map[int64]bool
		go func() {
			runtime.LockOSThread()
			before = threads()
			var t0 int64
			go func() { res <- wakeResult{latency: now() - t0, tid: gettid()} }()
			t0 = now()
			<-done
			if !exit {
				runtime.UnlockOSThread()
			}
		}()
		r := <-res
		close(done)
		class := "handoff_idle"
		if !before[r.tid] {
			class = "handoff_new"
		}
		s.add(class, r.latency)
		time.Sleep(handoffGap * time.Nanosecond)
	}
	return s
}

// probeUsleep times runqgrab's usleep(3) (class "usleep"): the thief's
// sleep before it takes the runnext of a running P. The thread is locked
// so that the sleeps are one thread's, as the thief's are.
func probeUsleep(rounds int) samples {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s := samples{}
	for range rounds {
		t0 := now()
		usleep3()
		s.add("usleep", now()-t0)
	}
	return s
}

// stallMin is the shortest gap between two clock readings of a spinning
// goroutine that probeStalls counts as its thread losing the CPU: a
// reading takes tens of ns, a timer interrupt a few µs.
const stallMin = 1000

// probeStalls runs one goroutine per P, each reading the clock in a tight
// loop for d ns, as the racy programs' goroutines run code on every CPU
// at once. A gap of stallMin or more between two readings is a stall
// (class "stall", its length); the time a goroutine ran between two of
// its stalls is class "stall_every", and when the stall began, since the
// probe did, class "stall_at".
func probeStalls(procs int, d int64) samples {
	res := make(chan samples, procs)
	for range procs {
		go func() {
			s := samples{}
			start := now()
			last, run := start, start
			for last-start < d {
				t := now()
				if gap := t - last; gap >= stallMin {
					s.add("stall", gap)
					s.add("stall_every", last-run)
					s.add("stall_at", last-start)
					run = t
				}
				last = t
			}
			res <- s
		}()
	}
	all := samples{}
	for range procs {
		all.merge(<-res)
	}
	return all
}

// Stalls runs calibrate's stall probe, one goroutine per P reading the
// clock in a tight loop for d, and returns every stall it saw, each
// goroutine's in the order they came: when it began since the probe did,
// how long it lasted, and how long the goroutine had run before it
// (since it began or since its last stall), in ns. calibrate keeps only
// their quantiles; bench/faithfulness/stalltimes keeps them all.
func Stalls(procs int, d time.Duration) (at, length, every []int64) {
	st := probeStalls(procs, int64(d))
	ints := func(xs []float64) []int64 {
		out := make([]int64, len(xs))
		for i, x := range xs {
			out[i] = int64(x)
		}
		return out
	}
	return ints(st["stall_at"]), ints(st["stall"]), ints(st["stall_every"])
}

// syscallBatch is the number of syscalls the syscall probe makes in a row.
const syscallBatch = 16

// probeSyscall makes syscallBatch short syscalls through the runtime's
// entersyscall/exitsyscall, then as many raw ones (no runtime entry or
// exit), and takes the difference per call as the runtime's own cost of
// a syscall (class "syscall"); the raw time per call is class "raw", the
// kernel's share.
func probeSyscall(ctx context.Context, rounds int) samples {
	s := samples{}
	for range rounds {
		trace.Log(ctx, logCat, "syscall")
		t0 := now()
		for range syscallBatch {
			doSyscall()
		}
		t1 := now()
		for range syscallBatch {
			rawSyscall()
		}
		t2 := now()
		s.add("syscall", ((t1-t0)-(t2-t1))/syscallBatch)
		s.add("raw", (t2-t1)/syscallBatch)
	}
	return s
}

// timerDurations are the sleeps of the timer probe, in order; those
// below 1ms are class "timer_short", the others "timer_long".
var timerDurations = []int64{50_000, 200_000, 500_000, 1_000_000, 2_000_000}

func timerClass(d int64) string {
	if d < 1_000_000 {
		return "timer_short"
	}
	return "timer_long"
}

// probeTimers sleeps each of timerDurations in turn and times how much
// later than asked the goroutine runs again (its class).
func probeTimers(ctx context.Context, rounds int) samples {
	s := samples{}
	trace.Log(ctx, logCat, "timers")
	for range rounds {
		for _, d := range timerDurations {
			t0 := now()
			time.Sleep(time.Duration(d))
			s.add(timerClass(d), now()-t0-d)
		}
	}
	return s
}

// The mark probe's live heap: gcMarkBlocks blocks of gcMarkBlock bytes
// of pointers, every one pointing at the same int, the shape of
// bench/gcpacing's `pointers` program and of a script's retain(n) (each
// byte scanned, little to grey).
const (
	gcMarkBlock  = 16 << 10
	gcMarkBlocks = 256 // 4 MiB
)

// gcMarkMetrics are what the mark probe reads after each cycle: the mark
// CPU of the assists and of the dedicated, fractional and idle workers
// (the pauses are apart, in /cpu/classes/gc/pause), and the cycle's scan
// work (heap scanned, stacks, globals).
var gcMarkMetrics = []string{
	"/cpu/classes/gc/mark/assist:cpu-seconds",
	"/cpu/classes/gc/mark/dedicated:cpu-seconds",
	"/cpu/classes/gc/mark/idle:cpu-seconds",
	"/gc/scan/total:bytes",
}

// probeGCMark forces rounds collections of a live heap of pointers, at
// whatever GOMAXPROCS the caller set, and takes each cycle's mark CPU
// over its scan work, in ns per MiB (class "gcmark"; the scan work itself
// is class "gcscan", in bytes), from
// runtime/metrics: the runtime times its own workers and counts the
// bytes they scanned, so the probe needs no clock of its own.
func probeGCMark(rounds int) samples {
	var target int
	live := make([][]*int, gcMarkBlocks)
	for i := range live {
		b := make([]*int, gcMarkBlock/8)
		for j := range b {
			b[j] = &target
		}
		live[i] = b
	}
	ms := make([]metrics.Sample, len(gcMarkMetrics))
	for i, name := range gcMarkMetrics {
		ms[i].Name = name
	}
	markCPU := func() float64 {
		metrics.Read(ms)
		return ms[0].Value.Float64() + ms[1].Value.Float64() + ms[2].Value.Float64()
	}
	runtime.GC() // the first cycle after the build-up marks it; it is swept by the next
	s := samples{}
	for range rounds {
		before := markCPU()
		runtime.GC()
		cpu := markCPU() - before
		if scan := ms[3].Value.Uint64(); scan > 0 && cpu > 0 {
			s.add("gcmark", int64(cpu*1e9*(1<<20)/float64(scan)))
			s.add("gcscan", int64(scan))
		}
	}
	runtime.KeepAlive(live)
	return s
}

// sysmonSleepNS is sysmon's shortest sleep, usleep(20), in ns.
const sysmonSleepNS = 20 * 1000

// probeSysmonSleep times rounds of sysmon's usleep(20) (usleep20) while
// another goroutine spins, as a program's goroutines run while sysmon
// watches them, and returns how late each returned, class "usleep".
func probeSysmonSleep(rounds int) samples {
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		for !stop.Load() {
		}
		close(done)
	}()
	s := samples{}
	for range rounds {
		t0 := now()
		usleep20()
		s.add("usleep", now()-t0-sysmonSleepNS)
	}
	stop.Store(true)
	<-done
	return s
}

// writeBatch is the number of lines the write probe writes in a row.
const writeBatch = 16

// writeLine is the write probe's line: a short line, as programs print.
var writeLine = []byte("worker 3 done: 1234567\n")

// probeWrite writes writeBatch lines to a pipe, one raw write(2) each, as
// a program's printed lines go to a pipe that another process reads (the
// recordings' `| sort`), and takes the time per call (class "write"):
// the kernel's part of a print; the runtime's part is the syscall
// probe's. The pipe is drained between rounds, outside the timing.
func probeWrite(rounds int) (samples, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	defer w.Close()
	fd := w.Fd()
	buf := make([]byte, writeBatch*len(writeLine))
	s := samples{}
	for range rounds {
		wrote := 0
		t0 := now()
		for range writeBatch {
			wrote += rawWrite(fd, writeLine)
		}
		s.add("write", (now()-t0)/writeBatch)
		if wrote != len(buf) {
			return nil, fmt.Errorf("wrote %d bytes of %d to the pipe", wrote, len(buf))
		}
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
	}
	return s, nil
}
