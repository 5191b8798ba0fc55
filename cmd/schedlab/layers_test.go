package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the import path of schedlab's module.
const module = "github.com/schedlab/schedlab"

// A layerRule says what a package may not import (ARCHITECTURE.md,
// "Layers"): none of the packages under the prefixes in not, except
// those in but.
type layerRule struct {
	pkg string   // the package, relative to the module
	not []string // import path prefixes it must not import
	but []string // packages under those prefixes it may import
}

// layerRules are the one-way arrows of ARCHITECTURE.md, as imports that
// must not happen. A package not named here is free, as long as no
// package imports one above it (which the rules below also check for the
// core packages).
var layerRules = []layerRule{
	{pkg: "runtime", not: []string{module + "/", "go.starlark.net/"}},
	{pkg: "trace", not: []string{module + "/"}, but: []string{module + "/runtime"}},
	{pkg: "trace/exectrace", not: []string{module + "/"}, but: []string{module + "/runtime"}},
	{pkg: "trace/realevents", not: []string{module + "/"}, but: []string{module + "/runtime", module + "/internal/realtrace"}},
	{pkg: "lang", not: []string{module + "/"}, but: []string{module + "/runtime", module + "/trace/exectrace", module + "/internal/suggest", module + "/internal/latency"}},
	{pkg: "internal/explore", not: []string{module + "/"}},
	{pkg: "internal/suggest", not: []string{module + "/"}},
	{pkg: "internal/latency", not: []string{module + "/"}},
	{pkg: "internal/queueing", not: []string{module + "/"}},
	{pkg: "internal/realtrace", not: []string{module + "/"}},
	{pkg: "internal/testbuild", not: []string{module + "/"}},
	{pkg: "internal/cputime", not: []string{module + "/"}},
	{pkg: "internal/views", not: []string{module + "/"}, but: []string{module + "/runtime"}},
	{pkg: "internal/play/site", not: []string{module + "/"}},
	{pkg: "docs", not: []string{module + "/"}},
	{pkg: "examples", not: []string{module + "/"}},
	{pkg: "internal/cli", not: []string{module + "/repl", module + "/golden", module + "/cmd/", module + "/internal/explore", module + "/internal/play", module + "/internal/lab", module + "/internal/check"}},
	{pkg: "internal/schedfile", not: []string{module + "/"}},
	{pkg: "internal/check", not: []string{module + "/repl", module + "/golden", module + "/cmd/", module + "/internal/play", module + "/internal/lab", module + "/trace"}},
	{pkg: "internal/lab", not: []string{module + "/repl", module + "/golden", module + "/cmd/", module + "/internal/play", module + "/trace"}},
	{pkg: "internal/labhtml", not: []string{module + "/repl", module + "/golden", module + "/cmd/", module + "/internal/play"}},
}

// The layers of ARCHITECTURE.md, bottom up. A package imports packages
// of its own layer and of the layers below, never one above.
const (
	layerLibraries = iota // leaf libraries: they import nothing of schedlab
	layerEngine           // runtime
	layerEvents           // what a run's events become
	layerLanguage         // lang
	layerRuns             // settings, runs, sweeps, calibration
	layerFrontEnds        // the REPL, goldens, the playground, lab, check
	layerCommands         // the command, the benchmarks, the wasm engine
)

// layerNames are the layers' names in failures, by layer.
var layerNames = []string{"libraries", "engine", "events", "language", "runs", "front ends", "commands"}

// layers assigns every package of the module (go list ./..., and the
// wasm engine under GOOS=js) to its layer, relative to the module. A new
// package gets its line here and in ARCHITECTURE.md's table.
var layers = map[string]int{
	"internal/suggest":                     layerLibraries,
	"internal/latency":                     layerLibraries,
	"internal/queueing":                    layerLibraries,
	"internal/realtrace":                   layerLibraries,
	"internal/testbuild":                   layerLibraries,
	"internal/cputime":                     layerLibraries,
	"internal/schedfile":                   layerLibraries,
	"internal/explore":                     layerLibraries,
	"internal/play/site":                   layerLibraries,
	"docs":                                 layerLibraries,
	"examples":                             layerLibraries,
	"runtime":                              layerEngine,
	"trace":                                layerEvents,
	"trace/exectrace":                      layerEvents,
	"trace/tracetest":                      layerEvents,
	"trace/realevents":                     layerEvents,
	"internal/views":                       layerEvents,
	"lang":                                 layerLanguage,
	"internal/cli":                         layerRuns,
	"internal/explore/scriptrun":           layerRuns,
	"internal/calibrate":                   layerRuns,
	"repl":                                 layerFrontEnds,
	"golden":                               layerFrontEnds,
	"internal/play":                        layerFrontEnds,
	"internal/lab":                         layerFrontEnds,
	"internal/labhtml":                     layerFrontEnds,
	"internal/check":                       layerFrontEnds,
	"cmd/schedlab":                         layerCommands,
	"internal/play/wasm":                   layerCommands,
	"bench/compare":                        layerCommands,
	"bench/faithfulness":                   layerCommands,
	"bench/faithfulness/netpoll/client":    layerCommands,
	"bench/faithfulness/netpoll/server":    layerCommands,
	"bench/faithfulness/netpoll/summarize": layerCommands,
	"bench/faithfulness/startup/dump":      layerCommands,
	"bench/faithfulness/startup/spawns":    layerCommands,
	"bench/faithfulness/syscalltimes":      layerCommands,
	"bench/faithfulness/timertimes":        layerCommands,
	"bench/faithfulness/spawntimes":        layerCommands,
	"bench/faithfulness/waketimes":         layerCommands,
	"bench/faithfulness/wakestall":         layerCommands,
	"bench/faithfulness/stalltimes":        layerCommands,
	"bench/faithfulness/busywake":          layerCommands,
	"bench/faithfulness/twotimes":          layerCommands,
	"bench/faithfulness/printtimes":        layerCommands,
	"bench/faithfulness/ctxtimes":          layerCommands,
	"bench/faithfulness/ctxperf":           layerCommands,
	"bench/faithfulness/sysmontimes":       layerCommands,
	"bench/faithfulness/sysmontimes/probe": layerCommands,
	"bench/faithfulness/samples":           layerCommands,
	"bench/faithfulness/profiles/derive":   layerCommands,
	"bench/faithfulness/timeslice":         layerCommands,
	"bench/gcpacing":                       layerCommands,
	"bench/gcpacing/alloc":                 layerCommands,
	"bench/goker":                          layerCommands,
	"bench/mmc":                            layerCommands,
	"bench/mutate":                         layerCommands,
	"bench/netspeed":                       layerCommands,
}

