package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVariantsDoc keeps docs/variants.md's measured tables honest (see
// checkDocCommands).
func TestVariantsDoc(t *testing.T) {
	checkDocCommands(t, "docs/variants.md", "compare", 3)
}

// TestLabDoc keeps docs/lab.md's example table honest (see
// checkDocCommands).
func TestLabDoc(t *testing.T) {
	checkDocCommands(t, "docs/lab.md", "lab", 7)
}

// checkDocCommands runs every `$ schedlab` command of the console blocks
// of the page (a path from the repository's root), each of which must be
// `schedlab sub`, from the repository's root, and wants the output shown
// and want such commands. With -update it writes the outputs into the
// page instead (after a change to the engine or the costs profile; the
// prose around the tables quotes some of the figures: read it again).
func checkDocCommands(t *testing.T, page, sub string, want int) {
	t.Helper()
	root := filepath.Join("..", "..")
	file := filepath.Join(root, page)
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var commands int
	updated := string(doc)
	for _, b := range fencedBlocks(string(doc)) {
		if b.lang != "console" {
			continue
		}
		for _, c := range splitConsole(b.text) {
			args := strings.Fields(c.command)
			if len(args) < 2 || args[0] != "schedlab" || args[1] != sub {
				t.Errorf("%s: unexpected command %q", page, c.command)
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
				t.Errorf("%s: $ %s\nexit status %d, output:\n%s\nwant:\n%s", page, c.command, code, got, c.output)
			}
			commands++
		}
	}
	if *update && updated != string(doc) {
		if err := os.WriteFile(file, []byte(updated), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if commands != want {
		t.Errorf("%s: %d `$ schedlab %s` commands, want %d", page, commands, sub, want)
	}
}
