package samples

import _ "unsafe" // go:linkname

//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// P returns the id of the P the calling goroutine runs on, as the timing
// tools note it beside a clock reading (runtime.procPin, then unpinned at
// once: a few nanoseconds, no system call).
func P() int64 {
	p := procPin()
	procUnpin()
	return int64(p)
}
