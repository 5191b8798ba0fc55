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
// root and wants the output shown. With -update it writes the outputs into
// the page instead (after a change to the engine or the costs profile;
// the prose around the tables quotes some of the figures: read it again).
func TestVariantsDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/variants.md")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "..")
	var commands int
	updated := string(doc)
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
			if *update && code == 0 {
				updated = strings.Replace(updated, "$ "+c.command+"\n"+c.output, "$ "+c.command+"\n"+got, 1)
				commands++
				continue
			}
			if code != 0 || got != c.output {
				t.Errorf("docs/variants.md: $ %s\nexit status %d, output:\n%s\nwant:\n%s", c.command, code, got, c.output)
			}
			commands++
		}
	}
	if *update && updated != string(doc) {
		if err := os.WriteFile("../../docs/variants.md", []byte(updated), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if commands != 3 {
		t.Errorf("docs/variants.md: %d `$ schedlab compare` commands, want 3", commands)
	}
}
