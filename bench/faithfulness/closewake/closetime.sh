#!/usr/bin/env bash
# closetime.sh RUNS PROCS FILE: build closetime.go and run it RUNS times
# as its own process at GOMAXPROCS=PROCS; FILE gets a header (the
# command, Go, the machine, the load before and after) and every run's
# line, then the quantiles (p0, p10, ..., p100, in ns) of "first", the
# time from close's return to the first waiter running, over all runs
# and by wake order.
#
#	bash bench/faithfulness/closewake/closetime.sh 2000 1 bench/faithfulness/closewake/closetime-p1-a.txt
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=$1 procs=$2 file=$3
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$here" && GOFLAGS= go build -o "$bin/closetime" closetime.go)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
lines=$(for ((i = 0; i < runs; i++)); do GOMAXPROCS=$procs "$bin/closetime"; done)
load1=$(cut -d' ' -f1-3 /proc/loadavg)
quantiles() { sort -n | awk '{a[NR] = $1} END {for (q = 0; q <= 100; q += 10) printf "%s ", a[int(q / 100 * (NR - 1)) + 1]; printf "(n=%d)\n", NR}'; }
{
	echo "# program: closetime.go  GOMAXPROCS=$procs  runs: $runs"
	echo "# command: bash bench/faithfulness/closewake/closetime.sh $runs $procs $file"
	echo "# $(go version); $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); started $start; load $load0 before, $load1 after"
	echo "# first, all runs: $(echo "$lines" | awk '{print $12}' | quantiles)"
	echo "$lines" | awk '{print $6, $7, $8}' | sort | uniq -c | sort -rn | while read -r n a b c; do
		echo "# first, wake $a $b $c: $(echo "$lines" | awk -v w="$a $b $c" '$6" "$7" "$8 == w {print $12}' | quantiles)"
	done
	echo "# close, all runs: $(echo "$lines" | awk '{print $10}' | quantiles)"
	echo "$lines"
} > "$file"
