package runtime

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The tests in this file pin where each cost of a profile is charged and
// how Ps run in parallel on the clock. Each profile has one constant cost
// (or a few), so the time of an event says which cost it paid.

// costsOf returns a profile whose cost k is the constant ns, every other 0.
func costsOf(kv ...any) *Costs {
	c := &Costs{Name: "test"}
	for i := 0; i < len(kv); i += 2 {
		c.Dists[kv[i].(CostKind)] = Const(int64(kv[i+1].(int)))
	}
	return c
}

// firstEvent returns the first event of kind k (and of G goid, unless 0).
func firstEvent(t *testing.T, evs []Event, k EventKind, goid int64) Event {
	t.Helper()
	for _, ev := range evs {
		if ev.Kind == k && (goid == 0 || ev.G == goid) {
			return ev
		}
	}
	t.Fatalf("no %v event for G%d", k, goid)
	return Event{}
}

// newproc: the spawning G pays for newproc1 before the new G is queued, so
// GoCreate (the runqput) comes after the cost and the spawner's clock has
// moved on by it.
func TestNewprocCost(t *testing.T) {
	var after int64
	evs := events(t, Config{Procs: 1, Costs: costsOf(CostNewproc, 300)}, func(g *G, log func(string, ...any)) error {
		g.Go(func(*G) error { return nil }, "child")
		g.Go(func(*G) error { return nil }, "child")
		after = g.Now()
		return nil
	})
	var creates []int64
	for _, ev := range evs {
		if ev.Kind == EvGoCreate {
			creates = append(creates, ev.Time)
		}
	}
	if !slices.Equal(creates, []int64{300, 600}) || after != 600 {
		t.Errorf("GoCreate at %v and the spawner at %d after two spawns, want [300 600] and 600", creates, after)
	}
}

// malg: a go statement that finds no dead G to reuse (gfget) makes a new one
// and pays malg; one that reuses a G pays newproc. Two children, then,
// once they have exited and gone to G1's P's free list, two more: the
// first two pay malg, the other two newproc.
func TestMalgCostForNewGsOnly(t *testing.T) {
	evs := events(t, Config{Procs: 1, Costs: costsOf(CostNewproc, 300, CostMalg, 5000)}, func(g *G, log func(string, ...any)) error {
		for range 2 {
			g.Go(func(*G) error { return nil }, "child")
		}
		g.Gosched() // both children run and exit: two dead Gs on P0
		for range 2 {
			g.Go(func(*G) error { return nil }, "child")
		}
		return nil
	})
	var creates []int64
	for _, ev := range evs {
		if ev.Kind == EvGoCreate {
			creates = append(creates, ev.Time)
		}
	}
	if len(creates) != 4 {
		t.Fatalf("%d GoCreate events, want 4", len(creates))
	}
	if creates[0] != 5000 || creates[1] != 10000 {
		t.Errorf("the first two spawns created at %v, want 5000 and 10000 (malg each)", creates[:2])
	}
	if d := creates[3] - creates[2]; d != 300 {
		t.Errorf("the fourth spawn %dns after the third, want 300 (newproc: a reused G)", d)
	}
	// Without malg in the profile every spawn pays newproc.
	evs = events(t, Config{Procs: 1, Costs: costsOf(CostNewproc, 300)}, func(g *G, log func(string, ...any)) error {
		g.Go(func(*G) error { return nil }, "child")
		return nil
	})
	if ev := firstEvent(t, evs, EvGoCreate, 0); ev.Time != 300 {
		t.Errorf("without malg, a new G created at %d, want 300 (newproc)", ev.Time)
	}
}

// malg_rank: the program's k-th go statement that makes a new G pays
// MalgRank[k-1] in place of malg, a reused G newproc, and past the list
// malg again; the runtime's own goroutines of the start-up are not
// counted (RuntimeMain), and a profile without the list charges malg.
func TestMalgRankCost(t *testing.T) {
	ranked := costsOf(CostNewproc, 300, CostMalg, 5000)
	ranked.MalgRank = []Dist{Const(30_000), Const(1000)}
	for _, tc := range []struct {
		name  string
		costs *Costs
		main  bool
		want  []int64 // the gaps before each of the five GoCreate of main.main
	}{
		{"ranked", ranked, false, []int64{30_000, 1000, 300, 300, 5000}},
		{"ranked, start-up", ranked, true, []int64{30_000, 1000, 300, 300, 5000}},
		{"malg only", costsOf(CostNewproc, 300, CostMalg, 5000), false, []int64{5000, 5000, 300, 300, 5000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var start int64 = -1
			evs := events(t, Config{Procs: 1, Costs: tc.costs, RuntimeMain: tc.main}, func(g *G, log func(string, ...any)) error {
				start = g.m.now
				g.Go(func(*G) error { return nil }, "child")
				g.Go(func(*G) error { return nil }, "child")
				g.Gosched()                                  // both children run and exit: two dead Gs on P0
				g.Go(func(*G) error { return nil }, "child") // reuses one
				g.Go(func(*G) error { return nil }, "child") // and the other
				g.Go(func(*G) error { return nil }, "child") // the third new G
				return nil
			})
			var gaps []int64
			last := start
			for _, ev := range evs {
				if ev.Kind == EvGoCreate && ev.Time >= start && ev.G == 1 && !strings.HasPrefix(ev.Reason, "runtime.") {
					gaps = append(gaps, ev.Time-last)
					last = ev.Time
				}
				if ev.Kind == EvGoStart && ev.G == 1 && ev.Time >= start {
					last = ev.Time // main runs again after its gosched
				}
			}
			if !slices.Equal(gaps, tc.want) {
				t.Errorf("main's go statements took %v, want %v", gaps, tc.want)
			}
		})
	}
}

// print_first: the run's first printed line pays it as the G's own time
// before its write(2); the second line, by any G, does not.
func TestPrintFirstCost(t *testing.T) {
	for _, tc := range []struct {
		costs *Costs
		want  []int64 // the GoSyscallBegin times of the two lines
	}{
		{costsOf(CostWrite, 1000, CostPrintFirst, 50_000), []int64{50_000, 51_000}},
		{costsOf(CostWrite, 1000), []int64{0, 1000}},
	} {
		evs := events(t, Config{Procs: 1, Costs: tc.costs}, func(g *G, log func(string, ...any)) error {
			g.WriteStdout(nil)
			done := false
			g.Go(func(g *G) error {
				g.WriteStdout(nil)
				done = true
				return nil
			}, "printer")
			for !done {
				g.Gosched()
			}
			return nil
		})
		var begins []int64
		for _, ev := range evs {
			if ev.Kind == EvGoSyscallBegin {
				begins = append(begins, ev.Time)
			}
		}
		if !slices.Equal(begins, tc.want) {
			t.Errorf("print_first %d: the two lines' write(2) at %v, want %v", tc.costs.Dists[CostPrintFirst].Median(), begins, tc.want)
		}
	}
}

