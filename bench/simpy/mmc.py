"""The M/M/c queue of examples/lab/server.star, in SimPy, for speed.

schedlab's latency lab answers "how fast is one cell?" against a
discrete-event simulator that knows queues but not Go's scheduler. This
is the model SimPy users write for the same question: Poisson arrivals at
RATE a second, c servers (GOMAXPROCS), exponential service with a mean of
1 ms, and each request's time in system recorded. It prints the request
count, the percentiles and the simulated throughput, so that the two
runs can be read side by side (docs/performance.md, "One million requests").

    PYTHONPATH=path/to/simpy/src python3 bench/simpy/mmc.py -n 1000000

SimPy is not vendored here: give its source on PYTHONPATH (bench/simpy/
README.md says where the measured copy came from).
"""

import argparse
import random
import sys
import time

import simpy


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=100000, help="requests")
    ap.add_argument("-c", type=int, default=1, help="servers (GOMAXPROCS)")
    ap.add_argument("--rate", type=float, default=800.0, help="arrivals a second")
    ap.add_argument("--service", type=float, default=0.001, help="mean service time, seconds")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    env = simpy.Environment()
    servers = simpy.Resource(env, capacity=args.c)
    sojourn = []

    def request(env):
        t0 = env.now
        with servers.request() as req:
            yield req
            yield env.timeout(rng.expovariate(1.0 / args.service))
        sojourn.append(env.now - t0)

    def arrivals(env):
        for _ in range(args.n):
            yield env.timeout(rng.expovariate(args.rate))
            env.process(request(env))

    env.process(arrivals(env))
    start = time.process_time()
    env.run()
    cpu = time.process_time() - start

    sojourn.sort()

    def pct(p):
        return sojourn[min(len(sojourn) - 1, int(p * len(sojourn)))] * 1e3

    print("%d requests in %.3fs simulated, %.0f req/s: mean %.3fms p50 %.3fms "
          "p90 %.3fms p99 %.3fms max %.3fms" % (
              len(sojourn), env.now, len(sojourn) / env.now,
              sum(sojourn) / len(sojourn) * 1e3, pct(0.50), pct(0.90),
              pct(0.99), sojourn[-1] * 1e3), flush=True)
    print("simulation CPU %.2fs, %.2fµs a request" % (cpu, cpu / len(sojourn) * 1e6),
          file=sys.stderr)


if __name__ == "__main__":
    main()
