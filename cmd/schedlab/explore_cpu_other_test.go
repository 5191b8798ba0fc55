//go:build !unix

package main

import "time"

// processCPU returns 0: the CPU time of the process is not measured here.
func processCPU() time.Duration { return 0 }
