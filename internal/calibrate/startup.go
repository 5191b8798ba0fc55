package calibrate

// The start-up probe: a young process, measured from outside.
//
// Two of the costs a run's start-up charges cannot be measured inside a
// process that has long started: the runtime's and the packages' init
// work before main.main (init_runtime, init_packages, init_after), and
// what main.main's first go statements take in a process a few hundred
// microseconds old (malg_rank): they are not alike, the third of
// spawn_order's taking 22µs where the second takes 0.5µs on one host (a
// new G's stack from memory the process has not touched, a thread that
// wakep starts: the probe cannot tell which). Both differ from host to
// host several times over (docs/faithfulness.md, "A third session"), and
// both decide races that begin at main.main's first statement.
//
// So calibrate builds a small program with the go command, the corpus's
// spawn_order timed (probe/spawnorder.go: four go statements of
// goroutines that take a place in a list and call Done, then Wait), and
// runs it many times with GODEBUG=inittrace=1. The runtime prints each
// package's init, with the clock it took, to standard error before
// main.main runs (proc.go's doInit1); the program prints when each of
// its go statements returned. It must be a small program, not schedlab
// started again: schedlab's own binary takes four times as long in the
// runtime's init (0.64ms against 0.14ms at the median, on the 2-vCPU AMD
// EPYC host of 2026-12-07), inits other packages, and reaches main.main
// in another state: its third go statement takes 0.4µs where
// spawn_order's takes 22µs on the same host.
//
// The same program, run as "probe wait" and "probe chan", times a young
// process's first park instead (sema_first): a go statement, then a
// WaitGroup's Wait, the process's first semaphore wait, which is the
// first to touch the runtime's table of semaphore queues (14µs at the
// median from the Wait to the goroutine's start on the 2-vCPU AMD EPYC
// host of 2026-12-08), against a channel receive's (1.4µs): sema_first
// is each first Wait less the first receive's median, the part a
// channel's park does not pay. Both run at GOMAXPROCS 1, so that no
// other thread takes the goroutine meanwhile.
//
// The package costs sum the clocks of the packages such a program inits
// (smallInits), split where os's init starts runFinalizers (the
// start-up's createfing, runtime/startup.go). Without a go command the
// four costs are left out of the profile, and a run charges
// runtime/startup.go's constants and malg, as before.

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/runtime"
)

// startupSpawns is how many go statements the probe makes, as
// spawn_order's main does.
const startupSpawns = 4

// smallInits are the packages with init work of a program that imports
// fmt, sync and time (the corpus's), in the order GODEBUG=inittrace=1
// prints them on go1.26, after the runtime's own: those before os, whose
// init starts runFinalizers, and os and those after it.
var smallInits = struct{ before, after []string }{
	before: []string{"math", "errors", "iter", "sync", "internal/godebug", "syscall", "time", "internal/poll", "io/fs"},
	after:  []string{"os", "unicode", "reflect"},
}

// startupSample is one probe run's measurements: the three init durations and
// each go statement's time, in ns.
type startupSample struct {
	initRuntime, initPackages, initAfter int64
	spawns                               [startupSpawns]int64
}

//go:embed probe/spawnorder.go
var spawnOrderProbe []byte

// buildStartupProbe writes the start-up probe to dir and builds it with the
// go command goCmd, returning the executable and the go command's Go
// version.
func buildStartupProbe(goCmd, dir string) (exe, version string, err error) {
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, spawnOrderProbe, 0o644); err != nil {
		return "", "", err
	}
	exe = filepath.Join(dir, "spawnorder")
	cmd := exec.Command(goCmd, "build", "-o", exe, src)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("%s build of the start-up probe: %v: %s", goCmd, err, strings.TrimSpace(string(out)))
	}
	out, err := exec.Command(goCmd, "env", "GOVERSION").Output()
	if err != nil {
		return "", "", fmt.Errorf("%s env GOVERSION: %v", goCmd, err)
	}
	return exe, strings.TrimSpace(string(out)), nil
}

// runStartupProbe runs the built probe exe once, fresh, at GOMAXPROCS
// procs, with GODEBUG=inittrace=1, and reads what it measured.
func runStartupProbe(exe string, procs int) (startupSample, error) {
	cmd := exec.Command(exe)
	env := []string{"GOMAXPROCS=" + strconv.Itoa(procs)}
	godebug := "inittrace=1"
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "GODEBUG="):
			if v := strings.TrimPrefix(kv, "GODEBUG="); v != "" {
				godebug = v + ",inittrace=1"
			}
		case strings.HasPrefix(kv, "GOMAXPROCS="):
		default:
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GODEBUG="+godebug)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return startupSample{}, fmt.Errorf("the start-up probe: %v: %s", err, firstLine(stderr.String()))
	}
	var s startupSample
	var err error
	if s.spawns, err = parseSpawns(stdout.String()); err != nil {
		return s, fmt.Errorf("the start-up probe: %w", err)
	}
	s.initRuntime, s.initPackages, s.initAfter, err = parseInittrace(stderr.String())
	return s, err
}

