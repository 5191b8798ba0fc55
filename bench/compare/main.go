// Command compare runs schedlab's performance benchmarks and the peer
// programs of bench/ (Python generators, Python asyncio, Lua coroutines)
// side by side, and prints each figure of issue 7 against its target.
//
// Run it from the repository's root:
//
//	go run ./bench/compare [-count 6] [-benchtime 1s] [-out DIR]
//
// It builds the test binaries of runtime/, lang/ and trace/ and the
// schedlab command once, then runs `count` rounds; each round runs every
// benchmark and every peer once, in the same order, so that a machine
// whose speed drifts (a shared one) slows all of them alike. Each figure
// is the median over the rounds, and each target a ratio of medians from
// the same run. The raw outputs, in Go's benchmark format, are kept in
// DIR for benchstat. Peers whose interpreter is missing are skipped.
// bench/README.md lists the prerequisites; docs/performance.md explains
// every figure.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var (
	count     = flag.Int("count", 6, "number of rounds; each figure is the median over them")
	benchtime = flag.String("benchtime", "1s", "-test.benchtime for the Go benchmarks")
	outDir    = flag.String("out", "", "directory for the raw outputs (default: a new temporary directory)")
	verbose   = flag.Bool("v", false, "print every command and its output as it runs")
)

func main() { os.Exit(doMain()) }

func doMain() int {
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run ./bench/compare [flags]\n\nRun from the repository's root. Flags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 || *count < 1 {
		flag.Usage()
		return 2
	}
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "compare: %v\n", err)
		return 1
	}
	return 0
}

// A job is one benchmark program run once per round. Its output, in Go's
// benchmark format, is appended to DIR/<file>.
type job struct {
	file string   // the raw output's name in DIR, without .txt
	argv []string // the command
	proc string   // for `schedlab run` jobs: the name of the line to synthesize from the process's wall time and peak RSS
}

func run() error {
	if _, err := os.Stat("go.mod"); err != nil {
		return errors.New("run me from the repository's root (go run ./bench/compare)")
	}
	dir := *outDir
	if dir == "" {
		d, err := os.MkdirTemp("", "schedlab-bench-")
		if err != nil {
			return err
		}
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}

	fmt.Printf("building into %s\n", bin)
	for _, pkg := range []string{"runtime", "lang", "trace"} {
		if err := command("go", "test", "-c", "-o", filepath.Join(bin, pkg+".test"), "./"+pkg+"/"); err != nil {
			return err
		}
	}
	schedlab := filepath.Join(bin, "schedlab")
	if err := command("go", "build", "-o", schedlab, "./cmd/schedlab"); err != nil {
		return err
	}

	goBench := func(pkg, pattern string) []string {
		return []string{filepath.Join(bin, pkg+".test"), "-test.run", "^$", "-test.bench", pattern,
			"-test.benchmem", "-test.benchtime", *benchtime}
	}
	jobs := []job{
		{file: "engine", argv: goBench("runtime", "^(BenchmarkGoschedVsPull|BenchmarkGosched|BenchmarkGoschedTracer)$")},
		{file: "lang", argv: goBench("lang", "^(BenchmarkGosched|BenchmarkGoschedTracer|BenchmarkGoschedFloor)$")},
	}
	peers := []struct {
		file, interp string
		args         []string
	}{
		{"python_gen", "python3", []string{"bench/python_gen.py", "-count", "1"}},
		{"python_asyncio", "python3", []string{"bench/python_asyncio.py", "-count", "1"}},
		{"lua_coro", "lua5.4", []string{"bench/lua_coro.lua", "1000", "2000000", "1"}},
	}
	for _, p := range peers {
		if _, err := exec.LookPath(p.interp); err != nil {
			fmt.Printf("skipping %s: %s not found\n", p.file, p.interp)
			continue
		}
		jobs = append(jobs, job{file: p.file, argv: append([]string{p.interp}, p.args...)})
	}
	jobs = append(jobs,
		job{file: "builtins", argv: goBench("lang", "^BenchmarkBuiltin$")},
		job{file: "trace", argv: goBench("trace", "^BenchmarkText$")},
		job{file: "tracetext", argv: goBench("lang", "^BenchmarkTraceText$")},
		job{file: "proc", argv: []string{schedlab, "run", "bench/scripts/parked.star"}, proc: "BenchmarkProcParked/goroutines=100000"},
		job{file: "proc", argv: []string{schedlab, "run", "bench/scripts/million.star"}, proc: "BenchmarkProcMillion/goroutines=1000000"},
	)
	for _, j := range jobs {
		os.Remove(filepath.Join(dir, j.file+".txt"))
	}

	for round := 1; round <= *count; round++ {
		fmt.Printf("round %d/%d:", round, *count)
		for _, j := range jobs {
			name := j.file
			if j.proc != "" {
				name = filepath.Base(j.argv[len(j.argv)-1])
			}
			fmt.Printf(" %s", name)
			out, err := runJob(j)
			if err != nil {
				fmt.Println()
				return fmt.Errorf("%s: %v\n%s", strings.Join(j.argv, " "), err, out)
			}
			if err := appendFile(filepath.Join(dir, j.file+".txt"), out); err != nil {
				return err
			}
		}
		fmt.Println()
	}

	res, err := parseDir(dir, jobs)
	if err != nil {
		return err
	}
	report(os.Stdout, res)
	fmt.Printf("\nraw outputs (Go benchmark format) in %s; for example:\n\tbenchstat %s\n",
		dir, filepath.Join(dir, "lang.txt"))
	return nil
}

