package main

import (
	"bytes"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/cputime"
	"github.com/schedlab/schedlab/internal/explore"
	"github.com/schedlab/schedlab/lang"
)

// The examples that hide a bug pass on the default schedule and fail
// under explore's default perturbation, at the first seed their comments
// name.
func TestExploreFindsTheExamples(t *testing.T) {
	for _, test := range []struct {
		name    string
		outcome string
		seed    int
	}{
		{"lost_update", "assert", 7},
		{"lock_order", "deadlock", 17},
		{"missed_wakeup", "deadlock", 13},
	} {
		script := "../../examples/" + test.name + ".star"
		var stdout, stderr bytes.Buffer
		if code := doMain([]string{"run", script}, &stdout, &stderr); code != 0 {
			t.Errorf("schedlab run %s: exit %d\n%s", script, code, stderr.String())
		}
		stdout.Reset()
		code := doMain([]string{"explore", "--runs", "100", script}, &stdout, &stderr)
		row := fmt.Sprintf("\n1  %s ", test.outcome)
		replay := fmt.Sprintf("1  schedlab run --seed %d --procs 2 --perturb=timing %s  # replay: ok\n", test.seed, script)
		if code != 1 || !strings.Contains(stdout.String(), row) || !strings.Contains(stdout.String(), replay) {
			t.Errorf("schedlab explore %s: exit %d, want 1, a first class %s and\n%s\ngot:\n%s%s", script, code, test.outcome, replay, stdout.String(), stderr.String())
		}
	}
}

// tenGoroutines is the script of BenchmarkExplore: ten goroutines on two
// Ps, each ten times doing some work, taking a mutex and sending to main.
const tenGoroutines = `# schedlab: --procs=2
ch = chan()
mu = mutex()
count = [0]

def worker(i):
    for j in range(10):
        work("10us")
        mu.lock()
        count[0] += 1
        mu.unlock()
        ch.send(i)

for i in range(10):
    spawn(worker, i)
total = 0
for k in range(100):
    total += ch.recv()
assert(count[0] == 100, "count is %d" % count[0])
print("total", total)
`

// BenchmarkExplore measures a sweep of the ten-goroutine script as
// `schedlab explore` does it (one engine per run, outputs classified),
// with --perturb=timing, on one job and on every CPU. One op is one run.
// runs/s is wall-clock throughput; cpu-µs/run is the CPU time (user and
// system, all threads) the process spent per run, which a busy machine
// disturbs far less. docs/performance.md reports both.
func BenchmarkExplore(b *testing.B) {
	perturb, _ := cli.Perturbation("timing")
	prog, err := lang.Compile("ten.star", []byte(tenGoroutines), lang.Options{})
	if err != nil {
		b.Fatal(err)
	}
	base := lang.Options{Preempt: true, Timeout: exploreTimeout, Perturb: perturb, Alive: true}
	withStartup := base
	withStartup.RuntimeMain = true // --startup=go, the command's default: what the start-up adds to a run
	for _, bench := range []struct {
		name string
		jobs int
		base lang.Options
	}{
		{"jobs=1", 1, base},
		{fmt.Sprintf("jobs=%d", goruntime.NumCPU()), goruntime.NumCPU(), base},
		{"startup=go/jobs=1", 1, withStartup},
	} {
		sr := &scriptRunner{prog: prog, base: bench.base}
		jobs := bench.jobs
		b.Run(bench.name, func(b *testing.B) {
			plan := &explore.Plan{Runs: b.N, SeedStart: 1, Procs: []int{2}}
			b.ReportAllocs()
			start, cpu := time.Now(), cputime.Process()
			t := explore.Sweep(plan, sr.newJob, explore.SweepOptions{Jobs: jobs})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "runs/s")
			if cpu := cputime.Process() - cpu; cpu > 0 {
				b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/run")
			}
			for _, c := range t.Classes {
				if c.Outcome.Failure() {
					b.Fatalf("run %d failed: %s %s", c.First.Index, c.Outcome, c.Message)
				}
			}
		})
	}
}

// Every run flag explore passes on has a value to write into a replay
// command: runFlagValue panics on a flag it does not know, which a flag
// added to exploreRunFlags alone would make it do.
func TestExploreRunFlagValues(t *testing.T) {
	s := cli.NewSettings()
	for _, name := range exploreRunFlags {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("--%s: %v", name, r)
				}
			}()
			runFlagValue(s, name)
		}()
	}
}
