//go:build ignore

// workerpool: Go by Example's worker pool. Three workers take five jobs from
// a buffered channel. Outcome: which worker takes job 1.
package main

import (
	"fmt"
	"sync/atomic"
)

var first atomic.Int32

func worker(id int, jobs <-chan int, results chan<- int) {
	for j := range jobs {
		if j == 1 {
			first.Store(int32(id))
		}
		results <- j * 2
	}
}

func main() {
	const numJobs = 5
	jobs := make(chan int, numJobs)
	results := make(chan int, numJobs)
	for w := 1; w <= 3; w++ {
		go worker(w, jobs, results)
	}
	for j := 1; j <= numJobs; j++ {
		jobs <- j
	}
	close(jobs)
	for a := 1; a <= numJobs; a++ {
		<-results
	}
	fmt.Printf("job1=w%d\n", first.Load())
}
