//go:build ignore

// worker_pool: Go by Example's worker pool on two Ps. main spawns three
// workers and fills a buffered channel with five jobs before it blocks on
// the results. The M that the first spawn's wakep starts for P1 takes
// tens of microseconds to run; by then main has spawned all three workers
// and blocked, and P0 runs the last one spawned, worker 3, from runnext:
// it takes job 1. Decided by proc.go: newproc -> runqput(next=true),
// wakep -> startm (the wake-up cost).
package main

import (
	"fmt"
	"time"
)

var first = make(chan int, 1)

func worker(id int, jobs <-chan int, results chan<- int) {
	for j := range jobs {
		if j == 1 {
			first <- id
		}
		time.Sleep(time.Second)
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
	fmt.Println("job 1 went to worker", <-first)
}
