package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVariantsDoc keeps docs/variants.md's measured tables honest: it runs
// every `$ schedlab` command of its console blocks from the repository's
// root and wants the output shown.
func TestVariantsDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/variants.md")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "..")
	var commands int
	for _, b := range fencedBlocks(string(doc)) {
		if b.lang != "console" {
			continue
		}
		for _, c := range splitConsole(b.text) {
			args := strings.Fields(c.command)
			if len(args) < 2 || args[0] != "schedlab" || args[1] != "compare" {
				t.Errorf("docs/variants.md: unexpected command %q", c.command)
				continue
			}
			for i, a := range args {
				if strings.HasSuffix(a, ".star") {
					args[i] = filepath.Join(root, a)
				}
			}
			var stdout, stderr bytes.Buffer
			code := doMain(args[1:], &stdout, &stderr)
			got := strings.ReplaceAll(stdout.String()+stderr.String(), root+string(filepath.Separator), "")
			if code != 0 || got != c.output {
				t.Errorf("docs/variants.md: $ %s\nexit status %d, output:\n%s\nwant:\n%s", c.command, code, got, c.output)
			}
			commands++
		}
	}
	if commands != 3 {
		t.Errorf("docs/variants.md: %d `$ schedlab compare` commands, want 3", commands)
	}
}
