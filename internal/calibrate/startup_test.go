package calibrate

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// inittraceSample is GODEBUG=inittrace=1's output of the start-up probe on
// the 2-vCPU AMD EPYC host (2026-12-07), with a line of another package
// that no small program inits and a line that is not inittrace's.
const inittraceSample = `init internal/bytealg @0 ms, 0 ms clock, 0 bytes, 0 allocs
init internal/runtime/gc/scan @0.65 ms, 0 ms clock, 0 bytes, 0 allocs
init runtime @0.68 ms, 0.11 ms clock, 0 bytes, 0 allocs
init math @1.2 ms, 0 ms clock, 0 bytes, 0 allocs
init errors @1.3 ms, 0.008 ms clock, 0 bytes, 0 allocs
init iter @1.3 ms, 0.021 ms clock, 0 bytes, 1 allocs
init sync @1.3 ms, 0 ms clock, 0 bytes, 0 allocs
init internal/godebug @1.4 ms, 0.40 ms clock, 312 bytes, 7 allocs
init syscall @1.8 ms, 0.013 ms clock, 832 bytes, 5 allocs
init time @1.8 ms, 0 ms clock, 0 bytes, 0 allocs
init internal/poll @1.9 ms, 0 ms clock, 72 bytes, 2 allocs
init io/fs @1.9 ms, 0 ms clock, 0 bytes, 0 allocs
init os @1.9 ms, 0.038 ms clock, 416 bytes, 9 allocs
init go.starlark.net/starlark @1.95 ms, 3.5 ms clock, 0 bytes, 0 allocs
init unicode @2.0 ms, 0.025 ms clock, 512 bytes, 4 allocs
init reflect @2.0 ms, 0 ms clock, 0 bytes, 0 allocs
runtime: something else
`

// parseInittrace takes the runtime's init clock and sums only the small
// program's packages, split at os.
func TestParseInittrace(t *testing.T) {
	rt, before, after, err := parseInittrace(inittraceSample)
	if err != nil {
		t.Fatal(err)
	}
	if rt != 110_000 || before != 8_000+21_000+400_000+13_000 || after != 38_000+25_000 {
		t.Errorf("parseInittrace: runtime %d, before os %d, from os on %d; want 110000, 442000, 63000", rt, before, after)
	}
	if _, _, _, err := parseInittrace("init math @1.2 ms, 0 ms clock, 0 bytes, 0 allocs\n"); err == nil || !strings.Contains(err.Error(), "no line for the runtime's init") {
		t.Errorf("without the runtime's line: %v, want an error that says so", err)
	}
	if _, _, _, err := parseInittrace("init runtime @0.68 ms, x ms clock, 0 bytes, 0 allocs\n"); err == nil || !strings.Contains(err.Error(), "is not a number") {
		t.Errorf("a clock that is not a number: %v, want an error that says so", err)
	}
}

func TestParseSpawns(t *testing.T) {
	got, err := parseSpawns("spawns 1963 491 29305 491 3 0 1 2\n")
	if err != nil || got != [startupSpawns]int64{1963, 491, 29305, 491} {
		t.Errorf("parseSpawns: %v, %v", got, err)
	}
	for _, bad := range []string{"", "spawns 1 2 3\n", "spawned 1 2 3 4\n", "spawns 1 2 -3 4\n", "spawns 1 2 x 4\n"} {
		if _, err := parseSpawns(bad); err == nil {
			t.Errorf("parseSpawns(%q): no error", bad)
		}
	}
}

// The start-up probe builds and runs: each run gives the runtime's init
// and four go statements that took time.
func TestStartupProbe(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the probe")
	}
	exe, version, err := buildStartupProbe(goCmd, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "go") {
		t.Errorf("the go command's version %q", version)
	}
	for range 3 {
		s, err := runStartupProbe(exe, 2)
		if err != nil {
			t.Fatal(err)
		}
		if s.initRuntime <= 0 && s.initPackages <= 0 {
			t.Errorf("no init work measured: %+v", s)
		}
		for i, d := range s.spawns {
			if d <= 0 {
				t.Errorf("go statement %d took %dns: %+v", i+1, d, s)
			}
		}
	}
}

func TestParsePark(t *testing.T) {
	if v, err := parsePark("park 14017\n"); err != nil || v != 14017 {
		t.Errorf("parsePark: %d, %v; want 14017", v, err)
	}
	for _, bad := range []string{"", "park", "park -3", "spawns 1 2 3 4", "park x"} {
		if _, err := parsePark(bad); err == nil {
			t.Errorf("parsePark(%q) took it", bad)
		}
	}
}

func TestSemaFirstSamples(t *testing.T) {
	// The channels' median is 1000: each wait less it, at least 0.
	got := semaFirst([]float64{14000, 500, 1000}, []float64{900, 1000, 1100})
	if want := []float64{13000, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("semaFirst: %v, want %v", got, want)
	}
}

func TestParkProbe(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the probe")
	}
	exe, _, err := buildStartupProbe(goCmd, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"wait", "chan"} {
		v, err := runParkProbe(exe, mode)
		if err != nil {
			t.Fatal(err)
		}
		if v <= 0 {
			t.Errorf("%s: the first park took %dns", mode, v)
		}
	}
}

func TestStartupOnly(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the probe")
	}
	if !supported {
		t.Skip("calibrate runs on Linux only")
	}
	p, rep, err := Run(Options{Runs: 8, Name: "host", StartupOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	def := runtime.DefaultCosts()
	for k := range runtime.NumCosts {
		k := runtime.CostKind(k)
		measured := k == runtime.CostInitRuntime || k == runtime.CostInitPackages || k == runtime.CostInitAfter || k == runtime.CostSemaFirst
		if measured {
			if n := p.Dists[k].N; n != startupRounds(8) {
				t.Errorf("%s: n %d, want %d processes", k, n, startupRounds(8))
			}
			continue
		}
		if p.Dists[k] != def.Dists[k] {
			t.Errorf("%s is not the default's: %+v", k, p.Dists[k])
		}
	}
	if len(p.MalgRank) != startupSpawns {
		t.Errorf("malg_rank has %d ranks, want %d", len(p.MalgRank), startupSpawns)
	}
	if p.Name != "host" || !rep.StartupOnly || !strings.Contains(p.Notes, "the shipped default profile") {
		t.Errorf("name %q, StartupOnly %v, notes %q", p.Name, rep.StartupOnly, p.Notes)
	}
	if _, err := runtime.ParseCosts("host.json", p.JSON()); err != nil {
		t.Errorf("the profile does not parse: %v", err)
	}
}
