package lang

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/starlarktest"
)

// TestScripts runs every testdata/*.star under schedlab with 1 and with 2
// Ps. The scripts check themselves with the assert module of starlarktest
// (assert.eq, assert.fails, ...), which replaces the assert builtin there.
//
// A file may hold several chunks separated by a line "---"; each chunk is a
// script of its own. A chunk with a comment `### regexp` must fail: its run
// must end with a non-zero exit status and stderr must match the regexp.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.star")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.star")
	}
	assert, err := starlarktest.LoadAssertModule()
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, chunk := range splitChunks(string(src)) {
			for _, procs := range []int{1, 2} {
				name := fmt.Sprintf("%s/chunk%d/procs%d", filepath.Base(file), i+1, procs)
				t.Run(name, func(t *testing.T) {
					runChunk(t, file, chunk, procs, assert)
				})
			}
		}
	}
}

// A chunk is one script of a chunked file.
type chunk struct {
	line    int    // the line of the file it starts on
	src     string // padded with blank lines, so positions are the file's
	wantErr string // the regexp of a `###` comment, or ""
}

var wantErrComment = regexp.MustCompile(`###\s*(.*)$`)

// splitChunks splits a file at lines "---", as SL's chunkedfile does.
func splitChunks(src string) []chunk {
	var chunks []chunk
	lines := strings.Split(src, "\n")
	start := 0
	flush := func(end int) {
		c := chunk{line: start + 1}
		c.src = strings.Repeat("\n", start) + strings.Join(lines[start:end], "\n")
		for _, l := range lines[start:end] {
			if m := wantErrComment.FindStringSubmatch(l); m != nil {
				c.wantErr = strings.Trim(strings.TrimSpace(m[1]), `"`)
			}
		}
		chunks = append(chunks, c)
	}
	for i, l := range lines {
		if l == "---" {
			flush(i)
			start = i + 1
		}
	}
	flush(len(lines))
	return chunks
}

func runChunk(t *testing.T, file string, c chunk, procs int, assert starlark.StringDict) {
	var stdout, stderr bytes.Buffer
	res := RunFile(file, []byte(c.src), Options{
		Procs:       procs,
		Seed:        1,
		Stdout:      &stdout,
		Stderr:      &stderr,
		Preempt:     true,
		MaxSteps:    50_000_000,
		Predeclared: reporting(assert, t),
	})
	if c.wantErr != "" {
		if res.ExitCode == 0 {
			t.Errorf("%s:%d: the chunk succeeded, want an error matching %q", file, c.line, c.wantErr)
			return
		}
		if ok, err := regexp.MatchString(c.wantErr, stderr.String()); err != nil || !ok {
			t.Errorf("%s:%d: stderr does not match %q (%v):\n%s", file, c.line, c.wantErr, err, stderr.String())
		}
		return
	}
	if res.ExitCode != 0 {
		t.Errorf("%s:%d: exit status %d, stderr:\n%s", file, c.line, res.ExitCode, stderr.String())
	}
}

// reporting returns the assert module of starlarktest whose functions
// first tell the thread that calls them to report to t
// (starlarktest.SetReporter): a run makes its goroutines' threads itself.
func reporting(assert starlark.StringDict, t *testing.T) starlark.StringDict {
	mod := assert["assert"].(*starlarkstruct.Module)
	members := make(starlark.StringDict, len(mod.Members))
	for name, v := range mod.Members {
		fn := v.(starlark.Callable)
		members[name] = starlark.NewBuiltin(name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			starlarktest.SetReporter(thread, t)
			return starlark.Call(thread, fn, args, kwargs)
		})
	}
	predeclared := make(starlark.StringDict, len(assert))
	for name, v := range assert {
		predeclared[name] = v
	}
	predeclared["assert"] = &starlarkstruct.Module{Name: mod.Name, Members: members}
	return predeclared
}
