#!/bin/bash
# Makes ctxperf's recording lines from N of schedlab's runs of the twin,
# bench/faithfulness/corpus/ctx_fanout.star, at --procs P under
# --perturb=timing, seeds 1 to N (explore's runs), into FILE; ARGS go to
# schedlab run (--costs FILE, --print=free):
#   bash bench/faithfulness/ctxperf/schedlab.sh FILE [N] [P] [ARGS...]
set -e
out=$1 n=${2:-300} p=${3:-2}
shift 3 || shift $#
dir=$(mktemp -d)
go build -o "$dir/ctxperf" ./bench/faithfulness/ctxperf
go build -o "$dir/schedlab" ./cmd/schedlab
{
	echo "# schedlab $(git describe --always --dirty 2>/dev/null) procs=$p seeds=1-$n perturb=timing${*:+ args=$*}"
	for s in $(seq "$n"); do
		"$dir/schedlab" run --procs "$p" --perturb timing --seed "$s" --trace "$@" bench/faithfulness/corpus/ctx_fanout.star > "$dir/trace"
		"$dir/ctxperf" -schedlab "$dir/trace" 2>&1 | sed 's/^ctxperf: /# skipped: /'
	done
} > "$out"
rm -r "$dir"