// command runs a build step, its output going to ours.
func command(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if *verbose {
		fmt.Println(name, strings.Join(args, " "))
	}
	return cmd.Run()
}

// runJob runs j once and returns its benchmark lines. A `schedlab run` job
// is measured from outside: its wall time and the process's peak RSS
// (getrusage's ru_maxrss) become one benchmark line.
func runJob(j job) ([]byte, error) {
	cmd := exec.Command(j.argv[0], j.argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if j.proc != "" {
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	}
	if *verbose {
		fmt.Printf("\n$ %s\n", strings.Join(j.argv, " "))
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return append(stdout.Bytes(), stderr.Bytes()...), err
	}
	if j.proc == "" {
		if *verbose {
			os.Stdout.Write(stdout.Bytes())
		}
		return stdout.Bytes(), nil
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var rss int64
	var cpu time.Duration
	if ru != nil {
		rss = int64(ru.Maxrss) * 1024 // kilobytes on Linux
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	line := fmt.Sprintf("%s-%d\t1\t%d ns/op\t%d cpu-ns/op\t%d peak-RSS-B\n",
		j.proc, goruntime.GOMAXPROCS(0), wall.Nanoseconds(), cpu.Nanoseconds(), rss)
	if *verbose {
		fmt.Print(line)
	}
	return []byte(line), nil
}

func appendFile(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err1 := f.Close(); err == nil {
		err = err1
	}
	return err
}

// results holds every value measured: results[file][name][unit] is the
// list of values over the rounds. Names lose their -GOMAXPROCS suffix.
type results map[string]map[string]map[string][]float64

func parseDir(dir string, jobs []job) (results, error) {
	res := make(results)
	for _, j := range jobs {
		if res[j.file] != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, j.file+".txt"))
		if err != nil {
			return nil, err
		}
		res[j.file] = parseBench(data)
	}
	return res, nil
}

// parseBench reads lines of Go's benchmark format:
// "BenchmarkName-2  N  value unit  value unit ...".
func parseBench(data []byte) map[string]map[string][]float64 {
	m := make(map[string]map[string][]float64)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		if m[name] == nil {
			m[name] = make(map[string][]float64)
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			m[name][f[i+1]] = append(m[name][f[i+1]], v)
		}
	}
	return m
}

// get returns the median of a figure and the number of values, or NaN.
func (r results) get(file, name, unit string) (float64, int) {
	vs := r[file][name][unit]
	if len(vs) == 0 {
		return math.NaN(), 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2], n
	}
	return (s[n/2-1] + s[n/2]) / 2, n
}

func (r results) med(file, name, unit string) float64 {
	v, _ := r.get(file, name, unit)
	return v
}