// print_first comes before the line goes out: while the run's first line
// pays it on one P, a line printed on another P goes out first, as in Go,
// where the first fmt.Println's work precedes its write(2).
func TestPrintFirstBeforeLine(t *testing.T) {
	for _, tc := range []struct {
		costs *Costs
		want  string
	}{
		{costsOf(CostWrite, 1000, CostPrintFirst, 50_000), "printer main"},
		{costsOf(CostWrite, 1000), "main printer"},
	} {
		var lines []string
		events(t, Config{Procs: 2, Costs: tc.costs}, func(g *G, log func(string, ...any)) error {
			done := false
			g.Go(func(g *G) error {
				g.WriteStdout(func() { lines = append(lines, "printer") })
				done = true
				return nil
			}, "printer")
			g.Go(func(g *G) error { return nil }, "other") // the printer to the ring, for P1 to steal
			g.WriteStdout(func() { lines = append(lines, "main") })
			for !done {
				g.Gosched()
			}
			return nil
		})
		if got := strings.Join(lines, " "); got != tc.want {
			t.Errorf("print_first %d: lines out in order %q, want %q", tc.costs.Dists[CostPrintFirst].Median(), got, tc.want)
		}
	}
}

// print_p_first: the first line printed on a P other than main's pays it
// before the line goes out, once a P; main's P's first line does not.
// write_first: the run's first write(2) lasts it, in place of write.
func TestPrintPFirstAndWriteFirst(t *testing.T) {
	type line struct {
		who string
		p   int32
		at  int64
	}
	for _, tc := range []struct {
		costs    *Costs
		want     []line
		syscalls []int64 // each write's GoSyscallBegin time and length
	}{
		{costsOf(CostWrite, 1000, CostWriteFirst, 30_000, CostPrintPFirst, 40_000),
			[]line{{"main", 0, 0}, {"printer", 1, 40_000}, {"printer", 1, 41_000}},
			[]int64{0, 30_000, 40_000, 1000, 41_000, 1000}},
		{costsOf(CostWrite, 1000),
			[]line{{"main", 0, 0}, {"printer", 1, 0}, {"printer", 1, 1000}},
			[]int64{0, 1000, 0, 1000, 1000, 1000}},
	} {
		var lines []line
		out := func(g *G, who string) func() {
			return func() { lines = append(lines, line{who, g.mp.p.id, g.m.now}) }
		}
		evs := events(t, Config{Procs: 2, Costs: tc.costs}, func(g *G, log func(string, ...any)) error {
			done := false
			g.Go(func(g *G) error {
				g.WriteStdout(out(g, "printer"))
				g.WriteStdout(out(g, "printer"))
				done = true
				return nil
			}, "printer")
			g.Go(func(g *G) error { return nil }, "other") // the printer to the ring, for P1 to steal
			g.WriteStdout(out(g, "main"))
			for !done {
				g.Work(500)
			}
			return nil
		})
		if !slices.Equal(lines, tc.want) {
			t.Errorf("print_p_first %d: lines out %v, want %v", tc.costs.Dists[CostPrintPFirst].Median(), lines, tc.want)
		}
		var syscalls []int64
		begin := map[int64]int64{}
		for _, ev := range evs {
			switch ev.Kind {
			case EvGoSyscallBegin:
				begin[ev.G] = ev.Time
			case EvGoSyscallEnd:
				syscalls = append(syscalls, begin[ev.G], ev.Time-begin[ev.G])
			}
		}
		if !slices.Equal(syscalls, tc.syscalls) {
			t.Errorf("write_first %d: writes (begin, length) %v, want %v", tc.costs.Dists[CostWriteFirst].Median(), syscalls, tc.syscalls)
		}
	}
}

// sysmon_late: sysmon's ticks last 20µs and the drawn lateness. A G
// waiting on the only P behind the P's first system call starts when
// sysmon's first pass retakes the P (TestSyscallTickRetake): at 20µs, or
// with 60µs late ticks at 80µs.
func TestSysmonLate(t *testing.T) {
	for _, tc := range []struct {
		costs *Costs
		start int64
	}{
		{costsOf(CostSyscallEnter, 0), 20_000},
		{costsOf(CostSysmonLate, 60_000), 80_000},
	} {
		if start := startBehindSyscall(t, tc.costs, false); start != tc.start {
			t.Errorf("sysmon_late %d: the waiting G starts at %d, want %d", tc.costs.Dists[CostSysmonLate].Median(), start, tc.start)
		}
	}
}

// sysmon's k-th usleep draws the profile's SysmonLateRank[k-1] when it has
// one, sysmon_late past the list, and a list alone makes the sleeps late.
// One P, a G waiting behind main's system call: the pass that retakes the
// P is the first (the call is the P's first) or, after a call has ended,
// the second.
func TestSysmonLateRank(t *testing.T) {
	ranked := func(late int64, ranks ...int64) *Costs {
		c := costsOf(CostSysmonLate, int(late))
		for _, r := range ranks {
			c.SysmonLateRank = append(c.SysmonLateRank, Const(r))
		}
		return c
	}
	for _, tc := range []struct {
		name   string
		costs  *Costs
		before bool
		start  int64
	}{
		{"first sleep ranked", ranked(60_000, 50_000), false, 70_000},
		{"a list alone", ranked(0, 50_000), false, 70_000},
		{"two ranked", ranked(60_000, 1000, 5000), true, 46_000},
		{"past the list", ranked(30_000, 1000), true, 71_000},
	} {
		if start := startBehindSyscall(t, tc.costs, tc.before); start != tc.start {
			t.Errorf("%s: the waiting G starts at %d, want %d", tc.name, start, tc.start)
		}
	}
}

// reentersyscall does not bump pp.syscalltick; exitsyscall does. So the
// first sysmon pass (20µs) that finds a P in its first system call retakes
// it at once, its tick being the one noted (none); after a call has ended
// on the P, the first pass notes the new tick and the second (40µs)
// retakes it. Mirrors retake's syscalltick test.
func TestSyscallTickRetake(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before bool  // a short system call ends on the P first
		start  int64 // when the waiting G starts
	}{
		{"first call", false, 20_000},
		{"after a call", true, 40_000},
	} {
		if start := startBehindSyscall(t, costsOf(CostSyscallEnter, 0), tc.before); start != tc.start {
			t.Errorf("%s: the waiting G starts at %d, want %d (sysmon's pass that retakes the P)", tc.name, start, tc.start)
		}
	}
}

// startBehindSyscall runs, on one P, a main that spawns a G and then makes
// a 100µs system call, after a 1ns one when before is set, and returns
// when the spawned G, waiting in the P's queue, started: when sysmon
// retook the P.
func startBehindSyscall(t *testing.T, costs *Costs, before bool) int64 {
	t.Helper()
	evs := events(t, Config{Procs: 1, Costs: costs}, func(g *G, log func(string, ...any)) error {
		if before {
			g.Syscall(1)
		}
		done := false
		g.Go(func(g *G) error { done = true; return nil }, "waiting")
		g.Syscall(100_000)
		for !done {
			g.Gosched()
		}
		return nil
	})
	return firstEvent(t, evs, EvGoStart, 2).Time
}

