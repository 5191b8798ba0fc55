#!/usr/bin/env python3
"""Peer of schedlab's BenchmarkGosched (lang/bench_test.go): G asyncio tasks
sharing N `await asyncio.sleep(0)`, the asyncio spelling of a yield to the
event loop. One op is one sleep(0). Prints one line per run in Go's
benchmark format (wall and CPU time per op):

    BenchmarkPythonAsyncio/tasks=1000 	500000	1400.0 ns/op	1395.2 cpu-ns/op

Usage: python_asyncio.py [-tasks G] [-n N] [-count C]
"""

import argparse
import asyncio
import time


async def worker(n):
    for _ in range(n):
        await asyncio.sleep(0)


async def run(g, n):
    """Runs g tasks sharing n sleep(0)s; returns the wall and CPU seconds
    they took."""
    coros = [worker(n // g + (1 if i < n % g else 0)) for i in range(g)]
    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*coros)
    return time.perf_counter() - wall, time.process_time() - cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-tasks", type=int, default=1000, help="number of tasks (G)")
    ap.add_argument("-n", type=int, default=500_000, help="sleep(0)s per run (N)")
    ap.add_argument("-count", type=int, default=6, help="number of runs")
    a = ap.parse_args()
    asyncio.run(run(a.tasks, min(a.n, 50_000)))  # warm up
    for _ in range(a.count):
        wall, cpu = asyncio.run(run(a.tasks, a.n))
        print(f"BenchmarkPythonAsyncio/tasks={a.tasks} \t{a.n}\t{wall * 1e9 / a.n:.1f} ns/op\t{cpu * 1e9 / a.n:.1f} cpu-ns/op", flush=True)


if __name__ == "__main__":
    main()
