#!/usr/bin/env python3
"""Peer of schedlab's BenchmarkGosched (lang/bench_test.go): a round-robin
scheduler of Python generators.

G tasks share N switches; each task is `for _ in range(n): yield`, the
scheduler a FIFO run queue (collections.deque) from which it takes the next
task, resumes it until its next yield and puts it back at the tail: what
gosched() does through the global run queue. One op is one switch (resume
and yield). Prints one line per run in Go's benchmark format, so that
benchstat reads it (wall time per op, and CPU time per op, which on a
shared machine does not count the time spent waiting for a CPU):

    BenchmarkPythonGen/tasks=1000 	2000000	105.3 ns/op	104.9 cpu-ns/op

Usage: python_gen.py [-tasks G] [-n N] [-count C]
"""

import argparse
import collections
import time


def worker(n):
    for _ in range(n):
        yield


def run(g, n):
    """Runs g tasks sharing n switches; returns the wall and CPU seconds
    it took."""
    tasks = collections.deque(worker(n // g + (1 if i < n % g else 0)) for i in range(g))
    popleft, append = tasks.popleft, tasks.append
    wall, cpu = time.perf_counter(), time.process_time()
    while tasks:
        t = popleft()
        try:
            next(t)
        except StopIteration:
            continue
        append(t)
    return time.perf_counter() - wall, time.process_time() - cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-tasks", type=int, default=1000, help="number of tasks (G)")
    ap.add_argument("-n", type=int, default=2_000_000, help="switches per run (N)")
    ap.add_argument("-count", type=int, default=6, help="number of runs")
    a = ap.parse_args()
    run(a.tasks, min(a.n, 100_000))  # warm up
    for _ in range(a.count):
        wall, cpu = run(a.tasks, a.n)
        print(f"BenchmarkPythonGen/tasks={a.tasks} \t{a.n}\t{wall * 1e9 / a.n:.1f} ns/op\t{cpu * 1e9 / a.n:.1f} cpu-ns/op", flush=True)


if __name__ == "__main__":
    main()
