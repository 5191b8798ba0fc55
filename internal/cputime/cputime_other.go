//go:build !unix

package cputime

import "time"

// Process returns 0: the process's CPU time is not measured where there
// is no getrusage (a cpu-ns/op metric then reads 0).
func Process() time.Duration { return 0 }
