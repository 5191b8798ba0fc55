package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
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

// TestSearchFlags: the table walks each kernel as its `# schedlab
// check:` directive says, and shows it: cockroach2448 with --stalls=on,
// without which check does not find it, and kubernetes11298 and
// kubernetes13135 with --reduction=dpor. No other kernel has a directive,
// so the other rows are the plain walk's.
func TestSearchFlags(t *testing.T) {
	ks, err := Kernels(".")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"cockroach2448": "--stalls=on", "kubernetes11298": "--reduction=dpor", "kubernetes13135": "--reduction=dpor"}
	for _, k := range ks {
		if got := strings.Join(append(k.Check.Flags, k.FixedCheck.Flags...), " "); got != want[k.Name] {
			t.Errorf("%s: check directives %q, want %q", k.Name, got, want[k.Name])
		}
	}
	var stdout, stderr bytes.Buffer
	code := doMain([]string{"-dir", ".", "-run", "cockroach2448", "-max-bound", "1", "-runs", "2", "-check-timeout", "5m"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	t.Logf("\n%s", out)
	if !regexp.MustCompile(`(?m)^cockroach2448 +channel +--stalls=on +leak +1 +12 `).MatchString(out) {
		t.Errorf("no row of cockroach2448 found with --stalls=on at bound 1 after 12 schedules")
	}
}
