package cli

import (
	"io"
	"runtime/debug"
	"testing"
)

// TestOptionsLeavesProcess checks that Settings.Options is a pure
// conversion: with --max-memory set it neither sets the process's soft
// memory limit nor installs closures that end the process. Host.Options,
// when the host owns the process, does both.
func TestOptionsLeavesProcess(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	s := NewSettings()
	s.MaxMemory = 1 << 40
	opts := s.Options(io.Discard, io.Discard)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("Settings.Options set the process's memory limit to %d, want %d unchanged", got, before)
	}
	if opts.OnOverrun != nil || opts.OnMemoryOverrun != nil {
		t.Error("Settings.Options installed a closure that ends the process")
	}
	opts = Host{}.Options(s, "x.star", io.Discard, io.Discard)
	if got := debug.SetMemoryLimit(-1); got != before || opts.OnOverrun != nil {
		t.Errorf("Host{}.Options touched the process: limit %d (want %d), OnOverrun set %v", got, before, opts.OnOverrun != nil)
	}
	opts = Host{OwnsProcess: true}.Options(s, "x.star", io.Discard, io.Discard)
	if got := debug.SetMemoryLimit(-1); got != int64(s.MaxMemory) || opts.OnOverrun == nil {
		t.Errorf("Host{OwnsProcess: true}.Options: limit %d (want %d), OnOverrun set %v (want true)", got, s.MaxMemory, opts.OnOverrun != nil)
	}
}
