#!/bin/bash
# Records N runs of sysmontimes/probe at GOMAXPROCS=P into FILE, each a fresh
# process whose system calls perf records (root, or perf_event_paranoid
# -1), one recording line a run (sysmontimes -perf), with the machine's
# load before and after in the header; ARGS (-burn 4ms) go to the traced
# program. Run it on a quiet machine, with nothing else running:
#   bash bench/faithfulness/sysmontimes/record.sh FILE [N] [P] [ARGS...]
set -e
out=$1 n=${2:-200} p=${3:-1}
shift 3 || shift $#
dir=$(mktemp -d)
go build -o "$dir/sysmontimes" ./bench/faithfulness/sysmontimes
go build -o "$dir/probe" ./bench/faithfulness/sysmontimes/probe
{
	echo "# $(go version) $(perf --version) gomaxprocs=$p runs=$n${*:+ args=$*} date=$(date -u +%FT%TZ) uptime:$(uptime)"
	for _ in $(seq "$n"); do
		GOMAXPROCS=$p perf record -q -a -o "$dir/perf.data" \
			-e syscalls:sys_enter_nanosleep,syscalls:sys_exit_nanosleep,syscalls:sys_exit_getpid \
			-- "$dir/probe" "$@"
		perf script --ns -i "$dir/perf.data" -F comm,tid,time,event,trace > "$dir/events" 2>/dev/null
		"$dir/sysmontimes" -perf "$dir/events"
	done
	echo "# done $(date -u +%FT%TZ) uptime:$(uptime)"
} > "$out"
rm -r "$dir"
