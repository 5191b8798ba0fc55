//go:build !linux

package calibrate

// supported says whether the probes can run here: they need a thread's ID
// and the list of the process's threads, which only Linux gives so far.
const supported = false

func gettid() int64                { return 0 }
func threads() map[int64]bool      { return nil }
func doSyscall()                   {}
func rawSyscall()                  {}
func usleep3()                     {}
func usleep20()                    {}
func rawWrite(uintptr, []byte) int { return 0 }
func machine(ncpu int) string      { return "unknown" }
func loadAverage() string          { return "unknown" }
