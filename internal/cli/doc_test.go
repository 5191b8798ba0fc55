package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocListsEveryFile: each package's doc.go lists its files, so that a
// new file gets its line there. It checks runtime, lang and this package;
// a file missing from the list fails with its name.
func TestDocListsEveryFile(t *testing.T) {
	for _, dir := range []string{"../../runtime", "../../lang", "."} {
		doc, err := os.ReadFile(filepath.Join(dir, "doc.go"))
		if err != nil {
			t.Fatal(err)
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			name := filepath.Base(f)
			if strings.HasSuffix(name, "_test.go") || name == "doc.go" {
				continue
			}
			if !strings.Contains(string(doc), name) {
				t.Errorf("%s/doc.go does not name %s: add its line to the list of files", filepath.Base(filepath.Clean(dir)), name)
			}
		}
	}
}
