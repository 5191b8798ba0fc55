package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docFileName is a Go file's name as a doc.go list writes it.
var docFileName = regexp.MustCompile(`\b[a-z0-9_]+\.go\b`)

// docFileList returns the file names that the list under "The files:" in
// a doc.go names, in order; the list ends at the first blank comment line
// after its items.
func docFileList(doc string) []string {
	_, list, ok := strings.Cut(doc, "// The files:\n")
	if !ok {
		return nil
	}
	list = strings.TrimPrefix(list, "//\n")
	if end := strings.Index(list, "\n//\n"); end >= 0 {
		list = list[:end]
	}
	return docFileName.FindAllString(list, -1)
}

// sourceFiles returns the names of the non-test Go files in dir, but
// doc.go.
func sourceFiles(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		name := filepath.Base(p)
		if !strings.HasSuffix(name, "_test.go") && name != "doc.go" {
			names = append(names, name)
		}
	}
	return names
}

// checkDocFiles checks that the list of files in dir's doc.go names every
// file of sourceFiles, and no file that is not one of them.
func checkDocFiles(t *testing.T, dir string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(dir, "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Base(filepath.Clean(dir))
	listed, files := docFileList(string(doc)), sourceFiles(t, dir)
	if len(listed) == 0 {
		t.Errorf("%s/doc.go has no list of files under \"The files:\"", pkg)
	}
	for _, name := range files {
		if !slices.Contains(listed, name) {
			t.Errorf("%s/doc.go does not name %s: add its line to the list of files", pkg, name)
		}
	}
	for _, name := range listed {
		if !slices.Contains(files, name) {
			t.Errorf("%s/doc.go names %s, which is not a file of the package: remove or rename its line", pkg, name)
		}
	}
}

// TestDocListsEveryFile: each package's doc.go lists its files, so that a
// new file gets its line there and a removed one loses it. It checks
// runtime, lang and this package; a file missing from the list,
// or listed but not there, fails with its name.
func TestDocListsEveryFile(t *testing.T) {
	for _, dir := range []string{"../../runtime", "../../lang", "."} {
		checkDocFiles(t, dir)
	}
}

// TestDocFileListBreaks shows that the check can fail: a list that
// leaves out a file, and one that names a file that is not there.
func TestDocFileListBreaks(t *testing.T) {
	doc := "// Package p.\n//\n// The files:\n//\n//   - a.go: one.\n//   - gone.go: two.\n//\n// After the list, c.go is not part of it.\npackage p\n"
	if got, want := docFileList(doc), []string{"a.go", "gone.go"}; !slices.Equal(got, want) {
		t.Fatalf("docFileList = %q, want %q", got, want)
	}
	listed, files := docFileList(doc), []string{"a.go", "b.go"}
	var missing, extra []string
	for _, f := range files {
		if !slices.Contains(listed, f) {
			missing = append(missing, f)
		}
	}
	for _, f := range listed {
		if !slices.Contains(files, f) {
			extra = append(extra, f)
		}
	}
	if !slices.Equal(missing, []string{"b.go"}) || !slices.Equal(extra, []string{"gone.go"}) {
		t.Errorf("missing %q, extra %q; want [b.go] and [gone.go]", missing, extra)
	}
}
