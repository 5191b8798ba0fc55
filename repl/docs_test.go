package repl

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocs keeps docs/repl.md honest: each recorded session in it, the
// ```console blocks between "<!-- golden: NAME -->" and "<!-- end -->",
// must be exactly testdata/NAME.golden, without the lines that start with
// "$ " (the command) and without the "# repl:" line that gives the tests
// the session's flags.
func TestDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/repl.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := regexp.MustCompile(`(?s)<!-- golden: (\w+) -->\n(.*?)<!-- end -->`).FindAllStringSubmatch(string(doc), -1)
	if len(sections) == 0 {
		t.Fatal("docs/repl.md records no session")
	}
	blocks := regexp.MustCompile("(?s)```console\n(.*?)```\n")
	flags := regexp.MustCompile(`(?m)^\[0s\] >>> # repl:.*\n`)
	for _, sec := range sections {
		name := sec[1]
		var shown strings.Builder
		for _, b := range blocks.FindAllStringSubmatch(sec[2], -1) {
			for _, line := range strings.SplitAfter(b[1], "\n") {
				if !strings.HasPrefix(line, "$ ") {
					shown.WriteString(line)
				}
			}
		}
		golden, err := os.ReadFile("testdata/" + name + ".golden")
		if err != nil {
			t.Errorf("docs/repl.md records %s: %v", name, err)
			continue
		}
		if want := flags.ReplaceAllString(string(golden), ""); shown.String() != want {
			t.Errorf("docs/repl.md shows session %s differently from testdata/%s.golden:\n%s", name, name, diff(want, shown.String()))
		}
	}
}
