package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADME keeps the README honest: it saves the README's ```python
// script as first.star in a temporary directory and runs every `$ schedlab`
// command of its ```console blocks, in order, wanting the output shown.
// A plain block that begins with `$ schedlab` and elides nothing (no line
// "...") is a session on the repository's examples: its commands run from
// the repository's root, whatever their exit status (explore's is 1 when
// it finds a failure), and must print what it shows.
func TestREADME(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var commands int
	for _, b := range fencedBlocks(string(readme)) {
		switch b.lang {
		case "python":
			if err := os.WriteFile(filepath.Join(dir, "first.star"), []byte(b.text), 0o666); err != nil {
				t.Fatal(err)
			}
		case "console":
			for _, c := range splitConsole(b.text) {
				args := strings.Fields(c.command)
				if len(args) == 0 || args[0] != "schedlab" {
					t.Errorf("README: unexpected command %q", c.command)
					continue
				}
				for i, a := range args {
					if strings.HasSuffix(a, ".star") {
						args[i] = filepath.Join(dir, a)
					}
				}
				var stdout, stderr bytes.Buffer
				code := doMain(args[1:], &stdout, &stderr)
				got := strings.ReplaceAll(stdout.String()+stderr.String(), dir+string(filepath.Separator), "")
				if code != 0 || got != c.output {
					t.Errorf("README: $ %s\nexit status %d, output:\n%s\nwant:\n%s", c.command, code, got, c.output)
				}
				commands++
			}
		}
	}
	if commands == 0 {
		t.Error("README: no `$ schedlab` commands found")
	}
	sessions := 0
	for _, b := range fencedBlocks(string(readme)) {
		if b.lang != "" || !strings.HasPrefix(b.text, "$ schedlab") || strings.Contains(b.text, "\n...\n") {
			continue
		}
		for _, c := range splitConsole(b.text) {
			args := strings.Fields(c.command)
			for i, a := range args {
				if strings.HasPrefix(a, "examples/") {
					args[i] = "../../" + a
				}
			}
			var stdout, stderr bytes.Buffer
			doMain(args[1:], &stdout, &stderr)
			if got := strings.ReplaceAll(stdout.String()+stderr.String(), "../../examples/", "examples/"); got != c.output {
				t.Errorf("README line %d: $ %s\noutput:\n%s\nwant:\n%s", b.line, c.command, got, c.output)
			}
			sessions++
		}
	}
	if sessions == 0 {
		t.Error("README: no session on the examples found")
	}
}

// A fencedBlock is a fenced code block of a markdown text.
type fencedBlock struct {
	lang, text string
	line       int    // the line of its opening fence, from 1
	before     string // the text between the block before it (or the start) and its opening fence
}

// fencedBlocks returns the fenced code blocks of a markdown text.
func fencedBlocks(md string) []fencedBlock {
	var blocks []fencedBlock
	var cur *fencedBlock
	var before string
	for i, line := range strings.SplitAfter(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &fencedBlock{lang: strings.TrimPrefix(trimmed, "```"), line: i + 1, before: before}
		case cur != nil && trimmed == "```":
			blocks = append(blocks, *cur)
			cur, before = nil, ""
		case cur != nil:
			cur.text += line
		default:
			before += line
		}
	}
	return blocks
}

type consoleCommand struct {
	command, output string
}

// splitConsole splits a console block into commands (lines starting with
// "$ ") and the output that follows each.
func splitConsole(text string) []consoleCommand {
	var cs []consoleCommand
	for _, line := range strings.SplitAfter(text, "\n") {
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			cs = append(cs, consoleCommand{command: strings.TrimSpace(cmd)})
		} else if len(cs) > 0 {
			cs[len(cs)-1].output += line
		}
	}
	return cs
}
