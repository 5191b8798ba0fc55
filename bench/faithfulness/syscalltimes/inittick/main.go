//go:build ignore

// inittick: how many system calls ended on each P before main.main. It
// imports fmt and os, as every corpus program does, so their inits run;
// main.main then spins for 5ms without a system call while the runtime's
// own scheduler trace (GODEBUG=schedtrace=1,scheddetail=1) prints every
// P's syscalltick from sysmon, with raw writes that bump no tick. The last
// block printed is inside main.main: a P's syscalltick there counts the
// system calls that exitsyscall ended on it before (proc.go: exitsyscall,
// reentersyscall). inittick.sh runs it.
package main

import (
	"fmt"
	"os"
	"time"
)

var args = fmt.Sprint(len(os.Args))

func main() {
	t := time.Now()
	for time.Since(t) < 5*time.Millisecond {
	}
}
