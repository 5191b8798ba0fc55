// Command timeslice records how long real Go lets a goroutine that never
// blocks run before sysmon preempts it, with another such goroutine
// waiting: at GOMAXPROCS=1, two goroutines spin on an atomic "owner"
// word, and each, when it finds the word not its own, has just been given
// the P; the time since the previous hand-over is one time slice.
//
//	GOMAXPROCS=1 go run ./bench/faithfulness/timeslice -d 3s > FILE
//
// It prints a header line (# go=... gomaxprocs=... uptime=... date=...)
// and then each slice in ns, one per line, the first one (which starts
// with the program) left out. The figure the simulator is checked
// against: sysmon, backed off to 10ms sleeps because preemptions do not
// count as work in retake, preempts a spinner at every second tick, so
// the slices are 20ms, not 10ms (docs/faithfulness.md).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
)

var (
	owner atomic.Int32
	stop  atomic.Bool
)

// spin runs until stop, appending to slices each time it takes the P
// over from the other spinner. Only the goroutine that owns the P
// touches last and slices, and the hand-over is ordered by owner.
func spin(id int32, last *time.Time, slices *[]time.Duration) {
	for !stop.Load() {
		if owner.Load() != id {
			now := time.Now()
			if !last.IsZero() {
				*slices = append(*slices, now.Sub(*last))
			}
			*last = now
			owner.Store(id)
		}
	}
}

func main() {
	d := flag.Duration("d", 3*time.Second, "how long to record")
	flag.Parse()
	var last time.Time
	var slices []time.Duration
	done := make(chan bool, 2)
	for id := int32(1); id <= 2; id++ {
		go func() {
			spin(id, &last, &slices)
			done <- true
		}()
	}
	time.Sleep(*d)
	stop.Store(true)
	<-done
	<-done
	up, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("# go=%s gomaxprocs=%d loadavg=%q date=%s\n", runtime.Version(), runtime.GOMAXPROCS(0),
		strings.TrimSpace(string(up)), time.Now().UTC().Format(time.RFC3339))
	for _, s := range slices[1:] {
		fmt.Println(s.Nanoseconds())
	}
}