// runParkProbe runs the built probe exe once, fresh, at GOMAXPROCS 1, in
// its mode "wait" or "chan", and returns the ns from its first park to
// its goroutine's start.
func runParkProbe(exe, mode string) (int64, error) {
	cmd := exec.Command(exe, mode)
	env := []string{"GOMAXPROCS=1"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOMAXPROCS=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("the park probe (%s): %v: %s", mode, err, firstLine(stderr.String()))
	}
	return parsePark(stdout.String())
}

// parsePark reads the park probe's line "park N".
func parsePark(out string) (int64, error) {
	f := strings.Fields(firstLine(out))
	if len(f) != 2 || f[0] != "park" {
		return 0, fmt.Errorf("the park probe printed %q, want \"park\" and a time", firstLine(out))
	}
	v, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("the park probe printed %q: not a count of ns", firstLine(out))
	}
	return v, nil
}

// semaFirst returns sema_first's samples from first parks in a WaitGroup
// (waits) and on a channel (chans): each wait less the channels' median,
// at least 0.
func semaFirst(waits, chans []float64) []float64 {
	q := Quantiles(chans)
	base := q.Median()
	out := make([]float64, len(waits))
	for i, w := range waits {
		out[i] = max(w-float64(base), 0)
	}
	return out
}

// parseSpawns reads the probe's line "spawns T1 T2 T3 T4 [order]".
func parseSpawns(out string) ([startupSpawns]int64, error) {
	var ts [startupSpawns]int64
	f := strings.Fields(firstLine(out))
	if len(f) < 1+startupSpawns || f[0] != "spawns" {
		return ts, fmt.Errorf("printed %q, want a line of \"spawns\" and %d times", firstLine(out), startupSpawns)
	}
	for i := range ts {
		v, err := strconv.ParseInt(f[1+i], 10, 64)
		if err != nil || v < 0 {
			return ts, fmt.Errorf("printed %q: time %d is not a count of ns", firstLine(out), i+1)
		}
		ts[i] = v
	}
	return ts, nil
}

// parseInittrace reads GODEBUG=inittrace=1's lines ("init PKG @T ms, C ms
// clock, B bytes, A allocs") and returns the runtime's init clock and the
// sums of smallInits' before and after os, in ns.
func parseInittrace(stderr string) (rt, before, after int64, err error) {
	clock := map[string]int64{}
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// init, PKG, @T, ms,, C, ms, clock,, ...
		if len(f) < 7 || f[0] != "init" || f[5] != "ms" || f[6] != "clock," {
			continue
		}
		ms, perr := strconv.ParseFloat(f[4], 64)
		if perr != nil {
			return 0, 0, 0, fmt.Errorf("inittrace line %q: clock %q is not a number", sc.Text(), f[4])
		}
		clock[f[1]] = int64(ms*1e6 + 0.5)
	}
	rt, ok := clock["runtime"]
	if !ok {
		return 0, 0, 0, fmt.Errorf("GODEBUG=inittrace=1 printed no line for the runtime's init: %q", firstLine(stderr))
	}
	for _, p := range smallInits.before {
		before += clock[p]
	}
	for _, p := range smallInits.after {
		after += clock[p]
	}
	return rt, before, after, nil
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// startupNotes says in a profile's notes how the start-up's costs were
// measured, for runs.
func startupNotes(runs int) string {
	n := startupRounds(runs)
	return fmt.Sprintf("init_runtime, init_packages, init_after: GODEBUG=inittrace=1 of %d fresh processes of spawn_order built with the go command (startup.go), the runtime's init clock and the sums of the package inits before os's and from it on; ", n) +
		fmt.Sprintf("malg_rank: the same processes' %d go statements by rank, the first from main.main's first statement (startup.go); ", startupSpawns) +
		fmt.Sprintf("sema_first: %d fresh processes of the same program at GOMAXPROCS 1 timing their first WaitGroup.Wait to its goroutine's start, less the median of as many first channel receives (startup.go)", n)
}

// startupRounds is how many fresh processes of the probe a calibration
// runs for runs: each is a process start, a few ms.
func startupRounds(runs int) int { return max(runs/4, 20) }

