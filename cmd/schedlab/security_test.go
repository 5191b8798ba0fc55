package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHostUntouched: running scripts writes no file but those the command
// line names, and what a run prints does not depend on the environment.
// Every example and every bad script runs in a scratch directory; the
// tree is the same afterwards, except for the two files named by
// --timeline and --chrome-trace.
func TestHostUntouched(t *testing.T) {
	bin := buildSchedlab(t)
	dir := t.TempDir()
	var scripts []string
	for _, pattern := range []string{"../../examples/*.star", "testdata/bad/*.star", "testdata/bad/load/*.star", "testdata/bad/load/sub/*.star"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimPrefix(filepath.ToSlash(f), "testdata/bad/")
			name = strings.TrimPrefix(name, "../../examples/")
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, src, 0o644); err != nil {
				t.Fatal(err)
			}
			scripts = append(scripts, name)
		}
	}
	before := tree(t, dir)
	for _, s := range scripts {
		code, stdout, stderr, err := runBin(bin, dir, []string{"run", "--timeout=1s", "--max-steps=1000000", "--max-time=1000h", "--max-goroutines=10000", s})
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		// The same run with an environment full of things a script might
		// look for prints the same.
		env := []string{"HOME=/nonexistent", "SCHEDLAB_SEED=99", "GOMAXPROCS=3", "TZ=Asia/Tokyo", "LANG=C"}
		code2, stdout2, stderr2, err := runBinEnv(bin, dir, []string{"run", "--timeout=1s", "--max-steps=1000000", "--max-time=1000h", "--max-goroutines=10000", s}, env)
		// A wall-clock timeout in either run depends on the host's load,
		// not on the environment: such a pair proves nothing either way.
		timedOut := strings.Contains(stderr, "wall-clock") || strings.Contains(stderr2, "wall-clock")
		if err == nil && !timedOut && (code2 != code || stdout2 != stdout || stderr2 != stderr) {
			t.Errorf("%s: the environment changed the run: exit %d then %d\n%s%s\n---\n%s%s", s, code, code2, stdout, stderr, stdout2, stderr2)
		}
	}
	if after := tree(t, dir); !slices.Equal(before, after) {
		t.Errorf("running the scripts changed the directory:\nbefore %q\nafter  %q", before, after)
	}

	// Output files go where the command line says, and nowhere else.
	code, _, stderr, err := runBin(bin, dir, []string{"run", "--timeline=out/t.html", "--chrome-trace=c.json", "pingpong.star"})
	if err == nil && code == 1 && strings.Contains(stderr, "no such file or directory") {
		// out/ does not exist: nothing may have been written.
		if after := tree(t, dir); !slices.Equal(before, after) {
			t.Errorf("a run that could not create its output wrote:\nbefore %q\nafter  %q", before, after)
		}
	} else {
		t.Errorf("--timeline into a missing directory: exit %d, %v, stderr:\n%s", code, err, stderr)
	}
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr, err := runBin(bin, dir, []string{"run", "--timeline=out/t.html", "--chrome-trace=c.json", "pingpong.star"}); err != nil || code != 0 {
		t.Fatalf("exit %d, %v, stderr:\n%s", code, err, stderr)
	}
	want := slices.Sorted(slices.Values(append(slices.Clone(before), "c.json", "out/", "out/t.html")))
	if after := tree(t, dir); !slices.Equal(want, after) {
		t.Errorf("with --timeline and --chrome-trace:\nwant %q\ngot  %q", want, after)
	}
}

// tree returns the paths under dir, sorted, directories with a slash.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		paths = append(paths, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	return paths
}
