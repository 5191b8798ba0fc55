#!/usr/bin/env bash
# run.sh: record real Go for the GC pacing twins (docs/faithfulness.md,
# "GC pacing"). Exactly the commands the recordings in this directory
# came from:
#
#	bash bench/gcpacing/recordings/run.sh batch1
#	bash bench/gcpacing/recordings/run.sh batch2    # some minutes later
#
# Each program of bench/gcpacing/alloc's presets (below; each has a
# Starlark twin bench/gcpacing/NAME.star) runs RUNS times at every GOGC and
# GOMAXPROCS, under GODEBUG=gctrace=1, as its own process. NAME.txt.gz
# gets, in order: a header (the machine, the Go version), `uptime` before
# the batch and before every cell, and for every run a line
# `### program=... gogc=... gomaxprocs=... run=... args=...` followed by
# everything the run wrote to stderr: its gctrace lines and its summary.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: run.sh BATCHNAME}
runs=${RUNS:-5}
out="$here/$name.txt"

# The programs: the same presets as bench/gcpacing's twins.
declare -A args=(
	[small]="-live 8MiB -block 64KiB -obj 16KiB -total 2GiB -work 12000"
	[large]="-live 32MiB -block 64KiB -obj 1KiB -total 2GiB -work 700"
	[pointers]="-live 32MiB -block 64KiB -ptrs -obj 16KiB -total 2GiB -work 12000"
)

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$here/../../.." && go build -o "$bin/alloc" ./bench/gcpacing/alloc)

{
	echo "# command: bash bench/gcpacing/recordings/run.sh $name  (RUNS=$runs)"
	echo "# go: $(go version | cut -d' ' -f3-)"
	echo "# machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -sr)"
	echo "# batch start: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# uptime: $(uptime)"
	for prog in small large pointers; do
		for gogc in 50 100 200; do
			for procs in 1 2; do
				echo "# uptime: $(uptime)"
				for ((run = 1; run <= runs; run++)); do
					echo "### program=$prog gogc=$gogc gomaxprocs=$procs run=$run args=${args[$prog]}"
					# shellcheck disable=SC2086
					GODEBUG=gctrace=1 GOGC=$gogc GOMAXPROCS=$procs "$bin/alloc" ${args[$prog]} 2>&1
				done
			done
		done
	done
	echo "# batch end: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# uptime: $(uptime)"
} >"$out"
gzip -9f "$out"
echo "$out.gz"
