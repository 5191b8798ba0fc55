// Package testbuild builds Go programs for tests, once per set of
// sources: a build is kept in the temporary directory under a hash of
// everything it is made from, so that the next `go test` with the same
// sources runs the binary without building it again. Tests that run the
// schedlab command or a real Go program as a process use it
// (golden's TestHostIndependent, lang's Go twins).
//
// It imports nothing of schedlab and is for tests only.
package testbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Build returns the binary that `go build flags target` makes in dir,
// with env added to the go command's environment. name names the binary
// in the cache (it need not be unique). The key of a build is a hash of
// the go command's version and settings, env, the flags, the target, the
// main module's go.mod and go.sum (which pin every dependency), and the
// contents of every Go and embedded file of the main module's packages
// the build compiles, or of the files named as the target (go list
// -deps). Builds older than a day are removed.
func Build(dir, name string, env, flags []string, target string) (string, error) {
	key, err := hash(dir, env, flags, target)
	if err != nil {
		return "", err
	}
	cache := filepath.Join(os.TempDir(), "schedlab-testbuild-"+name+"-"+key)
	bin := filepath.Join(cache, name)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(cache, 0o777); err != nil {
		return "", err
	}
	// Built under a name of its own and renamed, so that a test running
	// at the same time never sees half a binary.
	tmp, err := os.CreateTemp(cache, "build-")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command("go", append(append([]string{"build", "-o", tmp.Name()}, flags...), target)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s %s: %v\n%s", strings.Join(flags, " "), target, err, out)
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", err
	}
	removeStale(cache)
	return bin, nil
}

// hash returns the key of a build (see Build).
func hash(dir string, env, flags []string, target string) (string, error) {
	h := sha256.New()
	goEnv := func(args ...string) ([]byte, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go %s: %v", strings.Join(args, " "), err)
		}
		return out, nil
	}
	settings, err := goEnv("env", "GOVERSION", "GOOS", "GOARCH", "GOFLAGS", "CGO_ENABLED", "GOEXPERIMENT", "GOMOD")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "%s\n%q\n%q\n%q\n", settings, env, flags, target)
	list, err := goEnv("list", "-deps", "-f",
		`{{if not .Standard}}{{if or (not .Module) .Module.Main}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .CgoFiles}} {{.}}{{end}}{{range .EmbedFiles}} {{.}}{{end}}{{end}}{{end}}`,
		target)
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(strings.Split(string(settings), "\n")[6])
	root := filepath.Dir(gomod)
	files := []string{gomod}
	if _, err := os.Stat(filepath.Join(root, "go.sum")); err == nil {
		files = append(files, filepath.Join(root, "go.sum"))
	}
	for _, line := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		for _, name := range f[1:] {
			files = append(files, filepath.Join(f[0], name))
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, f)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// removeStale removes the builds of Build older than a day but keep, so
// that the temporary directory does not fill up with one build per
// change of the sources. A build in use by a test right now is younger.
func removeStale(keep string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "schedlab-testbuild-*"))
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && d != keep && time.Since(fi.ModTime()) > 24*time.Hour {
			os.RemoveAll(d)
		}
	}
}
