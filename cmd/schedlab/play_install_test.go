package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlayFromInstalledBinary: a schedlab installed with go install
// module@version, run outside any checkout, builds the playground from
// that version's source in the module cache. The module is served at
// v0.0.1 by a file proxy made from this tree's committed files (git
// archive of the work tree's state), its dependencies by the local module
// cache's download directory, so that nothing comes from the network.
func TestPlayFromInstalledBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("installs schedlab and builds the engine: not with -short")
	}
	gitDir, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("no git checkout to archive: %v", err)
	}
	root := strings.TrimSpace(string(gitDir))
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	work := t.TempDir()
	const version = "v0.0.1"
	vdir := filepath.Join(work, "proxy", "github.com", "schedlab", "schedlab", "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The work tree as it is, committed or not (git stash create makes a
	// commit of it without touching anything; nothing to stash is HEAD).
	rev := "HEAD"
	if out, err := exec.Command("git", "-C", root, "stash", "create").Output(); err == nil && len(bytes.TrimSpace(out)) > 0 {
		rev = string(bytes.TrimSpace(out))
	}
	zip := exec.Command("git", "-C", root, "archive", "--format=zip", "--prefix=github.com/schedlab/schedlab@"+version+"/", "-o", filepath.Join(vdir, version+".zip"), rev)
	if out, err := zip.CombinedOutput(); err != nil {
		t.Fatalf("git archive: %v\n%s", err, out)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"list":            version + "\n",
		version + ".mod":  string(mod),
		version + ".info": `{"Version":"` + version + `","Time":"2026-12-05T00:00:00Z"}`,
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(filepath.Join(work, "proxy"))+",file://"+filepath.ToSlash(filepath.Join(goEnv("GOMODCACHE"), "cache", "download")),
		"GOMODCACHE="+filepath.Join(work, "modcache"),
		"GOFLAGS=-modcacherw",
		"GOSUMDB=off",
		"GOBIN="+filepath.Join(work, "bin"),
	)
	install := exec.Command("go", "install", "github.com/schedlab/schedlab/cmd/schedlab@"+version)
	install.Dir, install.Env = work, env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	play := exec.Command(filepath.Join(work, "bin", "schedlab"), "play", "--out", "site")
	play.Dir, play.Env = work, env // not inside any source tree of schedlab
	out, err := play.CombinedOutput()
	if err != nil {
		t.Fatalf("schedlab play --out site: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "wrote the playground") {
		t.Errorf("schedlab play said %q", out)
	}
	for _, f := range []string{"engine.wasm", "index.html", "wasm_exec.js"} {
		if _, err := os.Stat(filepath.Join(work, "site", f)); err != nil {
			t.Errorf("the site has no %s: %v", f, err)
		}
	}
}

// TestPlayFromCheckoutBinary: a schedlab installed from a checkout with
// go install ./cmd/schedlab (version "(devel)", nothing to look up in the
// module cache), run outside any checkout, builds the playground from the
// checkout it was built in, and says so.
func TestPlayFromCheckoutBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("installs schedlab and builds the engine: not with -short")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	install := exec.Command("go", "install", ".")
	install.Env = append(os.Environ(), "GOBIN="+filepath.Join(work, "bin"))
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	play := exec.Command(filepath.Join(work, "bin", "schedlab"), "play", "--out", "site")
	play.Dir = work // not inside any source tree of schedlab
	var stdout, stderr bytes.Buffer
	play.Stdout, play.Stderr = &stdout, &stderr
	if err := play.Run(); err != nil {
		t.Fatalf("schedlab play --out site: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "wrote the playground") {
		t.Errorf("schedlab play printed %q", stdout.String())
	}
	if want := "the engine is built from " + root + ", the checkout this schedlab was built in"; !strings.Contains(stderr.String(), want) {
		t.Errorf("schedlab play's stderr %q does not say %q", stderr.String(), want)
	}
	if _, err := os.Stat(filepath.Join(work, "site", "engine.wasm")); err != nil {
		t.Errorf("the site has no engine: %v", err)
	}
}
