// Command probe is the program whose sysmon bench/faithfulness/sysmontimes
// records: at main.main's first statement it makes a getpid system call,
// the mark by which the recording finds main.main; then each of GOMAXPROCS
// goroutines burns CPU for -burn, so that every P is busy and sysmon keeps
// its shortest delay; then it exits, printing nothing. It imports nothing
// but the standard library's smallest packages, so that its start-up is a
// small program's, as the corpus's are.
package main

import (
	"flag"
	"runtime"
	"sync"
	"syscall"
	"time"
)

func main() {
	syscall.Getpid()
	burn := flag.Duration("burn", 4*time.Millisecond, "how long each P burns CPU")
	flag.Parse()
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spin(*burn)
		}()
	}
	spin(*burn)
	wg.Wait()
}

// spin burns CPU for d, reading the clock as it goes.
func spin(d time.Duration) {
	t0 := time.Now()
	for time.Since(t0) < d {
	}
}
