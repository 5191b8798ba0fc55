#!/bin/bash
# Records the OS's switches of threads (sched:sched_switch, system-wide,
# perf as root) while N fresh processes of stalltimes -d D run one after
# the other at GOMAXPROCS=P, and writes perf script's text of them, with
# the process and thread of each, gzipped, to FILE.gz:
#   bash bench/faithfulness/stalltimes/sched.sh FILE [N] [P] [D]
#   go run ./bench/faithfulness/stalltimes -sched <(zcat FILE.gz)
set -e
out=$1 n=${2:-100} p=${3:-2} d=${4:-5ms}
dir=$(mktemp -d)
go build -o "$dir/stalltimes" ./bench/faithfulness/stalltimes
{
	echo "# $(go version) $(perf --version) gomaxprocs=$p runs=$n d=$d date=$(date -u +%FT%TZ) uptime:$(uptime)"
	perf record -q -a -e sched:sched_switch -o "$dir/perf.data" -- \
		bash -c "for _ in \$(seq $n); do GOMAXPROCS=$p $dir/stalltimes -d $d > /dev/null; done"
	perf script --ns -i "$dir/perf.data" -F comm,pid,tid,time,event,trace 2>/dev/null
	echo "# done $(date -u +%FT%TZ) uptime:$(uptime)"
} | gzip > "$out.gz"
rm -r "$dir"
