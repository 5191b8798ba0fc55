package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/explore/scriptrun"
)

var kinds = []string{"channel", "mutex", "waitgroup", "cond", "mixed"}

// TestKernels loads every kernel and fixed version and runs its default
// schedule: each has a kind, loads, and ends as a program does (not an
// error of the script).
func TestKernels(t *testing.T) {
	ks, err := Kernels(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) == 0 {
		t.Fatal("no kernels")
	}
	cfg := Config{Instances: 2}
	for _, k := range ks {
		if !slices.Contains(kinds, k.Kind) {
			t.Errorf("%s: kind %q, want one of %v", k.Name, k.Kind, kinds)
		}
		for _, p := range []string{k.Path, k.Fixed} {
			if p == "" {
				continue
			}
			sc, err := load(cfg, p)
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			res, _ := scriptrun.New(sc.prog).Run(sc.opts)
			if res.Outcome == "error" || res.Outcome == "panic" {
				t.Errorf("%s: default schedule ended %s: %s", p, res.Outcome, res.Message)
			}
		}
	}
}

// TestHeldOut checks that the held-out kernels (etcd, grpc, hugo,
// istio) stay out of the repository: they test the tool on programs it
// was not tuned on.
func TestHeldOut(t *testing.T) {
	paths, err := filepath.Glob("*")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		for _, held := range []string{"etcd", "grpc", "hugo", "istio"} {
			if strings.HasPrefix(strings.ToLower(p), held) {
				t.Errorf("%s: the %s kernels are held out of the repository", p, held)
			}
		}
	}
}

// TestShort runs the benchmark's short set: check finds every bug and
// proves every fixed version clean up to bound 2.
func TestShort(t *testing.T) {
	cfg := Config{Dir: ".", Short: true, Instances: 2, MaxBound: 3, MaxSchedules: 20000, FixedBound: 2, FixedTimeout: time.Minute, Runs: 20, ExploreProcs: 2}
	var rows []Row
	for _, name := range shortKernels {
		k := Kernel{Name: name, Path: name + ".star", Fixed: name + "_fixed.star"}
		row, err := Measure(cfg, k)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !row.CheckFound {
			t.Errorf("%s: check did not find the bug in %d schedules", name, row.CheckSchedules)
		}
		if row.FixedVerdict != "clean" {
			t.Errorf("%s: fixed version: %s after %d schedules, want clean", name, row.FixedVerdict, row.FixedSchedules)
		}
		rows = append(rows, row)
	}
	var out bytes.Buffer
	WriteTable(&out, rows)
	t.Logf("\n%s", out.String())
}
