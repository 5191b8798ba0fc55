package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocSnippets keeps the Starlark in the docs honest: every ```python
// block of README.md and docs/*.md runs as a script of its own, as
// `schedlab run` runs it (its `# schedlab:` directive included), and must
// exit 0; a block followed directly (blank lines only between) by an
// ```output block must print exactly that, stdout then stderr. A block
// whose fence says ```python fragment is a piece of a script and is not
// run. A snippet whose directive names no costs profile must print the
// same with --costs=zero: an output that depends on the costs says which
// it assumes. (docs/language.md, "Examples in these pages", says so to
// writers.)
func TestDocSnippets(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../../README.md"}, files...)
	dir := t.TempDir()
	var ran, checked int
	for _, file := range files {
		md, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(file, "../../")
		blocks := fencedBlocks(string(md))
		for i, b := range blocks {
			info := strings.Fields(b.lang)
			if len(info) > 0 && info[0] != "output" && strings.HasPrefix(info[0], "output") {
				t.Errorf("%s:%d: fence info %q, want output", name, b.line, b.lang)
			}
			if len(info) == 0 || info[0] != "python" {
				if len(info) > 0 && info[0] == "output" && (i == 0 || blocks[i-1].lang != "python" || strings.TrimSpace(b.before) != "") {
					t.Errorf("%s:%d: an output block that follows no python block", name, b.line)
				}
				continue
			}
			switch {
			case len(info) == 2 && info[1] == "fragment":
				continue
			case len(info) > 1:
				t.Errorf("%s:%d: fence info %q, want python or python fragment", name, b.line, b.lang)
				continue
			}
			script := filepath.Join(dir, "snippet.star")
			if err := os.WriteFile(script, []byte(b.text), 0o666); err != nil {
				t.Fatal(err)
			}
			run := func(flags ...string) (string, int) {
				var stdout, stderr bytes.Buffer
				code := doMain(append(append([]string{"run"}, flags...), script), &stdout, &stderr)
				return strings.ReplaceAll(stdout.String()+stderr.String(), dir+string(filepath.Separator), ""), code
			}
			got, code := run()
			ran++
			if code != 0 {
				t.Errorf("%s:%d: the snippet exits %d (a piece of a script is marked ```python fragment):\n%s", name, b.line, code, got)
				continue
			}
			if i+1 < len(blocks) && blocks[i+1].lang == "output" && strings.TrimSpace(blocks[i+1].before) == "" {
				if want := blocks[i+1].text; got != want {
					t.Errorf("%s:%d: the snippet prints:\n%s\nthe output block below it says:\n%s", name, b.line, got, want)
				}
				checked++
			}
			if !strings.Contains(b.text, "--costs") {
				if zero, _ := run("--costs=zero"); zero != got {
					t.Errorf("%s:%d: the snippet prints with the default costs:\n%s\nand with --costs=zero:\n%s\nsay which it assumes: # schedlab: --costs=...", name, b.line, got, zero)
				}
			}
		}
	}
	if ran == 0 || checked == 0 {
		t.Errorf("%d snippets ran, %d with an output block: the docs have none?", ran, checked)
	}
}