// park_m/goexit0 → schedule → execute: after a G blocks or exits, the next G
// starts a switch cost later; after Gosched (goschedImpl), a gosched cost
// later.
func TestSwitchAndGoschedCosts(t *testing.T) {
	evs := events(t, Config{Procs: 1, Costs: costsOf(CostSwitch, 150, CostGosched, 170)}, func(g *G, log func(string, ...any)) error {
		c, _ := g.Machine().NewChan(0)
		g.Go(func(g *G) error {
			g.Gosched() // G1 is blocked: G2 goes round the global queue alone
			return g.Send(c, 1)
		}, "child")
		g.Recv(c) // blocks at 0: G2 starts at 150
		return nil
	})
	var starts []int64
	for _, ev := range evs {
		if ev.Kind == EvGoStart {
			starts = append(starts, ev.Time)
		}
	}
	// G1 at 0; G2 at 150, a switch after G1 blocks; G2 again at 320, a
	// gosched after its Gosched; G1, readied into runnext by the send, at
	// 470, a switch after G2 exits.
	want := []int64{0, 150, 320, 470}
	if !slices.Equal(starts, want) {
		t.Errorf("GoStart at %v, want %v", starts, want)
	}
}

// startm: the M woken by wakep runs schedule a wakeup cost later, plus
// newm's when the M had to be created; an M taken from the idle list pays
// the wakeup only.
func TestWakeupAndNewmCosts(t *testing.T) {
	evs := events(t, Config{Procs: 2, Costs: costsOf(CostWakeup, 90_000, CostNewm, 25_000)}, func(g *G, log func(string, ...any)) error {
		c, _ := g.Machine().NewChan(0)
		g.Go(func(g *G) error { return g.Send(c, 1) }, "a")
		g.Work(1_000_000) // M1 is made and steals a at 115µs; a blocks, M1 parks
		g.Recv(c)         // readies a: wakep takes M1 from the idle list
		g.Go(func(g *G) error { return g.Send(c, 1) }, "b")
		g.Work(1_000_000) // M1 steals a (kicked to the ring) 90µs after
		g.Recv(c)
		return nil
	})
	var steals []int64
	for _, ev := range evs {
		if ev.Kind == EvRunqSteal {
			steals = append(steals, ev.Time)
		}
	}
	if len(steals) < 2 || steals[0] != 115_000 {
		t.Fatalf("steals at %v, want the first at 115µs (wakeup 90µs + newm 25µs)", steals)
	}
	var second Event // the spawn of b, at the instant of the Recv's wakep
	for _, ev := range evs {
		if ev.Kind == EvGoCreate {
			second = ev
		}
	}
	if d := steals[1] - second.Time; d != 90_000 {
		t.Errorf("the idle M stole %dns after it was woken, want 90µs (wakeup only)", d)
	}
}

// entersyscall/exitsyscall: the G pays syscall_enter before the call and
// syscall_exit after it, on its P.
func TestSyscallCosts(t *testing.T) {
	var after int64
	evs := events(t, Config{Procs: 1, Costs: costsOf(CostSyscallEnter, 60, CostSyscallExit, 80)}, func(g *G, log func(string, ...any)) error {
		g.Syscall(1000)
		after = g.Now()
		return nil
	})
	begin := firstEvent(t, evs, EvGoSyscallBegin, 1)
	end := firstEvent(t, evs, EvGoSyscallEnd, 1)
	if begin.Time != 60 || end.Time != 1060 || after != 1140 {
		t.Errorf("syscall from %d to %d, G at %d after it; want 60, 1060, 1140", begin.Time, end.Time, after)
	}
}

// A system call that sleeps on a kernel timer (nanosleep) returns late
// by timer_late, whatever its length (no netpoll rounds it to a
// millisecond: never timer_late_short); a plain one lasts exactly d. A
// profile with syscall_timer_late, nanosleep's own lateness, adds that
// instead.
func TestSyscallTimerLate(t *testing.T) {
	timerLate := costsOf(CostTimerLate, 100_000, CostTimerLateShort, 900_000)
	sleepLate := costsOf(CostTimerLate, 100_000, CostTimerLateShort, 900_000, CostSyscallTimerLate, 60_000)
	for _, tc := range []struct {
		costs *Costs
		d     int64
		timer bool
		want  int64
	}{
		{timerLate, 1_000_000, true, 1_100_000},
		{timerLate, 10_000, true, 110_000},
		{timerLate, 1_000_000, false, 1_000_000},
		{sleepLate, 1_000_000, true, 1_060_000},
		{sleepLate, 10_000, true, 70_000},
		{sleepLate, 1_000_000, false, 1_000_000},
	} {
		costs := tc.costs
		var begin, end Event
		evs := events(t, Config{Procs: 1, Costs: costs}, func(g *G, log func(string, ...any)) error {
			if tc.timer {
				g.SyscallTimer(tc.d)
			} else {
				g.Syscall(tc.d)
			}
			return nil
		})
		begin = firstEvent(t, evs, EvGoSyscallBegin, 1)
		end = firstEvent(t, evs, EvGoSyscallEnd, 1)
		if got := end.Time - begin.Time; got != tc.want {
			t.Errorf("syscall(%s, timer=%v) lasted %s, want %s", FormatDuration(tc.d), tc.timer, FormatDuration(got), FormatDuration(tc.want))
		}
	}
}

// A timer on an idle P runs late by the profile's lateness (the M asleep in
// netpoll wakes late), short timers by the short lateness; a P that goes
// through findRunnable runs a due timer on time.
func TestTimerLateness(t *testing.T) {
	costs := costsOf(CostTimerLate, 100_000, CostTimerLateShort, 900_000)
	for _, tc := range []struct {
		d, want int64
	}{
		{2_000_000, 2_100_000},
		{1_000_000, 1_100_000},
		{100_000, 1_000_000},
	} {
		var woke int64
		run(t, Config{Procs: 1, Costs: costs}, func(g *G, log func(string, ...any)) error {
			g.Sleep(tc.d)
			woke = g.Now()
			return nil
		})
		if woke != tc.want {
			t.Errorf("sleep(%s) woke at %s, want %s", FormatDuration(tc.d), FormatDuration(woke), FormatDuration(tc.want))
		}
	}
	// A busy P that yields every 10µs runs its own timer at the first
	// schedule after the deadline, not 100µs late.
	var woke int64
	run(t, Config{Procs: 1, Costs: costs}, func(g *G, log func(string, ...any)) error {
		done := false
		g.Go(func(g *G) error {
			g.Sleep(1_000_000)
			woke = g.Now()
			done = true
			return nil
		}, "sleeper")
		for !done {
			g.Work(10_000)
			g.Gosched()
		}
		return nil
	})
	if woke < 1_000_000 || woke > 1_010_000 {
		t.Errorf("a busy P ran its timer at %s, want by 1.01ms", FormatDuration(woke))
	}
}