// terminalLibs are the libraries that touch the terminal, and the
// packages that may import them.
var terminalLibs = map[string][]string{
	"github.com/chzyer/readline": {"repl", "cmd/schedlab"},
	"github.com/fatih/color":     {"repl", "golden", "cmd/schedlab"},
}

// listImports returns what each package of the module imports, by
// package relative to the module, as go list says for patterns under env
// (extra variables, such as GOOS).
func listImports(t *testing.T, env []string, patterns ...string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports"}, patterns...)...)
	cmd.Env = append(cmd.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	imports := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		imports[strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")] = p.Imports
	}
	return imports
}

// checkLayers checks that every package in imports has a layer, that
// every package of the layers table exists, and that no package imports
// one of a layer above its own.
func checkLayers(t *testing.T, imports map[string][]string, layers map[string]int) {
	t.Helper()
	for pkg := range layers {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("%s: in the layers table but no such package (update the table and ARCHITECTURE.md)", pkg)
		}
	}
	for pkg, imps := range imports {
		layer, ok := layers[pkg]
		if !ok {
			t.Errorf("%s: a package with no layer: give it one in the layers table and in ARCHITECTURE.md", pkg)
			continue
		}
		for _, imp := range imps {
			rel, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if l, ok := layers[rel]; ok && l > layer {
				t.Errorf("%s (layer %s) imports %s (layer %s), a layer above its own", pkg, layerNames[layer], rel, layerNames[l])
			}
		}
	}
}

// TestLayers checks the layers of ARCHITECTURE.md against what the
// packages import (go list), so that the map stays true: every package
// has a layer and imports none above it, and the rules below say what
// some packages may not import even within the layers they may.
func TestLayers(t *testing.T) {
	imports := listImports(t, nil, module+"/...")
	for pkg, imps := range listImports(t, []string{"GOOS=js", "GOARCH=wasm"}, module+"/internal/play/wasm") {
		imports[pkg] = imps
	}
	checkLayers(t, imports, layers)
	for _, r := range layerRules {
		imps, ok := imports[r.pkg]
		if !ok {
			t.Errorf("%s: no such package (update the rule and ARCHITECTURE.md)", r.pkg)
			continue
		}
		for _, imp := range imps {
			for _, not := range r.not {
				if strings.HasPrefix(imp, not) && !slices.Contains(r.but, imp) && imp != module+"/"+r.pkg {
					t.Errorf("%s imports %s, which ARCHITECTURE.md's layers forbid", r.pkg, imp)
				}
			}
		}
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			if allowed, ok := terminalLibs[imp]; ok && !slices.Contains(allowed, pkg) {
				t.Errorf("%s imports %s: only %s touch the terminal", pkg, imp, strings.Join(allowed, ", "))
			}
		}
	}
}

// TestWasmHasNoTerminal checks that the playground's engine, built for
// GOOS=js GOARCH=wasm, leaves the REPL's terminal code out: none of
// terminalLibs, nor package repl, is among the packages it is built from
// (its imports are only seen under js/wasm, which TestLayers does not
// list).
func TestWasmHasNoTerminal(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", module+"/internal/play/wasm")
	cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/lang") {
		t.Fatalf("the wasm engine is not built from lang: %v", deps)
	}
	for _, dep := range deps {
		if _, ok := terminalLibs[dep]; ok || dep == module+"/repl" || strings.HasPrefix(dep, module+"/cmd/") {
			t.Errorf("the wasm engine (internal/play/wasm) is built from %s, terminal code of the command and the REPL", dep)
		}
	}
}
