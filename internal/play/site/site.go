// Package site builds the playground's static site: the page (files/,
// embedded: index.html, play.js, play.css, worker.js), Go's own
// wasm_exec.js from $(go env GOROOT)/lib/wasm, and the engine, package
// internal/play/wasm built by the go command with GOOS=js GOARCH=wasm.
// The site is a directory of static files: any static file server
// serves it, and it loads nothing from anywhere else.
package site

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// Files is the page.
//
//go:embed files
var Files embed.FS

// EnginePackage is the import path of the engine's main package.
const EnginePackage = "github.com/schedlab/schedlab/internal/play/wasm"

// Module is the module path of schedlab, whose source a build needs.
const Module = "github.com/schedlab/schedlab"

// A Builder builds sites from a source tree of schedlab.
type Builder struct {
	Root string // the module's root directory (where go.mod is)
	Go   string // the go command; "" means "go" on PATH
}

// FindRoot returns the root of the schedlab module that holds dir, or an
// error that says the playground is built from a checkout.
func FindRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if isRoot(d) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%s is not inside a source tree of %s: the playground's engine is built from the source with the go command; run schedlab play in a checkout (go run ./cmd/schedlab play) or with a schedlab built in one that is still there (go install ./cmd/schedlab), give one with --source DIR, or install schedlab with go install %s/cmd/schedlab@VERSION, whose play builds from the module cache", dir, Module, Module)
		}
		d = parent
	}
}

// isRoot reports whether dir is the root of schedlab's module: its go.mod
// names the module.
func isRoot(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	first, _, _ := strings.Cut(string(data), "\n")
	return err == nil && strings.TrimSpace(first) == "module "+Module
}

// BuiltFrom returns the root of the source tree this binary was compiled
// from, if it was built there without -trimpath (go install
// ./cmd/schedlab, or go build, in a checkout) and the tree is still
// there: what a schedlab built in a checkout builds the playground's
// engine from when it runs elsewhere. The compiler records the path of
// each source file, which runtime.Caller reads back.
func BuiltFrom() (string, bool) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", false
	}
	return builtFrom(file)
}

// builtFrom is BuiltFrom for the path the compiler recorded of this file,
// internal/play/site/site.go under the root: with -trimpath it is the
// import path's, not absolute.
func builtFrom(file string) (string, bool) {
	if !filepath.IsAbs(file) {
		return "", false
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(file))))
	return root, isRoot(root)
}

func (b *Builder) goCmd(args ...string) *exec.Cmd {
	g := b.Go
	if g == "" {
		g = "go"
	}
	cmd := exec.Command(g, args...)
	cmd.Dir = b.Root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	return cmd
}

// output runs the go command and returns its stdout, or an error with its
// stderr.
func (b *Builder) output(args ...string) ([]byte, error) {
	cmd := b.goCmd(args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("go %s: %s", strings.Join(args, " "), msg)
	}
	return out, nil
}

// Version returns the version of the engine the source tree builds:
// "devel-" and 12 hex digits of a SHA-256 over the Go version and every
// file of the module that the engine is built from (its packages' Go and
// embedded files, go.mod and go.sum). Two trees that build the same
// engine have the same version; a change to the engine changes it.
func (b *Builder) Version() (string, error) {
	out, err := b.output("list", "-deps", "-f",
		`{{if .Module}}{{if .Module.Main}}{{.Dir}}{{range .GoFiles}}|{{.}}{{end}}{{range .EmbedFiles}}|{{.}}{{end}}{{"\n"}}{{end}}{{end}}`,
		EnginePackage)
	if err != nil {
		return "", err
	}
	gover, err := b.output("env", "GOVERSION")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", bytes.TrimSpace(gover))
	lines := append(strings.Split(strings.TrimSpace(string(out)), "\n"), b.Root+"|go.mod|go.sum")
	for _, line := range lines {
		fields := strings.Split(line, "|")
		dir := fields[0]
		for _, name := range fields[1:] {
			path := filepath.Join(dir, name)
			data, err := os.ReadFile(path)
			if err != nil {
				return "", err
			}
			rel, _ := filepath.Rel(b.Root, path)
			fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(data))
			h.Write(data)
		}
	}
	return "devel-" + hex.EncodeToString(h.Sum(nil))[:12], nil
}

// Build writes the site into dir, which must exist and is expected to be
// empty, and returns the engine's version.
func (b *Builder) Build(dir string) (string, error) {
	// The go command runs in Root: a relative dir would be Root's.
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	version, err := b.Version()
	if err != nil {
		return "", err
	}
	wasm := filepath.Join(dir, "engine.wasm")
	if _, err := b.output("build", "-trimpath", "-ldflags=-s -w -X main.version="+version, "-o", wasm, EnginePackage); err != nil {
		return "", err
	}
	goroot, err := b.output("env", "GOROOT")
	if err != nil {
		return "", err
	}
	execJS, err := os.ReadFile(filepath.Join(string(bytes.TrimSpace(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return "", fmt.Errorf("reading wasm_exec.js of the Go toolchain: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), execJS, 0o644); err != nil {
		return "", err
	}
	err = fs.WalkDir(Files, "files", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := Files.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, "/index.html") {
			data = bytes.ReplaceAll(data, []byte("{{VERSION}}"), []byte(version))
		}
		return os.WriteFile(filepath.Join(dir, strings.TrimPrefix(path, "files/")), data, 0o644)
	})
	if err != nil {
		return "", err
	}
	return version, nil
}

// InstalledVersion returns the version of schedlab's module that this
// binary was built from, when it was built from a release or a pseudo-
// version of the module (go install github.com/schedlab/schedlab/cmd/
// schedlab@VERSION): the version whose source the module cache holds. It
// reports false for a build in a checkout ("(devel)", or a version marked
// +dirty) and for a binary that is not schedlab's.
func InstalledVersion() (string, bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	return versionOf(bi.Main)
}

// versionOf is InstalledVersion's test of the main module.
func versionOf(main debug.Module) (string, bool) {
	v := main.Version
	if main.Path != Module || v == "" || v == "(devel)" || strings.Contains(v, "+dirty") || !strings.HasPrefix(v, "v") {
		return "", false
	}
	return v, true
}

// ModuleSource returns the directory of the module cache that holds the
// source of schedlab at version, downloading it with the go command (go
// mod download) if it is not there yet: what an installed schedlab builds
// the playground's engine from, outside any checkout.
func ModuleSource(goCmd, version string) (string, error) {
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, "mod", "download", "-json", Module+"@"+version)
	cmd.Dir = os.TempDir() // outside any module: the argument names the module
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", Module, version, info.Error)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("go mod download %s@%s: %s", Module, version, msg)
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s gave no directory", Module, version)
	}
	return info.Dir, nil
}
