// Package play is the schedlab playground: a static web page that runs
// schedlab's engine, compiled to WebAssembly, in the browser, with the
// M:P:G picture live, stepping, explore and share links.
//
// The engine's side, which this package holds and which compiles both
// natively (for the tests, and for `schedlab play --link`) and for
// GOOS=js GOARCH=wasm (in the page's Web Worker, through package
// play/wasm):
//
//   - Run (run.go): one run's views, the bytes `schedlab run` prints with
//     and without --trace, and its HTML timeline (cli.RunViews);
//   - Stepper (stepper.go): a run paused after any scheduling event, and
//     its Picture, the REPL's :ps and :runq of that state (package views);
//   - Explore (explore.go): a sweep over seeds, as `schedlab explore`;
//   - links (link.go): the share link's versioned format;
//   - Info (this file): the examples, the version, and the note on what
//     the engine models (note.go, read from docs/runtime.md).
//
// The page's side is site/ (index.html, play.js, worker.js, play.css),
// embedded, and Build (site.go), which writes the static site: those
// files, Go's own wasm_exec.js and the engine built with the go command.
package play

import (
	"io"
	"io/fs"
	"path"
	"slices"

	"github.com/schedlab/schedlab/examples"
	"github.com/schedlab/schedlab/internal/cli"
)

// version is the engine's version; the wasm build sets it with -ldflags
// -X (site.go), and natively EngineVersion computes it.
var version = "devel"

// SetVersion sets the version Info reports (package play/wasm's main
// calls it with the version it was built with).
func SetVersion(v string) { version = v }

// An Example is one of examples/*.star.
type Example struct {
	Name string `json:"name"` // its file name, "hello.star"
	Src  string `json:"src"`
}

// Examples returns every example, by name.
func Examples() []Example {
	var exs []Example
	names, _ := fs.Glob(examples.FS, "*.star")
	slices.Sort(names)
	for _, name := range names {
		src, _ := fs.ReadFile(examples.FS, name)
		exs = append(exs, Example{Name: path.Base(name), Src: string(src)})
	}
	return exs
}

// InfoResult is what the page learns from the engine when it starts.
type InfoResult struct {
	Version    string    `json:"version"`    // the engine's version, which links carry
	LinkFormat int       `json:"linkFormat"` // the link format it reads and writes
	MaxScript  int       `json:"maxScript"`  // the longest script a link carries
	Examples   []Example `json:"examples"`
	Note       *Note     `json:"note"`
	Error      string    `json:"error,omitempty"`
}

// Info returns the engine's version, the examples and the note.
func Info() *InfoResult {
	in := &InfoResult{Version: version, LinkFormat: LinkFormat, MaxScript: MaxLinkScript, Examples: Examples()}
	n, err := ModelNote()
	if err != nil {
		in.Error = err.Error()
	}
	in.Note = n
	return in
}

// A RunRequest is a run the page asks for.
type RunRequest struct {
	Filename string   `json:"filename"`
	Src      string   `json:"src"`
	Args     []string `json:"args"` // run flags
	Timeline bool     `json:"timeline"`
	GoTrace  bool     `json:"goTrace"`
}

// A RunResult is a run's views, as text.
type RunResult struct {
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	Trace    string `json:"trace"`
	Timeline string `json:"timeline"`
	GoTrace  []byte `json:"goTrace"` // the Go execution trace, for go tool trace (base64 in JSON)
	Code     int    `json:"code"`
	Events   int    `json:"events"` // scheduling events, the steps of the run
}

// Run does the run of req, writing its output and stderr to stdout and
// stderr (if not nil) as they come as well.
func Run(req RunRequest, stdout, stderr io.Writer) *RunResult {
	v := cli.RunViews(req.Filename, []byte(req.Src), req.Args, cli.Want{Timeline: req.Timeline, GoTrace: req.GoTrace}, stdout, stderr)
	return &RunResult{Stdout: string(v.Stdout), Stderr: string(v.Stderr), Trace: string(v.Trace),
		Timeline: string(v.Timeline), GoTrace: v.GoTrace, Code: v.Code, Events: v.Events}
}