// startupOnly is Run with Options.StartupOnly: the shipped default
// profile, with this machine's start-up measured in place of its own. The
// start-up is what differs most from one host to the next and decides
// the races that begin at main.main's first statement: the default with
// a host's start-up comes closer to that host's Go than the default does,
// and than the host's whole calibration (docs/faithfulness.md, "This host
// a day later").
func (c *calibration) startupOnly() (*runtime.Costs, *Report, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return nil, nil, errors.New("the start-up probe needs a go command in $PATH, to build it")
	}
	c.rep.StartupOnly = true
	d := runtime.DefaultCosts()
	c.p.Dists = d.Dists
	c.p.MalgRank = slices.Clone(d.MalgRank)
	c.p.SysmonLateRank = slices.Clone(d.SysmonLateRank)
	if err := c.startup(); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(c.rep.Lines, func(a, b Line) int { return int(a.Cost) - int(b.Cost) })
	c.p.Notes = fmt.Sprintf("the shipped default profile (%s, recorded %s on %s) with this machine's start-up in place of its own (%s): %s. The default's notes: %s",
		d.Name, d.Recorded, d.Machine, strings.Join(c.notes, ", "), startupNotes(c.opts.Runs), d.Notes)
	c.rep.Elapsed = time.Since(c.start)
	c.progress("done in %.1fs", c.rep.Elapsed.Seconds())
	return c.p, c.rep, nil
}

// startup measures init_runtime, init_packages, init_after, malg_rank and
// sema_first from fresh processes of the start-up probe, which it builds with the go
// command; without one it leaves them out, and says so.
func (c *calibration) startup() error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		c.progress("startup: no go command in $PATH, so the start-up is not measured: the profile leaves out init_runtime, init_packages, init_after, malg_rank and sema_first")
		c.notes = append(c.notes, "init_runtime, init_packages, init_after, malg_rank, sema_first: not measured (no go command to build the start-up probe)")
		return nil
	}
	dir, err := os.MkdirTemp("", "schedlab-calibrate-")
	if err != nil {
		return fmt.Errorf("startup: %w", err)
	}
	defer os.RemoveAll(dir)
	exe, version, err := buildStartupProbe(goCmd, dir)
	if err != nil {
		return fmt.Errorf("startup: %w", err)
	}
	n := startupRounds(c.opts.Runs)
	c.progress("startup: %d fresh processes of spawn_order (built by %s, %s) at GOMAXPROCS %d, GODEBUG=inittrace=1", n, goCmd, version, c.procs)
	var rt, pkgs, after []float64
	ranks := make([][]float64, startupSpawns)
	for range n {
		s, err := runStartupProbe(exe, c.procs)
		if err != nil {
			return fmt.Errorf("startup: %w", err)
		}
		rt = append(rt, float64(s.initRuntime))
		pkgs = append(pkgs, float64(s.initPackages))
		after = append(after, float64(s.initAfter))
		for i, v := range s.spawns {
			ranks[i] = append(ranks[i], float64(v))
		}
	}
	for _, m := range []struct {
		k       runtime.CostKind
		samples []float64
	}{{runtime.CostInitRuntime, rt}, {runtime.CostInitPackages, pkgs}, {runtime.CostInitAfter, after}} {
		if err := c.add(Line{Cost: m.k, Method: "inittrace", Factor: 1}, m.samples); err != nil {
			return err
		}
	}
	c.p.MalgRank = nil
	for i, r := range ranks {
		d := Quantiles(r)
		c.p.MalgRank = append(c.p.MalgRank, d)
		c.rep.MalgRank = append(c.rep.MalgRank, d)
		c.progress("  malg_rank[%d]      n=%-5d p50 %s", i, d.N, ns(d.Median()))
	}
	c.progress("startup: %d fresh processes each of the probe's first Wait and first channel receive, at GOMAXPROCS 1", n)
	var waits, chans []float64
	for range n {
		for _, mode := range []string{"wait", "chan"} {
			v, err := runParkProbe(exe, mode)
			if err != nil {
				return fmt.Errorf("startup: %w", err)
			}
			if mode == "wait" {
				waits = append(waits, float64(v))
			} else {
				chans = append(chans, float64(v))
			}
		}
	}
	qw, qc := Quantiles(waits), Quantiles(chans)
	c.progress("  first Wait p50 %s, first channel receive p50 %s", ns(qw.Median()), ns(qc.Median()))
	if err := c.add(Line{Cost: runtime.CostSemaFirst, Method: "firstpark", Factor: 1}, semaFirst(waits, chans)); err != nil {
		return err
	}
	c.notes = append(c.notes, fmt.Sprintf("init_*, malg_rank, sema_first: the start-up probe built by %s", version))
	return nil
}
