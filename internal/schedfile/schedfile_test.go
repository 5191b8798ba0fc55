package schedfile

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestRoundTrip: a file reads back as it was written.
func TestRoundTrip(t *testing.T) {
	src := []byte("print(1)\n")
	f := &File{Script: "x.star", SHA256: Hash(src), Settings: "procs=2 seed=1", Outcome: "deadlock: all goroutines are asleep\n", Choices: []int{0, 1, 0, 2}}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	g, err := Read("x.schedule", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	f.Outcome = "deadlock: all goroutines are asleep " // one line
	if !reflect.DeepEqual(f, g) {
		t.Errorf("read %+v, wrote %+v", g, f)
	}
	if err := g.Fits("x.schedule", src, "procs=2 seed=1"); err != nil {
		t.Errorf("Fits its own script: %v", err)
	}
	if err := g.Fits("x.schedule", []byte("print(2)\n"), "procs=2 seed=1"); err == nil || !strings.Contains(err.Error(), "a schedule of another script") {
		t.Errorf("Fits another script: %v", err)
	}
	if err := g.Fits("x.schedule", src, "procs=1 seed=1"); err == nil || !strings.Contains(err.Error(), "was found with the settings") {
		t.Errorf("Fits other settings: %v", err)
	}
}

// TestReadErrors: a damaged file is refused with its name, the line and
// what is wrong.
func TestReadErrors(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	for _, tc := range []struct{ data, err string }{
		{"", "f: empty: not a schedule file"},
		{"choices 0\n", `f:1: not a schedule file`},
		{header + "\nscript x.star sha256=12\n", "f:2: want script NAME sha256=HASH"},
		{header + "\nscript x.star sha256=" + hash + "\nsettings procs=1\nchoices 0 x\n", `f:4: choice "x": want an answer`},
		{header + "\nscript x.star sha256=" + hash + "\nsettings procs=1\nchoices 0 -1\n", `f:4: choice "-1"`},
		{header + "\nscript x.star sha256=" + hash + "\nsettings procs=1\nchoices 0\nchoices 1\n", "f:5: a second choices line"},
		{header + "\nscript x.star sha256=" + hash + "\nsettings procs=1\n", "f: no choices line: the file is damaged or cut short"},
		{header + "\nbogus\n", `f:2: unknown line "bogus"`},
	} {
		_, err := Read("f", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Read(%q): %v, want %q", tc.data, err, tc.err)
		}
	}
}
