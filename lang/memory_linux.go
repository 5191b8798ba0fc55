// Reading the resident set on Linux, for the memory watchdog (memory.go).

package lang

import "os"

// An rssReader reads the process's resident set size from
// /proc/self/statm without allocating, so that it works while the Go
// heap is locked by a huge allocation.
type rssReader struct {
	f    *os.File
	buf  [128]byte
	page uint64
}

// openRSS returns a reader, or nil where /proc/self/statm does not exist.
func openRSS() *rssReader {
	f, err := os.Open("/proc/self/statm")
	if err != nil {
		return nil
	}
	return &rssReader{f: f, page: uint64(os.Getpagesize())}
}

// read returns the resident set in bytes: the second field of statm, in
// pages.
func (r *rssReader) read() (uint64, bool) {
	if r == nil {
		return 0, false
	}
	n, err := r.f.ReadAt(r.buf[:], 0)
	if n == 0 && err != nil {
		return 0, false
	}
	// Skip the first field (the total size), then read the second.
	b := r.buf[:n]
	i := 0
	for i < len(b) && b[i] != ' ' {
		i++
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	var pages uint64
	start := i
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		pages = pages*10 + uint64(b[i]-'0')
	}
	if i == start {
		return 0, false
	}
	return pages * r.page, true
}

func (r *rssReader) close() { r.f.Close() }
