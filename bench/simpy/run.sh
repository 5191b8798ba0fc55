#!/usr/bin/env bash
# bench/simpy/run.sh SIMPY_SRC [N]: one million requests (or N) of the
# 20-line server in one lab cell, against SimPy's M/M/1 queue of the same
# load, each pinned to one core, three times alternating; prints
# /usr/bin/time's CPU, wall and peak RSS for each (docs/performance.md).
# SIMPY_SRC is the directory that holds SimPy's package (simpy/).
set -euo pipefail
cd "$(dirname "$0")/../.."
simpy=${1:?usage: bench/simpy/run.sh SIMPY_SRC [N]}
n=${2:-1000000}
go build -o /tmp/schedlab-simpy-bench ./cmd/schedlab
fmt='%U user %S sys %e wall %M KB'
for i in 1 2 3; do
	echo "--- run $i: schedlab lab, 1 cell, procs=1, n=$n"
	/usr/bin/time -f "$fmt" taskset -c 1 /tmp/schedlab-simpy-bench lab examples/lab/server.star --param "n=$n" --jobs 1 2>&1
	echo "--- run $i: SimPy M/M/1, n=$n"
	/usr/bin/time -f "$fmt" taskset -c 1 env PYTHONPATH="$simpy" python3 bench/simpy/mmc.py -n "$n" 2>&1
done
