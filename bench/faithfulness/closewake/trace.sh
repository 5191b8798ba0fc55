#!/usr/bin/env bash
# trace.sh RUNS PROCS DIR: what the Ms do at close_wake's close, from Go's
# execution traces. arrive.go is built with ../startup/trace.go (the
# trace runs from the main package's init; probe point s0 marks main's
# first statement, s1 the close) and run RUNS times as its own process at
# GOMAXPROCS=PROCS, one trace a run in DIR/N.trace. Then one line a run,
# sorted by outcome, goes to standard output: the outcome and, in µs from
# the trace,
#   ready1→2, ready2→3  between close's goready of the first and second
#                       waiter, and of the second and third;
#   ready3→block        from the third goready to main parking in
#                       wg.Wait (-1: main never parked, the waiters were
#                       done first);
#   otherM              from the first goready to the first event of
#                       another M (-1: none before the trace ended).
# The trace perturbs the spawn phase (most runs' waiters arrive 2 0 1),
# so read the close phase from it, not the arrival.
#
#	bash bench/faithfulness/closewake/trace.sh 60 4 /tmp/closewake-traces > bench/faithfulness/closewake/trace-p4.txt
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=$1 procs=$2 dir=$3
mkdir -p "$dir"
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
sed -e '1d' -e 's/^\tch := make(chan struct{})/\tprobeAt(0)\n\tch := make(chan struct{})/' \
	-e 's/^\tclose(ch)/\tprobeAt(1)\n\tclose(ch)/' \
	-e 's/\tfmt.Println("arrive"/\tprobePrintln("arrive"/' \
	-e '/^\t"fmt"$/d' "$here/arrive.go" > "$src/arrive.go"
sed -e '1d' "$here/../startup/trace.go" > "$src/trace.go"
printf 'module closewake\n\ngo 1.26\n' > "$src/go.mod"
(cd "$src" && GOFLAGS= go build -o arrive .)
(cd "$here/../../.." && go build -o "$src/dump" ./bench/faithfulness/startup/dump)
echo "# command: bash bench/faithfulness/closewake/trace.sh $runs $procs DIR"
echo "# $(go version); $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); started $(date -u +%Y-%m-%dT%H:%M:%SZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 1; i <= runs; i++)); do
	out=$(PROBE_TRACE="$dir/$i.trace" GOMAXPROCS=$procs "$src/arrive")
	"$src/dump" "$dir/$i.trace" | awk -v out="$out" '
		/log s1/ { f = 1; mm = $2; next }
		f && /Waiting→Runnable by G1/ { n++; r[n] = $1; next }
		f && n >= 1 && $2 != mm && $2 != "M-" && !w { w = $1 }
		f && /G1 Running→Waiting/ && !b { b = $1 }
		END { printf "%s\tready1→2 %6.1f  ready2→3 %6.1f  ready3→block %6.1f  otherM %6.1f\n", out, r[2] - r[1], r[3] - r[2], (b ? b - r[3] : -1), (w ? w - r[1] : -1) }'
done | sort
