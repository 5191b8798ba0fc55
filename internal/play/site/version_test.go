package site

import (
	"runtime/debug"
	"testing"
)

// TestVersionOf: only a build of schedlab's module at a version names
// source that the module cache can hold.
func TestVersionOf(t *testing.T) {
	for _, tc := range []struct {
		main debug.Module
		want string
		ok   bool
	}{
		{debug.Module{Path: Module, Version: "v0.3.0"}, "v0.3.0", true},
		{debug.Module{Path: Module, Version: "v0.0.0-20261205063056-c0726ca0c1e2"}, "v0.0.0-20261205063056-c0726ca0c1e2", true},
		{debug.Module{Path: Module, Version: "(devel)"}, "", false},
		{debug.Module{Path: Module, Version: "v0.0.0-20261205063056-c0726ca0c1e2+dirty"}, "", false},
		{debug.Module{Path: Module, Version: ""}, "", false},
		{debug.Module{Path: "example.com/other", Version: "v1.0.0"}, "", false},
	} {
		if v, ok := versionOf(tc.main); v != tc.want || ok != tc.ok {
			t.Errorf("versionOf(%+v) = %q, %v; want %q, %v", tc.main, v, ok, tc.want, tc.ok)
		}
	}
}