// stealWork: each of the four rounds costs a steal pass, and runnext is
// taken only in the last: a G left in runnext of a P whose G works is
// stolen four passes after the thief woke.
func TestStealPassCost(t *testing.T) {
	evs := events(t, Config{Procs: 2, Costs: costsOf(CostWakeup, 10_000, CostStealPass, 300)}, func(g *G, log func(string, ...any)) error {
		c, _ := g.Machine().NewChan(0)
		g.Go(func(g *G) error { return g.Send(c, 1) }, "a")
		g.Work(1_000_000)
		g.Recv(c)
		return nil
	})
	steal := firstEvent(t, evs, EvRunqSteal, 0)
	if steal.Time != 10_000+4*300 {
		t.Errorf("runnext stolen at %dns, want %d (woken at 10µs, then 4 passes of 300ns)", steal.Time, 10_000+4*300)
	}
}

// runqgrab's usleep(3): a thief that finds only the runnext of a running P
// sleeps for runnext_sleep first, and takes the G only if it is still
// there. While the victim goes on running it is (woken at 10µs, four
// passes, then the sleep); when the victim blocks during the sleep, it
// runs its runnext itself and the thief takes nothing. Broken if the thief
// steals at once, or if it takes a runnext the victim has run meanwhile.
func TestRunnextSleep(t *testing.T) {
	costs := costsOf(CostWakeup, 10_000, CostStealPass, 300, CostRunnextSleep, 50_000)
	prog := func(work int64) func(g *G, log func(string, ...any)) error {
		return func(g *G, log func(string, ...any)) error {
			c, _ := g.Machine().NewChan(0)
			g.Go(func(g *G) error { return g.Send(c, 1) }, "a")
			g.Work(work)
			g.Recv(c)
			return nil
		}
	}
	evs := events(t, Config{Procs: 2, Costs: costs}, prog(1_000_000))
	steal := firstEvent(t, evs, EvRunqSteal, 0)
	if want := int64(10_000 + 4*300 + 50_000); steal.Time != want {
		t.Errorf("runnext stolen at %dns, want %d (woken at 10µs, 4 passes of 300ns, a sleep of 50µs)", steal.Time, want)
	}

	evs = events(t, Config{Procs: 2, Costs: costs}, prog(20_000))
	for _, ev := range evs {
		if ev.Kind == EvRunqSteal {
			t.Errorf("%dns: P%d stole G%d from P%d, which blocked at 20µs and ran its runnext itself", ev.Time, ev.P, ev.G2, ev.P2)
		}
	}
	start := firstEvent(t, evs, EvGoStart, 2)
	if start.P != 0 || start.Time < 20_000 {
		t.Errorf("G2 started on P%d at %dns, want P0 after main blocks at 20µs", start.P, start.Time)
	}
}

// A clockGap is where a program's logged clock moved by more than a step.
type clockGap struct {
	at    int   // the line (0 for the first)
	extra int64 // ns the clock moved to it more than the step
}

// clockGaps reads out, one clock reading a line from 0, and returns the
// lines where the clock moved by more than step since the line before.
func clockGaps(out string, step int64) []clockGap {
	var gaps []clockGap
	prev := int64(0)
	for i, line := range strings.Fields(out) {
		now, _ := strconv.ParseInt(line, 10, 64)
		if d := now - prev; d > step {
			gaps = append(gaps, clockGap{i, d - step})
		}
		prev = now
	}
	return gaps
}

// safePoints is a program that runs n steps, each followed by a safe
// point, and logs the clock after each.
func safePoints(n int) func(g *G, log func(string, ...any)) error {
	return func(g *G, log func(string, ...any)) error {
		for range n {
			g.RanSteps(1)
			g.SafePoint()
			log("%d", g.Now())
		}
		return nil
	}
}

