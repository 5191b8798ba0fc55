// Reading the resident set on Linux, for the memory watchdog (memory.go).

package lang

import "os"

// An rssReader reads the process's anonymous resident set size from
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

// read returns the anonymous resident set in bytes: the second field of
// statm (resident) less the third (shared: the resident pages backed by
// a file, the executable's own code and data among them), in pages.
// What a run allocates is anonymous; the executable's pages are not the
// run's, and a larger binary must not bring the overrun closer.
func (r *rssReader) read() (uint64, bool) {
	if r == nil {
		return 0, false
	}
	n, err := r.f.ReadAt(r.buf[:], 0)
	if n == 0 && err != nil {
		return 0, false
	}
	// Skip the first field (the total size), then read the second and
	// the third.
	b := r.buf[:n]
	i := 0
	for i < len(b) && b[i] != ' ' {
		i++
	}
	var fields [2]uint64
	for k := range fields {
		for i < len(b) && b[i] == ' ' {
			i++
		}
		start := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			fields[k] = fields[k]*10 + uint64(b[i]-'0')
		}
		if i == start {
			return 0, false
		}
	}
	resident, shared := fields[0], fields[1]
	return (resident - min(shared, resident)) * r.page, true
}

func (r *rssReader) close() { r.f.Close() }
