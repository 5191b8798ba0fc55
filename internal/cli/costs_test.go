package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// --costs takes default, zero or a profile file; a directive's file is
// next to its script; a bad file is a flag error naming the file and what
// is wrong; the header names the profile as given.
func TestCostsFlag(t *testing.T) {
	dir := t.TempDir()
	prof := runtime.DefaultCosts()
	prof.Name = "mine"
	if err := os.WriteFile(filepath.Join(dir, "mine.json"), prof.JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"format": "schedlab-costs/1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "x.star")
	for _, tc := range []struct {
		src    string
		args   []string
		header string // the costs setting of the header
		name   string // the profile's name
		err    string
	}{
		{"print(1)\n", nil, "default", runtime.DefaultCosts().Name, ""},
		{"print(1)\n", []string{"--costs=zero"}, "zero", "zero", ""},
		{"# schedlab: --costs=zero\nprint(1)\n", nil, "zero", "zero", ""},
		{"# schedlab: --costs=zero\nprint(1)\n", []string{"--costs", "default"}, "default", runtime.DefaultCosts().Name, ""},
		{"# schedlab: --costs=mine.json\nprint(1)\n", nil, "mine.json", "mine", ""},
		{"print(1)\n", []string{"--costs=" + filepath.Join(dir, "mine.json")}, filepath.Join(dir, "mine.json"), "mine", ""},
		{"# schedlab: --costs=bad.json\nprint(1)\n", nil, "", "", `x.star:1: schedlab directive: invalid value "bad.json" for flag -costs: bad.json: no "name"`},
		{"# schedlab: --costs=none.json\nprint(1)\n", nil, "", "", `invalid value "none.json" for flag -costs: want default, zero or a profile file: open`},
	} {
		s, err := settingsFor(script, []byte(tc.src), tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q %q: error %v, want %q", tc.src, tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q %q: %v", tc.src, tc.args, err)
			continue
		}
		var got string
		for _, kv := range s.Header().Settings {
			if kv.Key == "costs" {
				got = kv.Value
			}
		}
		if got != tc.header || s.CostsProfile().Name != tc.name {
			t.Errorf("%q %q: header costs=%s, profile %q; want %s, %q", tc.src, tc.args, got, s.CostsProfile().Name, tc.header, tc.name)
		}
	}
}