// Perturb.Stalls: once a thread has run for stall_every, its next safe
// point costs its P a stall, the G still running there (no other G starts
// and none is switched). Without SampleCosts, a run that charges medians,
// there are none. Broken if a stall switched the G out, or came early.
func TestStalls(t *testing.T) {
	costs := costsOf(CostStep, 1000, CostStall, 5_000, CostStallEvery, 10_000)
	prog := safePoints(30)
	out, res := run(t, Config{Procs: 1, Costs: costs, Perturb: Perturb{SampleCosts: true, Stalls: true}}, prog)
	if res.Outcome != Exited {
		t.Fatalf("%v: %v", res.Outcome, res.Err)
	}
	var jumps []int
	for _, gp := range clockGaps(out, 1000) {
		jumps = append(jumps, gp.at)
		if gp.extra != 5000 {
			t.Errorf("line %d: the clock moved %dns, want a step (1µs) and a stall (5µs)", gp.at, 1000+gp.extra)
		}
	}
	// The first safe point draws when the first stall is due: 10µs of
	// running later, at the 11th, then after every 10 more steps.
	if want := []int{10, 20}; !slices.Equal(jumps, want) {
		t.Errorf("stalls at safe points %v, want %v", jumps, want)
	}
	evs := events(t, Config{Procs: 1, Costs: costs, Perturb: Perturb{SampleCosts: true, Stalls: true}}, prog)
	n := 0
	for _, ev := range evs {
		if ev.Kind == EvGoStart {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d GoStart events, want 1: a stall switches no goroutine", n)
	}
	out, _ = run(t, Config{Procs: 1, Costs: costs, Perturb: Perturb{Stalls: true}}, prog)
	if f := strings.Fields(out); f[len(f)-1] != "30000" {
		t.Errorf("medians only: the last clock %s, want 30000 (no stalls)", f[len(f)-1])
	}
}

// A profile with stall_wake_at and stall_wake gives a thread's first
// stall since it woke its own due time and length: after 2µs of running,
// 20µs, then the usual ones (stall_every, stall). The same G sleeps and
// wakes, its thread parked meanwhile, and gets a wake stall again.
// Without the two costs the first stall is an ordinary one, as
// TestStalls has it. Broken if the first stall drew stall_every or
// stall, or if every stall were a wake stall.
func TestStallAfterWake(t *testing.T) {
	costs := costsOf(CostStep, 1000, CostStall, 5_000, CostStallEvery, 10_000, CostStallWake, 20_000, CostStallWakeAt, 2_000)
	prog := func(g *G, log func(string, ...any)) error {
		for round := range 2 {
			if round == 1 {
				g.Sleep(1_000_000)
			}
			for range 16 {
				g.RanSteps(1)
				g.SafePoint()
				log("%d", g.Now())
			}
		}
		return nil
	}
	out, res := run(t, Config{Procs: 1, Costs: costs, Perturb: Perturb{SampleCosts: true, Stalls: true}}, prog)
	if res.Outcome != Exited {
		t.Fatalf("%v: %v", res.Outcome, res.Err)
	}
	var stalls []string
	for _, gp := range clockGaps(out, 1000) {
		if gp.extra < 499_000 { // not the sleep
			stalls = append(stalls, fmt.Sprintf("%d:%d", gp.at, gp.extra))
		}
	}
	// Round one: the first safe point draws 2µs, so the 3rd stalls 20µs;
	// then every 10µs of running, 5µs. Round two, after the sleep: the
	// same from its first safe point (the 17th).
	want := []string{"2:20000", "12:5000", "18:20000", "28:5000"}
	if !slices.Equal(stalls, want) {
		t.Errorf("stalls (safe point:length) %v, want %v", stalls, want)
	}
}

// A profile with stall_early, stall_early_every and stall_early_until
// draws a thread's stalls from the first two while the run's clock is
// before the third: the first stall is due 2µs in (at 3µs) and lasts
// 20µs; the clock is then past 15µs, so the next is due 10µs later and
// lasts 5µs, as every one after it. Broken if the early costs were drawn
// after stall_early_until, or never.
func TestStallsEarly(t *testing.T) {
	costs := costsOf(CostStep, 1000, CostStall, 5_000, CostStallEvery, 10_000, CostStallEarly, 20_000, CostStallEarlyEvery, 2_000, CostStallEarlyUntil, 15_000)
	prog := safePoints(30)
	out, res := run(t, Config{Procs: 1, Costs: costs, Perturb: Perturb{SampleCosts: true, Stalls: true}}, prog)
	if res.Outcome != Exited {
		t.Fatalf("%v: %v", res.Outcome, res.Err)
	}
	var stalls []string
	for _, gp := range clockGaps(out, 1000) {
		stalls = append(stalls, fmt.Sprintf("%d:%d", gp.at, gp.extra))
	}
	if want := []string{"2:20000", "12:5000", "22:5000"}; !slices.Equal(stalls, want) {
		t.Errorf("stalls (safe point:length) %v, want %v", stalls, want)
	}

	// With runtime.main's start-up the same stalls come, the young
	// run's window counted from main.main (hundreds of µs in), as the
	// stall probe's is. Broken if the window counted from the run's
	// start (no early stall at all).
	var at int64
	prog = func(g *G, log func(string, ...any)) error {
		at = g.Now()
		for range 30 {
			g.RanSteps(1)
			g.SafePoint()
			log("%d", g.Now()-at)
		}
		return nil
	}
	out, res = run(t, Config{Procs: 1, Costs: costs, RuntimeMain: true, Perturb: Perturb{SampleCosts: true, Stalls: true}}, prog)
	if res.Outcome != Exited {
		t.Fatalf("%v: %v", res.Outcome, res.Err)
	}
	if at < 15_000 {
		t.Errorf("main.main at %dns: want it past the window's 15µs", at)
	}
	stalls = nil
	for _, gp := range clockGaps(out, 1000) {
		stalls = append(stalls, fmt.Sprintf("%d:%d", gp.at, gp.extra))
	}
	if want := []string{"2:20000", "12:5000", "22:5000"}; !slices.Equal(stalls, want) {
		t.Errorf("with the start-up: stalls (safe point:length) %v, want %v", stalls, want)
	}
}

// A profile with switch_wake charges it for an M's first switch after
// it parked: main sleeps (its M parks, the timer wakes it), spawns a
// child and parks, and the child starts switch_wake (15µs) later; the
// child readies main and exits, and main runs switch (100ns) after
// that. Without switch_wake every switch costs switch. Broken if the
// flag were not set at the park, or not cleared at the first switch.
func TestSwitchAfterWake(t *testing.T) {
	for _, tc := range []struct {
		costs *Costs
		want  string
	}{
		{costsOf(CostSwitch, 100, CostSwitchWake, 15_000), "1000000 1015000 1015100"},
		{costsOf(CostSwitch, 100), "1000000 1000100 1000200"},
	} {
		prog := func(g *G, log func(string, ...any)) error {
			g.Sleep(1_000_000)
			log("%d", g.Now())
			g.Go(func(c *G) error {
				log("%d", c.Now())
				return c.Ready(g, nil)
			}, "child")
			g.Park("wait")
			log("%d", g.Now())
			return nil
		}
		out, res := run(t, Config{Procs: 1, Costs: tc.costs}, prog)
		if res.Outcome != Exited {
			t.Fatalf("%v: %v", res.Outcome, res.Err)
		}
		if got := strings.Join(strings.Fields(out), " "); got != tc.want {
			t.Errorf("clocks %s, want %s", got, tc.want)
		}
	}
}

// Two Gs on two Ps that run code advance their own Ps' clocks, and the
// engine always moves the P whose clock is earliest: the clocks the Gs
// see come out in order across both, they take turns, and their
// read-modify-write of a shared counter, charged as two steps, loses
// updates. With the zero profile code runs in one instant and nothing is
// lost.
func TestParallelStepsInterleave(t *testing.T) {
	const n = 10000
	type obs struct {
		g   int
		now int64
	}
	incr := func(costs *Costs) (int, []obs) {
		counter := 0
		var seen []obs
		_, res := run(t, Config{Procs: 2, Costs: costs}, func(g *G, log func(string, ...any)) error {
			wg := g.Machine().NewWaitGroup()
			for i := range 2 {
				g.Add(wg, 1)
				g.Go(func(g *G) error {
					for range n {
						v := counter
						g.RanSteps(3)
						counter = v + 1
						g.RanSteps(2)
						seen = append(seen, obs{i, g.Now()})
					}
					return g.Add(wg, -1)
				}, "incr")
			}
			g.Wait(wg)
			return nil
		})
		if res.Outcome != Exited {
			t.Fatalf("%v: %v", res.Outcome, res.Err)
		}
		return counter, seen
	}
	got, seen := incr(costsOf(CostStep, 1, CostWakeup, 1000))
	if got >= 2*n || got < n {
		t.Errorf("counter %d after 2×%d increments on two Ps, want lost updates (between %d and %d)", got, n, n, 2*n-1)
	}
	turns := 0
	for i := 1; i < len(seen); i++ {
		if seen[i].now < seen[i-1].now {
			t.Fatalf("G%d saw %d after G%d saw %d: the engine moved a P whose clock was not the earliest", seen[i].g, seen[i].now, seen[i-1].g, seen[i-1].now)
		}
		if seen[i].g != seen[i-1].g {
			turns++
		}
	}
	if turns < n/2 {
		t.Errorf("the Gs took %d turns in %d increments, want them to alternate", turns, 2*n)
	}
	if got, _ := incr(ZeroCosts()); got != 2*n {
		t.Errorf("zero costs: counter %d, want %d: code runs in one instant", got, 2*n)
	}
}

// Steps are charged at the step cost; the run ahead of the clock when no
// action is due is what queueing and performing the resume would do: the
// same events at the same times.
func TestRanStepsRunAheadSameAsLoop(t *testing.T) {
	prog := func(g *G, log func(string, ...any)) error {
		c, _ := g.Machine().NewChan(1)
		for i := range 3 {
			g.Go(func(g *G) error {
				for range 200 {
					g.RanSteps(7)
				}
				log("G%d done at %d", g.ID(), g.Now())
				return g.Send(c, i)
			}, "w")
		}
		for range 3 {
			g.Recv(c)
		}
		log("main at %d", g.Now())
		return nil
	}
	cfg := Config{Procs: 2, Costs: DefaultCosts()}
	fast := fmt.Sprint(events(t, cfg, prog))
	noRunAhead = true
	defer func() { noRunAhead = false }()
	slow := fmt.Sprint(events(t, cfg, prog))
	if fast != slow {
		t.Errorf("running ahead changed the run:\n%s\nvs\n%s", fast, slow)
	}
}

// retake/preemptone: when steps take time, the time slice is sysmon's 10ms
// of the P's clock, as in Go: a G that only runs code is preempted in the
// middle of a charge 10 to 20ms after its slice began, and the G queued
// behind it runs. With preemption off it keeps its P.
func TestStepsPreemptedBySysmon(t *testing.T) {
	for _, noPreempt := range []bool{false, true} {
		var otherAt int64 = -1
		_, res := run(t, Config{Procs: 1, NoPreempt: noPreempt, Costs: costsOf(CostStep, 1), MaxTime: 100_000_000}, func(g *G, log func(string, ...any)) error {
			stop := false
			wg := g.Machine().NewWaitGroup()
			g.Add(wg, 2)
			g.Go(func(g *G) error {
				otherAt = g.Now()
				stop = true
				return g.Add(wg, -1)
			}, "other")
			g.Go(func(g *G) error {
				for !stop {
					g.RanSteps(64)
				}
				return g.Add(wg, -1)
			}, "spinner")
			g.Wait(wg)
			return nil
		})
		switch {
		case noPreempt && (res.Outcome != Limit || otherAt != -1):
			t.Errorf("preemption off: outcome %v, other ran at %d; want the virtual time limit, other never", res.Outcome, otherAt)
		case !noPreempt && (res.Outcome != Exited || otherAt < 10_000_000 || otherAt > 21_000_000):
			t.Errorf("preemption on: outcome %v, other ran at %s; want it between 10ms and 21ms", res.Outcome, FormatDuration(otherAt))
		}
	}
}

// Perturb.SampleCosts draws every cost from its distribution with the
// run's PRNG: the steal varies with the seed, within the distributions of
// the costs on its way (the go statement, the new M's start and wake-up,
// the thief's nap before it takes runnext), and replays with it.
func TestSampleCosts(t *testing.T) {
	costs := DefaultCosts()
	w := costs.Dist(CostWakeup)
	var most int64 // the latest the steal can come: every cost on its way at its largest
	for _, k := range []CostKind{CostNewproc, CostMalg, CostNewm, CostWakeup, CostRunnextSleep, CostStealPass} {
		most += costs.Dist(k).Quantiles[NumQuantiles-1]
	}
	stealAt := func(seed uint64, sample bool) int64 {
		evs := events(t, Config{Procs: 2, Seed: seed, Costs: costs, Perturb: Perturb{SampleCosts: sample}}, func(g *G, log func(string, ...any)) error {
			c, _ := g.Machine().NewChan(0)
			g.Go(func(g *G) error { return g.Send(c, 1) }, "a")
			g.Work(10_000_000)
			g.Recv(c)
			return nil
		})
		return firstEvent(t, evs, EvRunqSteal, 0).Time
	}
	median := stealAt(1, false)
	seen := map[int64]bool{}
	for seed := range uint64(20) {
		at := stealAt(seed, true)
		if again := stealAt(seed, true); again != at {
			t.Fatalf("seed %d: stole at %d, then at %d", seed, at, again)
		}
		if at < w.Quantiles[0] || at > most {
			t.Errorf("seed %d: stole at %d, outside [%d, %d]: the least wake-up, and every cost on the way at its largest", seed, at, w.Quantiles[0], most)
		}
		seen[at] = true
	}
	if len(seen) < 15 {
		t.Errorf("20 seeds gave %d different wake-ups", len(seen))
	}
	if stealAt(2, false) != median {
		t.Error("without SampleCosts the seed changed the wake-up")
	}
}

// step_ps: a profile with it charges steps in picoseconds in place of
// step's whole ns, and a G carries what is under a ns to its next steps:
// 1000 steps at 99ps take 99ns in any pieces, where step's 1ns would make
// them 1000ns.
func TestStepPsCarry(t *testing.T) {
	for _, piece := range []uint64{1, 3, 7, 1000} {
		var at int64
		run(t, Config{Procs: 1, Costs: costsOf(CostStep, 1, CostStepPs, 99)}, func(g *G, log func(string, ...any)) error {
			start := g.Now()
			for n := uint64(0); n < 1000; n += piece {
				g.RanSteps(min(piece, 1000-n))
			}
			at = g.Now() - start
			return nil
		})
		if at != 99 {
			t.Errorf("1000 steps at 99ps in pieces of %d took %dns, want 99", piece, at)
		}
	}
	var at int64
	run(t, Config{Procs: 1, Costs: costsOf(CostStep, 1)}, func(g *G, log func(string, ...any)) error {
		g.RanSteps(1000)
		at = g.Now()
		return nil
	})
	if at != 1000 {
		t.Errorf("without step_ps, 1000 steps took %dns, want step's 1000", at)
	}
}

// With Perturb.SampleCosts a G draws its step_ps once, for its life: its
// steps all cost the same, whatever the pieces, and two Gs may differ.
func TestStepPsDrawnOncePerG(t *testing.T) {
	costs := DefaultCosts()
	costs.Dists[CostStepPs] = Dist{N: 2}
	for i := range costs.Dists[CostStepPs].Quantiles {
		costs.Dists[CostStepPs].Quantiles[i] = int64(100 + 100*i) // 100ps to 2100ps
	}
	took := map[int64]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		run(t, Config{Procs: 1, Seed: seed, Costs: costs, Perturb: Perturb{SampleCosts: true}}, func(g *G, log func(string, ...any)) error {
			start := g.Now()
			g.RanSteps(1000)
			first := g.Now() - start
			start = g.Now()
			for range 1000 {
				g.RanSteps(1)
			}
			if again := g.Now() - start; again != first {
				t.Errorf("seed %d: 1000 steps took %dns at once and %dns one by one: the step cost was drawn again", seed, first, again)
			}
			if first < 100 || first > 2100 {
				t.Errorf("seed %d: 1000 steps took %dns, outside the distribution's 100-2100", seed, first)
			}
			took[first] = true
			return nil
		})
	}
	if len(took) < 2 {
		t.Errorf("8 seeds drew one step cost (%v): not a draw", took)
	}
}

