//go:build !linux

// Where there is no /proc/self/statm (other systems, the playground's
// js/wasm build), the watchdog has no resident set to read and relies on
// the Go runtime's metrics alone (memory.go).

package lang

// An rssReader would read the process's resident set; here there is none.
type rssReader struct{}

// openRSS returns nil: there is nothing to read.
func openRSS() *rssReader { return nil }

// read reports that no resident set is known.
func (r *rssReader) read() (uint64, bool) { return 0, false }

func (r *rssReader) close() {}