// A row of the report: a figure, its target and whether it is met.
type row struct {
	figure, target, measured string
	ok                       string // "yes", "NO", or "" for figures without a target
}

func report(w io.Writer, r results) {
	var rows []row
	add := func(figure, target, measured, ok string) {
		rows = append(rows, row{figure, target, measured, ok})
	}
	met := func(v float64, good func(float64) bool) string {
		switch {
		case math.IsNaN(v):
			return "n/a"
		case good(v):
			return "yes"
		}
		return "NO"
	}
	le := func(lim float64) func(float64) bool { return func(v float64) bool { return v <= lim } }
	ge := func(lim float64) func(float64) bool { return func(v float64) bool { return v >= lim } }

	// Engine.
	e1k := r.med("engine", "BenchmarkGoschedVsPull/goroutines=1000", "engine-ns")
	p1k := r.med("engine", "BenchmarkGoschedVsPull/goroutines=1000", "pull-ns")
	ratio := r.med("engine", "BenchmarkGoschedVsPull/goroutines=1000", "engine/pull")
	add("engine gosched round trip, 1,000 Gs, vs bare iter.Pull (same benchmark)", "≤ 1.3×",
		fmt.Sprintf("%.0f ns vs %.0f ns: %.2f×", e1k, p1k, ratio), met(ratio, le(1.3)))
	allocs := r.med("engine", "BenchmarkGosched/goroutines=1000", "allocs/op")
	add("engine allocations per switch", "0", fmt.Sprintf("%.0f", allocs), met(allocs, le(0)))
	e100k := r.med("engine", "BenchmarkGoschedVsPull/goroutines=100000", "engine-ns")
	p100k := r.med("engine", "BenchmarkGoschedVsPull/goroutines=100000", "pull-ns")
	add("engine per switch at 100,000 Gs vs at 1,000", "≤ 4×",
		fmt.Sprintf("%.0f ns vs %.0f ns: %.2f× (bare iter.Pull: %.2f×)", e100k, e1k, e100k/e1k, p100k/p1k), met(e100k/e1k, le(4)))
	nilT := r.med("engine", "BenchmarkGoschedTracer/tracer=nil", "ns/op")
	noopT := r.med("engine", "BenchmarkGoschedTracer/tracer=noop", "ns/op")
	add("engine gosched with a no-op Tracer vs none (what tracing costs when on)", "",
		fmt.Sprintf("%.0f ns vs %.0f ns: %+.0f%%", noopT, nilT, 100*(noopT/nilT-1)), "")
	lnilT := r.med("lang", "BenchmarkGoschedTracer/tracer=nil", "cpu-ns/op")
	lnoopT := r.med("lang", "BenchmarkGoschedTracer/tracer=noop", "cpu-ns/op")
	add("Starlark gosched() with a no-op Tracer vs none (CPU time)", "",
		fmt.Sprintf("%.0f ns vs %.0f ns: %+.0f%%", lnoopT, lnilT, 100*(lnoopT/lnilT-1)), "")

	// Starlark against the peers, in CPU time.
	sl := r.med("lang", "BenchmarkGosched/goroutines=1000", "cpu-ns/op")
	floor := r.med("lang", "BenchmarkGoschedFloor", "cpu-ns/op")
	gen := r.med("python_gen", "BenchmarkPythonGen/tasks=1000", "cpu-ns/op")
	aio := r.med("python_asyncio", "BenchmarkPythonAsyncio/tasks=1000", "cpu-ns/op")
	lua := r.med("lua_coro", "BenchmarkLuaCoroutine/tasks=1000", "cpu-ns/op")
	add("Starlark gosched(), 1,000 goroutines, vs Python generators (CPU time)", "≤ 2.3×",
		fmt.Sprintf("%.0f ns vs %.0f ns: %.2f×", sl, gen, sl/gen), met(sl/gen, le(2.3)))
	add("Python asyncio sleep(0), 1,000 tasks, vs Starlark gosched() (CPU time)", "≥ 5×",
		fmt.Sprintf("%.0f ns vs %.0f ns: %.2f×", aio, sl, aio/sl), met(aio/sl, ge(5)))
	add("floor: Starlark loop + bare iter.Pull switch, no engine, vs Python generators", "",
		fmt.Sprintf("%.0f ns vs %.0f ns: %.2f×", floor, gen, floor/gen), "")
	add("Lua 5.4 coroutines, 1,000 tasks (CPU time)", "",
		fmt.Sprintf("%.0f ns (Starlark gosched: %.2f×)", lua, sl/lua), "")
	slWall := r.med("lang", "BenchmarkGosched/goroutines=1000", "ns/op")
	genWall := r.med("python_gen", "BenchmarkPythonGen/tasks=1000", "ns/op")
	aioWall := r.med("python_asyncio", "BenchmarkPythonAsyncio/tasks=1000", "ns/op")
	add("the same in wall time: Starlark vs generators; asyncio vs Starlark", "",
		fmt.Sprintf("%.0f vs %.0f ns: %.2f×; %.0f vs %.0f ns: %.2f×", slWall, genWall, slWall/genWall, aioWall, slWall, aioWall/slWall), "")

	// Builtins.
	loop := r.med("builtins", "BenchmarkBuiltin/loop", "cpu-ns/op")
	var parts []string
	for _, b := range []string{"len", "now", "current", "chan_send_recv", "gosched_alone", "spawn_noop", "chan_pingpong", "select_ready", "mutex", "sleep", "park_ready"} {
		v := r.med("builtins", "BenchmarkBuiltin/"+b, "cpu-ns/op")
		a := r.med("builtins", "BenchmarkBuiltin/"+b, "allocs/op")
		parts = append(parts, fmt.Sprintf("%s %.0f ns %.0f allocs", b, v-loop, a))
	}
	add("builtin call overhead (CPU per op minus an empty loop's)", "", strings.Join(parts, "; "), "")

	// Memory and the million.
	rss := r.med("proc", "BenchmarkProcParked/goroutines=100000", "peak-RSS-B")
	pw := r.med("proc", "BenchmarkProcParked/goroutines=100000", "ns/op")
	add("100,000 parked goroutines: `schedlab run` peak RSS", "≤ 1.2 GB",
		fmt.Sprintf("%.2f GB (%.0f bytes per goroutine; run %.1f s)", rss/1e9, rss/1e5, pw/1e9), met(rss, le(1.2e9)))
	mw := r.med("proc", "BenchmarkProcMillion/goroutines=1000000", "ns/op")
	mrss := r.med("proc", "BenchmarkProcMillion/goroutines=1000000", "peak-RSS-B")
	add("1,000,000 short-lived goroutines: `schedlab run` wall time", "≤ 5 s",
		fmt.Sprintf("%.2f s", mw/1e9), met(mw, le(5e9)))
	add("1,000,000 short-lived goroutines: peak RSS", "≤ 300 MB",
		fmt.Sprintf("%.0f MB", mrss/1e6), met(mrss, le(300e6)))

	// Trace.
	tps := r.med("trace", "BenchmarkText", "events/s")
	add("text trace writer to a file (trace.BenchmarkText)", "≥ 2M events/s",
		fmt.Sprintf("%.2fM events/s", tps/1e6), met(tps, ge(2e6)))
	ttps := r.med("tracetext", "BenchmarkTraceText", "events/s")
	add("a whole Starlark gosched run with --trace to a file", "",
		fmt.Sprintf("%.2fM events/s (simulation included)", ttps/1e6), "")

	_, n := r.get("lang", "BenchmarkGosched/goroutines=1000", "cpu-ns/op")
	fmt.Fprintf(w, "\nissue 7 figures: medians of %d rounds\n\n", n)
	tw := [3]int{}
	for _, x := range rows {
		tw[0] = max(tw[0], len([]rune(x.figure)))
		tw[1] = max(tw[1], len([]rune(x.target)))
		tw[2] = max(tw[2], len([]rune(x.ok)))
	}
	for _, x := range rows {
		fmt.Fprintf(w, "%-*s  %-*s  %-*s  %s\n", tw[2], x.ok, tw[1], x.target, tw[0], x.figure, x.measured)
	}
}