// A profile may charge a step by its kind of statement: a G whose steps
// are of a kind the profile gives (SetStepKind) pays that kind's ps, of
// a kind it leaves out step_ps's, and a profile with no kind at all
// charges every step step_ps, whatever kind the language says.
func TestStepKindCost(t *testing.T) {
	byKind := costsOf(CostStep, 1, CostStepPs, 99, CostStepPsPlain, 25, CostStepPsFormat, 6000)
	pooled := costsOf(CostStep, 1, CostStepPs, 99)
	for _, tc := range []struct {
		name  string
		costs *Costs
		kind  StepKind
		want  int64 // ns for 1000 steps
	}{
		{"plain", byKind, StepPlain, 25},
		{"a cell without its own cost: an index's", costsOf(CostStep, 1, CostStepPs, 99, CostStepPsIndex, 31), StepCell, 31},
		{"a cell", costsOf(CostStep, 1, CostStepPs, 99, CostStepPsIndex, 31, CostStepPsCell, 18), StepCell, 18},
		{"format", byKind, StepFormat, 6000},
		{"a kind the profile leaves out", byKind, StepMap, 99},
		{"any", byKind, StepAny, 99},
		{"no kinds in the profile", pooled, StepPlain, 99},
	} {
		var at int64
		var byKindOn bool
		run(t, Config{Procs: 1, Costs: tc.costs}, func(g *G, log func(string, ...any)) error {
			byKindOn = g.Machine().StepsByKind()
			g.SetStepKind(tc.kind)
			start := g.Now()
			g.RanSteps(1000)
			at = g.Now() - start
			return nil
		})
		if at != tc.want {
			t.Errorf("%s: 1000 steps took %dns, want %d", tc.name, at, tc.want)
		}
		if want := tc.costs != pooled; byKindOn != want {
			t.Errorf("%s: StepsByKind() = %v, want %v", tc.name, byKindOn, want)
		}
	}
	// A profile of kinds alone, without step_ps, still charges in ps.
	var at int64
	run(t, Config{Procs: 1, Costs: costsOf(CostStep, 1, CostStepPsPlain, 25)}, func(g *G, log func(string, ...any)) error {
		g.SetStepKind(StepPlain)
		g.RanSteps(1000)
		at = g.Now()
		return nil
	})
	if at != 25 {
		t.Errorf("kinds without step_ps: 1000 plain steps took %dns, want 25", at)
	}
}

