package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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

// TestShort runs the benchmark's command on its short set: check finds
// every bug and proves every fixed version clean up to bound 2.
func TestShort(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := doMain([]string{"-dir", ".", "-short", "-runs", "20"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	t.Logf("\n%s", out)
	n := len(shortKernels)
	for _, want := range []string{
		fmt.Sprintf("check found the bug of %d of %d kernels", n, n),
		fmt.Sprintf("fixed versions proved clean up to bound 2: %d of %d", n, n),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, name := range shortKernels {
		if !strings.Contains(out, "\n"+name+" ") {
			t.Errorf("no row for %s", name)
		}
	}
}
