package golden

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, test := range []struct {
		stdout, stderr string
		code           int
		want           string
	}{
		{"a\n", "", 0, "a\n"},
		{"", "", 0, ""},
		{"a\n", "oops\n", 2, "a\n-- stderr --\noops\n-- exit 2 --\n"},
		{"a", "oops", 1, "a\n-- stderr --\noops\n-- exit 1 --\n"},
		{"", "oops\n", 0, "-- stderr --\noops\n"},
		{"a\n", "", 3, "a\n-- exit 3 --\n"},
		{"a", "", 0, "a"},
	} {
		if got := string(Format([]byte(test.stdout), []byte(test.stderr), test.code)); got != test.want {
			t.Errorf("Format(%q, %q, %d) = %q, want %q", test.stdout, test.stderr, test.code, got, test.want)
		}
	}
}

func TestCases(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"b.star":            "",
		"b.golden":          "",
		"a.star":            "",
		"notes.txt":         "",
		"sub/c.star":        "",
		"sub/c.golden":      "",
		"sub/d.star":        "",
		".hidden/e.star":    "",
		".hidden/e.golden":  "",
		"gold/a.golden":     "",
		"gold/sub/d.golden": "",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(cases []Case) []string {
		var s []string
		for _, c := range cases {
			r1, _ := filepath.Rel(dir, c.Script)
			r2, _ := filepath.Rel(dir, c.Golden)
			s = append(s, filepath.ToSlash(r1)+" "+filepath.ToSlash(r2))
		}
		return s
	}
	j := func(name string) string { return filepath.Join(dir, name) }
	for _, test := range []struct {
		paths []string
		gdir  string
		all   bool
		want  []string
	}{
		{[]string{dir}, "", false, []string{"b.star b.golden", "sub/c.star sub/c.golden"}},
		{[]string{dir}, "", true, []string{"a.star a.golden", "b.star b.golden", "sub/c.star sub/c.golden", "sub/d.star sub/d.golden"}},
		{[]string{j("a.star"), j("sub")}, "", false, []string{"a.star a.golden", "sub/c.star sub/c.golden"}},
		{[]string{dir}, j("gold"), false, []string{"a.star gold/a.golden", "sub/d.star gold/sub/d.golden"}},
		{[]string{j("sub")}, j("gold"), true, []string{"sub/c.star gold/c.golden", "sub/d.star gold/d.golden"}},
		{[]string{j("sub/d.star")}, j("gold"), false, []string{"sub/d.star gold/d.golden"}},
		{[]string{j(".hidden")}, "", false, []string{".hidden/e.star .hidden/e.golden"}},
	} {
		cases, err := Cases(test.paths, test.gdir, test.all)
		if err != nil {
			t.Errorf("Cases(%q, %q, %v): %v", test.paths, test.gdir, test.all, err)
			continue
		}
		if got := rel(cases); !reflect.DeepEqual(got, test.want) {
			t.Errorf("Cases(%q, %q, %v) = %q, want %q", test.paths, test.gdir, test.all, got, test.want)
		}
	}
	for _, bad := range []string{j("notes.txt"), j("missing.star")} {
		if _, err := Cases([]string{bad}, "", false); err == nil {
			t.Errorf("Cases(%q) succeeded, want an error", bad)
		}
	}
}

func TestDiffColor(t *testing.T) {
	d := Diff("want", []byte("a\nb\nc\n"), "got", []byte("a\nB\nc\n"))
	want := "--- want\n+++ got\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
	if string(d) != want {
		t.Errorf("Diff = %q, want %q", d, want)
	}
	if d := Diff("x", []byte("same\n"), "y", []byte("same\n")); d != nil {
		t.Errorf("Diff of equal texts = %q, want nil", d)
	}

	var plain, colored strings.Builder
	newPainter(false).diff(&plain, d)
	newPainter(true).diff(&colored, d)
	if plain.String() != want {
		t.Errorf("plain diff = %q, want %q", plain.String(), want)
	}
	for _, line := range []string{"\x1b[31m-b\x1b[0m\n", "\x1b[32m+B\x1b[0m\n", "\x1b[36m@@ -1,3 +1,3 @@\x1b[0m\n", "\n a\n"} {
		if !strings.Contains(colored.String(), line) {
			t.Errorf("coloured diff %q lacks %q", colored.String(), line)
		}
	}
}
