// Command mmc checks the latency lab against queueing theory: it runs
// examples/lab/mmc.star, an M/M/c queue built as a Go server, for c = 1,
// 2, 4 workers at utilisation 0.5, 0.8 and 0.9, with --costs=zero, and
// compares its mean time in system with Erlang C's (internal/queueing)
// and its Little's law from the server's side with the load generator's.
//
//	go run ./bench/mmc                 # the grid of docs/lab.md, a few minutes on 2 cores
//	go run ./bench/mmc -c 2 -rho 0.9   # one cell
//
// A cell runs seeds of -n requests each, -round seeds at a time, until
// the 95% confidence interval of its mean is narrower than -precision of
// the mean, or -max-seeds. Each seed's sojourns (the latencies the load
// generator measured, in the order the replies came) lose their first
// -warmup and are cut into -batches batches; the interval is that of the
// batch means of every seed together (internal/queueing.MeanInterval).
// Near ρ = 1 successive sojourns are strongly correlated and a cell needs
// millions of requests for a percent: at ρ = 0.9 and c = 1 the relative
// standard error of the mean of N sojourns is about 20/√N.
//
// Little's law is checked in each run: L, the number of requests inside
// the server averaged over time by the script itself (it keeps a count
// with now()), against λ·W, the throughput and the mean latency of the
// load generator on another host (runtime.Traffic: answered requests over
// the source's span, and its latencies). The worst seed's gap is shown.
//
// The output is the same bytes whatever -jobs is: a cell's seeds are
// decided in rounds of -round, not by which runs finish first. The exit
// status is 1 if a cell is more than 2% from Erlang C or a run's Little's
// law more than 1% off.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/queueing"
	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
)

// The bounds the issue sets (issue 28, item 4).
const (
	maxSojournErr = 0.02 // the mean time in system within 2% of Erlang C
	maxLittleErr  = 0.01 // Little's law within 1%
)

// A config is what a check does.
type config struct {
	script    string
	cs        []int
	rhos      []float64
	service   int64   // mean service time, ns
	n         int     // requests a seed
	round     int     // seeds run before the precision is looked at again
	minSeeds  int     // seeds at least
	maxSeeds  int     // seeds at most
	precision float64 // stop when the interval's half-width is below this fraction of the mean
	warmup    float64 // the fraction of each seed's sojourns left out
	batches   int     // batches a seed
	jobs      int     // runs at once
}

// A cell is what one (c, ρ) came to.
type cell struct {
	c      int
	rho    float64
	seeds  int
	n      int64             // requests answered, all seeds
	w      queueing.Interval // the mean time in system, ns
	theory float64           // Erlang C's, ns
	little float64           // the worst seed's L/(λW) - 1
}

func (c cell) err() float64 { return c.w.Mean/c.theory - 1 }

func (c cell) ok() bool {
	return math.Abs(c.err()) <= maxSojournErr && math.Abs(c.little) <= maxLittleErr
}

// A seedRun is what one run measured.
type seedRun struct {
	lat    []int64 // sojourns, ns, in the order the replies came
	inside float64 // L, the server's time average of its count
	lw     float64 // λ·W from the load generator: throughput × mean latency
	err    error
}

func main() {
	os.Exit(doMain(os.Args[1:], os.Stdout, os.Stderr))
}

func doMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mmc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config{}
	fs.StringVar(&cfg.script, "script", "examples/lab/mmc.star", "the M/M/c `script`")
	cs := fs.String("c", "1,2,4", "the numbers of workers, `c1,c2,...`")
	rhos := fs.String("rho", "0.5,0.8,0.9", "the utilisations, `r1,r2,...`, each below 1")
	fs.Int64Var(&cfg.service, "service", 100_000, "the mean service time in `ns`")
	fs.IntVar(&cfg.n, "n", 250_000, "requests in each seed's run")
	fs.IntVar(&cfg.round, "round", 4, "seeds a round: the precision is looked at after each")
	fs.IntVar(&cfg.minSeeds, "min-seeds", 4, "seeds a cell at least")
	fs.IntVar(&cfg.maxSeeds, "max-seeds", 40, "seeds a cell at most")
	fs.Float64Var(&cfg.precision, "precision", 0.015, "stop a cell once its 95% interval's half-width is below this `fraction` of its mean")
	fs.Float64Var(&cfg.warmup, "warmup", 0.01, "the `fraction` of each seed's sojourns left out, from its start")
	fs.IntVar(&cfg.batches, "batches", 5, "batches a seed")
	fs.IntVar(&cfg.jobs, "jobs", goruntime.NumCPU(), "runs at once")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var err error
	if cfg.cs, err = parseList(*cs, strconv.Atoi); err == nil {
		cfg.rhos, err = parseList(*rhos, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	}
	if err != nil {
		fmt.Fprintln(stderr, "mmc:", err)
		return 2
	}
	src, err := os.ReadFile(cfg.script)
	if err != nil {
		fmt.Fprintln(stderr, "mmc:", err)
		return 2
	}
	fmt.Fprintf(stdout, "%s, --costs=zero, service %s on average; seeds of %d requests until the 95%% interval is within %.1f%% (%d to %d seeds)\n",
		cfg.script, runtime.FormatDuration(cfg.service), cfg.n, 100*cfg.precision, cfg.minSeeds, cfg.maxSeeds)
	fmt.Fprintf(stdout, "%-3s %-4s %5s %9s %10s %16s %10s %7s %7s\n", "c", "rho", "seeds", "requests", "W", "95% interval", "Erlang C", "error", "Little")
	code := 0
	for _, c := range cfg.cs {
		for _, rho := range cfg.rhos {
			r, err := check(cfg, src, c, rho)
			if err != nil {
				fmt.Fprintln(stderr, "mmc:", err)
				return 1
			}
			verdict := "ok"
			if !r.ok() {
				verdict = "FAIL"
				code = 1
			}
			fmt.Fprintf(stdout, "%-3d %-4.1f %5d %9d %8.1fµs %15s %8.1fµs %+6.2f%% %+6.3f%%  %s\n",
				c, rho, r.seeds, r.n, r.w.Mean/1000, fmt.Sprintf("±%.1fµs (%.2f%%)", r.w.Half/1000, 100*r.w.Rel()),
				r.theory/1000, 100*r.err(), 100*r.little, verdict)
		}
	}
	return code
}

func parseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	var vs []T
	for _, f := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// check measures one cell: seeds in rounds until the interval is narrow
// enough.
func check(cfg config, src []byte, c int, rho float64) (cell, error) {
	mu := 1 / float64(cfg.service)
	r := cell{c: c, rho: rho, theory: queueing.MMcSojourn(c, rho*float64(c)*mu, mu)}
	var means []float64
	for r.seeds < cfg.maxSeeds {
		runs := make([]seedRun, min(cfg.round, cfg.maxSeeds-r.seeds))
		var wg sync.WaitGroup
		sem := make(chan struct{}, max(cfg.jobs, 1))
		for i := range runs {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				runs[i] = runSeed(cfg, src, c, rho, uint64(r.seeds+i+1))
			})
		}
		wg.Wait()
		for _, sr := range runs {
			if sr.err != nil {
				return r, sr.err
			}
			r.seeds++
			r.n += int64(len(sr.lat))
			xs := make([]float64, 0, len(sr.lat))
			for _, v := range sr.lat[int(cfg.warmup*float64(len(sr.lat))):] {
				xs = append(xs, float64(v))
			}
			bm, err := queueing.Batches(xs, cfg.batches)
			if err != nil {
				return r, err
			}
			means = append(means, bm...)
			if l := sr.inside/sr.lw - 1; math.Abs(l) > math.Abs(r.little) {
				r.little = l
			}
		}
		r.w = queueing.MeanInterval(means)
		if r.seeds >= cfg.minSeeds && r.w.Rel() <= cfg.precision {
			break
		}
	}
	return r, nil
}

// insideLine is the script's Little's law line; it gives the server's L.
var insideLine = regexp.MustCompile(`Little's law: ([0-9.]+) requests inside`)

// runSeed runs the script for seed with c workers at utilisation rho.
func runSeed(cfg config, src []byte, c int, rho float64, seed uint64) seedRun {
	args := []string{
		"--seed=" + strconv.FormatUint(seed, 10),
		"--param=c=" + strconv.Itoa(c),
		"--param=rho=" + strconv.FormatFloat(rho, 'g', -1, 64),
		"--param=service=" + strconv.FormatInt(cfg.service, 10),
		"--param=n=" + strconv.Itoa(cfg.n),
	}
	s, err := cli.ScriptSettings(cfg.script, src, args)
	if err != nil {
		return seedRun{err: err}
	}
	prog, err := lang.Compile(cfg.script, src, lang.Options{})
	if err != nil {
		return seedRun{err: fmt.Errorf("%s", lang.FormatCompileError(err))}
	}
	var stdout, stderr bytes.Buffer
	opts := s.Options(&stdout, &stderr)
	var m *runtime.Machine
	opts.OnStart = func(mm *runtime.Machine) { m = mm }
	res := prog.Run(opts)
	if res.ExitCode != 0 || m == nil || len(m.Traffics()) != 1 {
		return seedRun{err: fmt.Errorf("c=%d rho=%g seed %d: exit %d\n%s%s", c, rho, seed, res.ExitCode, stdout.Bytes(), stderr.Bytes())}
	}
	sub := insideLine.FindSubmatch(stdout.Bytes())
	if sub == nil {
		return seedRun{err: fmt.Errorf("c=%d rho=%g seed %d: no Little's law line in\n%s", c, rho, seed, stdout.Bytes())}
	}
	inside, _ := strconv.ParseFloat(string(sub[1]), 64)
	tr := m.Traffics()[0]
	lat := tr.Latencies()
	start, end := tr.Span()
	sum := 0.0
	for _, v := range lat {
		sum += float64(v)
	}
	throughput := float64(len(lat)) / float64(end-start) // per ns
	return seedRun{lat: lat, inside: inside, lw: throughput * sum / float64(len(lat))}
}
