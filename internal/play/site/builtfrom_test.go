package site

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBuiltFrom: a binary built in a checkout finds the checkout, unless
// the path was trimmed or the tree is gone.
func TestBuiltFrom(t *testing.T) {
	want, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if root, ok := BuiltFrom(); !ok || root != want {
		t.Errorf("BuiltFrom() = %q, %v; want %q, true (this test is built in the checkout)", root, ok, want)
	}
	if root, ok := builtFrom(Module + "/internal/play/site/site.go"); ok {
		t.Errorf("builtFrom of a -trimpath path = %q, true; want false", root)
	}
	gone := t.TempDir()
	if err := os.WriteFile(filepath.Join(gone, "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if root, ok := builtFrom(filepath.Join(gone, "internal", "play", "site", "site.go")); ok {
		t.Errorf("builtFrom of a tree that is not schedlab's = %q, true; want false", root)
	}
}