// An operation that completes without parking costs its goroutine chan_op
// (a channel operation through the channel's lock) or sync_op (an atomic
// fast path), charged with its next steps; a profile without them charges
// nothing. A send that parks costs no chan_op: its switch is the cost.
func TestFastPathCost(t *testing.T) {
	costs := costsOf(CostStep, 1, CostChanOp, 20, CostSyncOp, 7)
	for _, tc := range []struct {
		name  string
		costs *Costs
		op    func(g *G) error
		want  int64 // ns for the op and 10 steps after it
	}{
		{"buffered send", costs, func(g *G) error {
			c := g.Machine().newChan(1)
			return g.Send(c, 1)
		}, 30},
		{"send, receive", costs, func(g *G) error {
			c := g.Machine().newChan(1)
			if err := g.Send(c, 1); err != nil {
				return err
			}
			g.Recv(c)
			return nil
		}, 50},
		{"close, receive from closed", costs, func(g *G) error {
			c := g.Machine().newChan(0)
			if err := g.Close(c); err != nil {
				return err
			}
			g.Recv(c)
			return nil
		}, 50},
		{"poll of an empty channel", costs, func(g *G) error {
			c := g.Machine().newChan(0)
			g.Select([]SelectCase{{Dir: SelectRecv, Chan: c}}, false)
			return nil
		}, 17},
		{"select of two with a default", costs, func(g *G) error {
			m := g.Machine()
			g.Select([]SelectCase{{Dir: SelectRecv, Chan: m.newChan(0)}, {Dir: SelectRecv, Chan: m.newChan(0)}}, false)
			return nil
		}, 50},
		{"select of three, one ready", costs, func(g *G) error {
			m := g.Machine()
			ready := m.newChan(1)
			if err := g.Send(ready, 1); err != nil {
				return err
			}
			g.Select([]SelectCase{{Dir: SelectRecv, Chan: m.newChan(0)}, {Dir: SelectRecv, Chan: ready}, {Dir: SelectRecv, Chan: m.newChan(0)}}, true)
			return nil
		}, 90},
		{"lock, unlock", costs, func(g *G) error {
			mu := g.Machine().NewMutex()
			g.Lock(mu)
			return g.Unlock(mu)
		}, 24},
		{"add, done, wait", costs, func(g *G) error {
			wg := g.Machine().NewWaitGroup()
			if err := g.Add(wg, 1); err != nil {
				return err
			}
			if err := g.Add(wg, -1); err != nil {
				return err
			}
			g.Wait(wg)
			return nil
		}, 31},
		{"signal, atomic", costs, func(g *G) error {
			g.Signal(g.Machine().NewCond())
			g.Atomic()
			return nil
		}, 24},
		{"no fast-path costs in the profile", costsOf(CostStep, 1), func(g *G) error {
			mu := g.Machine().NewMutex()
			g.Lock(mu)
			return g.Unlock(mu)
		}, 10},
	} {
		took := tookWithSteps(t, Config{Procs: 1, Costs: tc.costs}, func(g *G) error {
			start := g.Now()
			if err := tc.op(g); err != nil {
				return err
			}
			if g.Now() != start {
				return fmt.Errorf("the op itself moved the clock %dns", g.Now()-start)
			}
			return nil
		})
		if took != tc.want {
			t.Errorf("%s, then 10 steps: took %dns, want %d", tc.name, took, tc.want)
		}
	}
}

// tookWithSteps runs op as G1, then 10 steps, and returns the ns from
// op's start to the steps' end: op's own time and what it left for the
// G's next steps to pay (G.fastPath, Machine.chargeWaker).
func tookWithSteps(t *testing.T, cfg Config, op func(g *G) error) int64 {
	t.Helper()
	var took int64
	run(t, cfg, func(g *G, log func(string, ...any)) error {
		start := g.Now()
		if err := op(g); err != nil {
			return err
		}
		g.RanSteps(10)
		took = g.Now() - start
		return nil
	})
	return took
}

// Waking a parked thread costs the waker notewakeup: a G whose go
// statement's wakep starts an M pays it with its next steps; a second go
// statement, with an M already spinning, wakes nobody and pays nothing;
// at one P there is no P to wake an M for. A profile without notewakeup
// charges nothing.
func TestNotewakeupCost(t *testing.T) {
	costs := costsOf(CostStep, 1, CostNotewakeup, 1000)
	for _, tc := range []struct {
		name  string
		procs int
		costs *Costs
		spawn int
		want  int64 // ns for the spawns and 10 steps after them
	}{
		{"a spawn that wakes an M", 2, costs, 1, 1010},
		{"two spawns, one M woken", 2, costs, 2, 1010},
		{"one P: no M to wake", 1, costs, 1, 10},
		{"no notewakeup in the profile", 2, costsOf(CostStep, 1), 1, 10},
	} {
		took := tookWithSteps(t, Config{Procs: tc.procs, Costs: tc.costs}, func(g *G) error {
			for range tc.spawn {
				if _, err := g.Go(func(*G) error { return nil }, "child"); err != nil {
					return err
				}
			}
			return nil
		})
		if took != tc.want {
			t.Errorf("%s, then 10 steps: took %dns, want %d", tc.name, took, tc.want)
		}
	}
}

