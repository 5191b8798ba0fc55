#!/usr/bin/env bash
# record.sh: run every Go program of corpus/ many times under the real
# runtime and write the distribution of what it printed.
#
#	bash bench/faithfulness/record.sh [-n RUNS] [-o DIR] [-p PROCS] [program...]
#
# For each program and each GOMAXPROCS value that corpus/MANIFEST gives it,
# the program is built once with the go command and run RUNS times (3000 by
# default) as its own process, as a user would run it, with GOMAXPROCS set
# and nothing else changed. DIR/NAME-pN.txt gets a header (the command, the
# machine, the Go version, the load average before and after) and one line
# per outcome: the count, a tab, the line the program printed (the lines
# of a program that prints several, joined with spaces). With -p,
# only the GOMAXPROCS values of the comma-separated PROCS that the manifest
# gives are recorded (a new value for a program already recorded). Run it
# on a quiet machine: the load average is part of the record.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=3000
out="$here/recordings/run1"
only=""
while getopts 'n:o:p:' opt; do
	case $opt in
	n) runs=$OPTARG ;;
	o) out=$OPTARG ;;
	p) only=$OPTARG ;;
	*) echo "usage: record.sh [-n RUNS] [-o DIR] [-p PROCS] [program...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $runs in '' | *[!0-9]* | 0) echo "record.sh: -n wants a positive count, got '$runs'" >&2; exit 2 ;; esac

cmdline="bash bench/faithfulness/record.sh -n $runs -o $out${only:+ -p $only}${*:+ $*}"
mkdir -p "$out"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

want=" $* "
grep -v '^#' "$here/corpus/MANIFEST" | while read -r name procs; do
	[ -n "$name" ] || continue
	if [ $# -gt 0 ] && [[ $want != *" $name "* ]]; then
		continue
	fi
	(cd "$here/corpus" && GOFLAGS= go build -o "$bin/$name" "$name.go")
	for p in $procs; do
		case $p in *[!0-9]*) continue ;; esac # a word such as noisy
		if [ -n "$only" ] && [[ ",$only," != *",$p,"* ]]; then
			continue
		fi
		file="$out/$name-p$p.txt"
		load0=$(cut -d' ' -f1-3 /proc/loadavg)
		start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
		counts=$(for ((i = 0; i < runs; i++)); do
			out=$(GOMAXPROCS=$p "$bin/$name")
			echo "${out//$'\n'/ }" # a run's lines, joined: one outcome a run
		done | sort | uniq -c | sort -k1,1nr -k2)
		load1=$(cut -d' ' -f1-3 /proc/loadavg)
		{
			echo "# program: $name.go  GOMAXPROCS=$p  runs: $runs"
			echo "# command: $cmdline"
			echo "# go: $(go version | cut -d' ' -f3-)"
			echo "# machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -sr)"
			echo "# started: $start  load before: $load0  after: $load1"
			echo "$counts" | sed -E 's/^ *([0-9]+) (.*)$/\1\t\2/'
		} >"$file"
		echo "$file: $(echo "$counts" | head -3 | tr -s ' ' | tr '\n' ';')" >&2
	done
done
