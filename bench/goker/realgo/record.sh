#!/bin/sh
# record.sh KERNEL RUNS [GOMAXPROCS]: run Go's own copy of a GoKer kernel
# RUNS times, the way Go's TestGoroutineLeakProfile runs it (the
# goroutineleakprofile experiment, GODEBUG=asyncpreemptoff=1), and print
# one line a run: the run's number and the goroutines its leak profile
# lists as leaked, by wait reason ("-" when none). The last line sums up.
#
#   bench/goker/realgo/record.sh Moby27782 1000 > bench/goker/realgo/moby27782-amd-1207-a.txt
#
# The kernels are read from $(go env GOROOT), built in a temporary
# module; nothing of them is copied into this repository.
set -eu
kernel=$1
runs=$2
procs=${3:-}
src=$(go env GOROOT)/src/runtime/testdata/testgoroutineleakprofile/goker
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$src"/*.go "$dir"/
printf 'module goker\n\ngo 1.26\n' > "$dir/go.mod"
(cd "$dir" && GOEXPERIMENT=goroutineleakprofile go build -o goker .)
echo "# $(go version); kernel $kernel; runs $runs; GOMAXPROCS=${procs:-default ($(nproc) CPUs)}; $(date -u '+%Y-%m-%d %H:%M UTC'); load $(cut -d' ' -f1-3 /proc/loadavg)"
leaky=0
i=1
while [ "$i" -le "$runs" ]; do
	if [ -n "$procs" ]; then
		out=$(GOMAXPROCS=$procs GODEBUG=asyncpreemptoff=1 "$dir/goker" "$kernel")
	else
		out=$(GODEBUG=asyncpreemptoff=1 "$dir/goker" "$kernel")
	fi
	leaks=$(printf '%s\n' "$out" | sed -n 's/^goroutine [0-9]* \[\(.*\) (leaked)\]:$/\1/p' | sort | uniq -c | awk '{n=$1; $1=""; printf "%s%s×%d", sep, substr($0,2), n; sep=", "}')
	if [ -n "$leaks" ]; then
		leaky=$((leaky + 1))
		echo "$i $leaks"
	else
		echo "$i -"
	fi
	i=$((i + 1))
done
echo "# $leaky of $runs runs leaked"