// A thread woken by the scheduler's own code pays notewakeup before the G
// it runs: here the M that runs G1's sleep timer readies G1 and wakes an
// M for the idle P, and G1's next steps wait for that futex wake.
func TestNotewakeupFromTimer(t *testing.T) {
	for _, tc := range []struct {
		costs *Costs
		want  int64
	}{
		{costsOf(CostStep, 1, CostNotewakeup, 1000), 2010},
		{costsOf(CostStep, 1), 1010},
	} {
		took := tookWithSteps(t, Config{Procs: 2, Costs: tc.costs}, func(g *G) error {
			g.Sleep(1000)
			return nil
		})
		if took != tc.want {
			t.Errorf("notewakeup %v: a sleep of 1µs, then 10 steps: took %dns, want %d", !tc.costs.Dists[CostNotewakeup].IsZero(), took, tc.want)
		}
	}
}

// TestSemaFirstCost: the run's first semaphore wait that parks pays
// sema_first as its G's own work before it queues, once in the run
// (semtableFirst); a wait that finds its semaphore released meanwhile
// does not park; a profile without the cost charges nothing.
func TestSemaFirstCost(t *testing.T) {
	const first = 14_000
	costs := costsOf(CostStep, 1, CostSwitch, 100, CostSemaFirst, first)
	waits := func(costs *Costs) []int64 {
		var got []int64
		run(t, Config{Procs: 1, Costs: costs}, func(g *G, log func(string, ...any)) error {
			for range 2 {
				wg := g.m.NewWaitGroup()
				var started int64
				g.Add(wg, 1)
				g.Go(func(g *G) error {
					started = g.Now()
					return g.Add(wg, -1)
				}, "child")
				parked := g.Now()
				g.Wait(wg)
				got = append(got, started-parked)
			}
			return nil
		})
		return got
	}
	if got, want := waits(costs), []int64{first + 100, 100}; !slices.Equal(got, want) {
		t.Errorf("Wait: the child ran %v ns after each Wait, want %v", got, want)
	}
	if got, want := waits(costsOf(CostStep, 1, CostSwitch, 100)), []int64{100, 100}; !slices.Equal(got, want) {
		t.Errorf("Wait without sema_first: the child ran %v ns after each Wait, want %v", got, want)
	}

	// A contended Lock pays it, and the Wait after it does not.
	locks := func(costs *Costs) (blocked, waited int64) {
		run(t, Config{Procs: 1, Costs: costs}, func(g *G, log func(string, ...any)) error {
			mu := g.m.NewMutex()
			wg := g.m.NewWaitGroup()
			g.Lock(mu)
			g.Add(wg, 1)
			g.Go(func(g *G) error {
				g.Lock(mu)
				if err := g.Unlock(mu); err != nil {
					return err
				}
				return g.Add(wg, -1)
			}, "child")
			start := g.Now()
			g.Gosched() // the child runs, and blocks in Lock
			blocked = g.Now() - start
			if err := g.Unlock(mu); err != nil {
				return err
			}
			start = g.Now()
			g.Wait(wg)
			waited = g.Now() - start
			return nil
		})
		return blocked, waited
	}
	b0, w0 := locks(costsOf(CostStep, 1, CostSwitch, 100))
	b1, w1 := locks(costs)
	if b1-b0 != first || w1 != w0 {
		t.Errorf("Lock, then Wait: the child's Lock held main up %d ns more with sema_first and the Wait %d ns more, want %d and 0", b1-b0, w1-w0, first)
	}

	// Released while it touches the table: the Wait returns without
	// parking, as semacquire1's second cansemacquire takes the unit.
	var dispatched uint64
	var returned int64
	run(t, Config{Procs: 2, Costs: costs}, func(g *G, log func(string, ...any)) error {
		wg := g.m.NewWaitGroup()
		g.Add(wg, 1)
		g.Go(func(g *G) error {
			g.Work(5_000)
			return g.Add(wg, -1)
		}, "child")
		before := g.dispatches
		start := g.Now()
		g.Wait(wg)
		returned = g.Now() - start
		dispatched = g.dispatches - before
		return nil
	})
	if dispatched != 0 || returned != first {
		t.Errorf("Wait released during sema_first: parked %d times and returned after %d ns, want 0 and %d", dispatched, returned, first)
	}
}

// The run's first timer starts the network poller (addHeap's
// netpollGenericInit) and pays timer_first: a sleep's M after the park,
// before it runs the next G; a goroutine blocking on a timer channel the
// same; AfterFunc the G itself, with its next steps. Later timers pay
// nothing, and a profile without timer_first charges nothing.
func TestTimerFirstCost(t *testing.T) {
	costs := costsOf(CostStep, 1, CostSwitch, 100, CostTimerFirst, 50_000)
	for _, tc := range []struct {
		name  string
		costs *Costs
		arm   func(g *G)
		want  []int64 // when the child starts after each of two arms
	}{
		{"sleep", costs, func(g *G) { g.Sleep(1_000_000) }, []int64{50_100, 100}},
		{"timer channel", costs, func(g *G) { g.Recv(g.After(1_000_000)) }, []int64{50_100, 100}},
		{"no timer_first", costsOf(CostStep, 1, CostSwitch, 100), func(g *G) { g.Sleep(1_000_000) }, []int64{100, 100}},
	} {
		var got []int64
		run(t, Config{Procs: 1, Costs: tc.costs}, func(g *G, log func(string, ...any)) error {
			for range 2 {
				var parked, started int64
				g.Go(func(g *G) error {
					started = g.Now()
					return nil
				}, "child")
				parked = g.Now()
				tc.arm(g)
				got = append(got, started-parked)
			}
			return nil
		})
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: the child ran %v ns after each park, want %v", tc.name, got, tc.want)
		}
	}
	// AfterFunc: the G's own time, with its next steps, once.
	var took []int64
	run(t, Config{Procs: 1, Costs: costs}, func(g *G, log func(string, ...any)) error {
		for range 2 {
			start := g.Now()
			g.AfterFunc(1_000_000, nil, func() (Func, string, func(*G)) {
				return func(*G) error { return nil }, "f", nil
			})
			g.RanSteps(10)
			took = append(took, g.Now()-start)
		}
		return nil
	})
	if want := []int64{50_010, 10}; !slices.Equal(took, want) {
		t.Errorf("AfterFunc, then 10 steps: took %v ns, want %v", took, want)
	}
}
