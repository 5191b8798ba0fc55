#!/usr/bin/env bash
# record.sh RUNS PROCS FILE: build arrive.go and run it RUNS times as its
# own process at GOMAXPROCS=PROCS; FILE gets a header (the command, the
# machine, Go, the load average before and after) and one line an
# outcome: its count, a tab, what the run printed.
#
#	bash bench/faithfulness/closewake/record.sh 2000 4 bench/faithfulness/closewake/go-p4-a.txt
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=$1 procs=$2 file=$3
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$here" && GOFLAGS= go build -o "$bin/arrive" arrive.go)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
counts=$(for ((i = 0; i < runs; i++)); do GOMAXPROCS=$procs "$bin/arrive"; done | sort | uniq -c | sort -k1,1nr -k2)
load1=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "# program: arrive.go  GOMAXPROCS=$procs  runs: $runs"
	echo "# command: bash bench/faithfulness/closewake/record.sh $runs $procs $file"
	echo "# $(go version); $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); started $start; load $load0 before, $load1 after"
	echo "$counts" | sed -E 's/^ *([0-9]+) /\1\t/'
} > "$file"
