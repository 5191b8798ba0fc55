package play

import (
	"bytes"
	"time"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/explore"
	"github.com/schedlab/schedlab/internal/explore/scriptrun"
	"github.com/schedlab/schedlab/lang"
)

// Explore's defaults for each run, as `schedlab explore` has them.
const (
	exploreMaxSteps = 10_000_000
	explorePerturb  = "timing"
	exploreTimeout  = 10 * time.Second
)

// An ExploreRequest is a sweep the page asks for: Runs runs of the script
// with the run flags Args, run i with seed SeedStart+i and the i-th of
// Procs in turn (the script's --procs when empty), perturbed by Perturb
// (the script's --perturb, else timing, when empty).
type ExploreRequest struct {
	Filename  string   `json:"filename"`
	Src       string   `json:"src"`
	Args      []string `json:"args"`
	Runs      int      `json:"runs"`
	SeedStart uint64   `json:"seedStart"`
	Procs     []int    `json:"procs"`
	Perturb   string   `json:"perturb"`
}

// An ExploreClass is one class of the sweep's runs, with the flags that
// replay its first run.
type ExploreClass struct {
	explore.ReportClass
	ReplayFlags []string `json:"replayFlags"` // run flags that replay the class's first run
}

// An ExploreResult is what a sweep found.
type ExploreResult struct {
	Error   string         `json:"error,omitempty"` // a bad flag, or a script that does not load
	Done    int            `json:"done"`
	Perturb string         `json:"perturb"`
	Classes []ExploreClass `json:"classes"`
	Table   string         `json:"table"` // the table `schedlab explore` prints
}

// Explore does the sweep in this goroutine, one run after another, calling
// progress (if not nil) after each run with the number done. Each run is
// the one `schedlab run --seed S --procs P --perturb X` does.
func Explore(req ExploreRequest, progress func(done int)) *ExploreResult {
	src := []byte(req.Src)
	s, err := cli.PageSettings(req.Filename, src, req.Args)
	if err != nil {
		return &ExploreResult{Error: err.Error()}
	}
	var limits []string
	if !s.Given("max-steps") {
		s.MaxSteps = exploreMaxSteps
		limits = append(limits, "--max-steps=10000000")
	}
	perturb := req.Perturb
	if perturb == "" {
		perturb = explorePerturb
		if s.Given("perturb") {
			perturb = s.Perturb
		}
	}
	pt, err := cli.PerturbationFor(perturb, s.CostsProfile())
	if err != nil {
		return &ExploreResult{Error: err.Error() + "\n"}
	}
	procs := req.Procs
	if len(procs) == 0 {
		procs = []int{s.Procs}
	}
	runs := max(req.Runs, 1)
	seedStart := req.SeedStart
	if seedStart == 0 {
		seedStart = 1
	}
	prog, err := lang.Compile(req.Filename, src, lang.Options{})
	if err != nil {
		return &ExploreResult{Error: lang.FormatCompileError(err)}
	}
	base := s.Options(nil, nil)
	if !s.Given("timeout") {
		base.Timeout = exploreTimeout
	}
	base.Perturb = pt
	base.MaxMemory = 0 // the page's worker is its own process; the browser bounds it

	plan := &explore.Plan{Runs: runs, SeedStart: seedStart, Procs: procs}
	var opt explore.SweepOptions
	opt.Jobs = 1
	if progress != nil {
		opt.Progress = progress
	}
	tally := explore.Sweep(plan, func() func(explore.Run) explore.Result { return scriptrun.NewJob(prog, base) }, opt)
	var runFlags []string
	for _, a := range req.Args {
		if !isProcsOrSeed(a) {
			runFlags = append(runFlags, a)
		}
	}
	report := explore.NewReport(plan, tally, req.Filename, src, perturb, runFlags, limits)
	res := &ExploreResult{Done: tally.Done, Perturb: perturb}
	for _, c := range report.Classes {
		res.Classes = append(res.Classes, ExploreClass{ReportClass: c, ReplayFlags: replayFlags(report.ReplayArgs(&c))})
	}
	var table bytes.Buffer
	report.WriteTable(&table)
	res.Table = table.String()
	return res
}

// isProcsOrSeed reports whether a run flag sets --procs or --seed, which
// each run of a sweep sets itself.
func isProcsOrSeed(a string) bool {
	for _, p := range []string{"-procs", "--procs", "-seed", "--seed"} {
		if a == p || len(a) > len(p) && a[:len(p)+1] == p+"=" {
			return true
		}
	}
	return false
}

// replayFlags drops the script's name, the last argument, from the
// arguments of a replay.
func replayFlags(args []string) []string {
	return args[:len(args)-1]
}
