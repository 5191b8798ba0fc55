package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsRule: an output may not be an input or another output, by
// any name that leads to the same file; the file appears only at Commit,
// whole, and Abort leaves the old one.
func TestOutputsRule(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, name := range []string{"x.star", "lib.star", "old.html"} {
		if err := os.WriteFile(p(name), []byte(name), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("x.star", p("link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(p("x.star"), p("hard")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p("d"), 0o777); err != nil {
		t.Fatal(err)
	}
	var o Outputs
	o.Input(p("x.star"), "the script")
	o.Input(p("lib.star"), "a module the script loads")
	for _, tc := range []struct{ name, want string }{
		{p("x.star"), "is the script"},
		{p("d/../x.star"), "is the script"},
		{p("link"), "is the script"},
		{p("hard"), "is the script"},
		{p("lib.star"), "is a module the script loads"},
		{p("d"), "is a directory"},
	} {
		if err := o.Check("-timeline", tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%s) = %v, want %q", tc.name, err, tc.want)
		}
	}

	w, err := o.Open("-timeline", p("old.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Check("-chrome-trace", p("old.html")); err == nil || !strings.Contains(err.Error(), "is also the file of -timeline") {
		t.Errorf("second output on one file: %v", err)
	}
	if _, err := w.Write([]byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p("old.html")); string(b) != "old.html" {
		t.Errorf("before Commit the file holds %q, want the old contents", b)
	}
	w2, err := o.Open("-chrome-trace", p("new.json"))
	if err != nil {
		t.Fatal(err)
	}
	w2.Write([]byte("half"))
	w2.Abort()
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p("old.html")); string(b) != "new" {
		t.Errorf("after Commit the file holds %q, want new", b)
	}
	if _, err := os.Stat(p("new.json")); !os.IsNotExist(err) {
		t.Errorf("an aborted output exists: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}

	// A reservation counts as an output before it is opened, and the
	// output of the same flag takes it.
	var r Outputs
	if err := r.Reserve("-update (a)", p("g.golden")); err != nil {
		t.Fatal(err)
	}
	if err := r.Reserve("-update (b)", p("g.golden")); err == nil {
		t.Error("two reservations of one file")
	}
	if err := r.WriteFile("-update (a)", p("g.golden"), []byte("ok")); err != nil {
		t.Errorf("the reserved output: %v", err)
	}
	if b, _ := os.ReadFile(p("g.golden")); string(b) != "ok" {
		t.Errorf("g.golden holds %q", b)
	}
}
