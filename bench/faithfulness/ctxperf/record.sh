#!/bin/bash
# Records N runs of bench/faithfulness/corpus/ctx_fanout.go at GOMAXPROCS=P
# into FILE, each a fresh process whose writes and tgkills perf records
# (root, or perf_event_paranoid -1), its standard output a pipe, one
# recording line a run (ctxperf -perf), with the machine's load before and
# after in the header; with -sched, the OS's switches of threads too
# (sched:sched_switch), for how long the last line's thread was off its
# CPU. Run it on a quiet machine:
#   bash bench/faithfulness/ctxperf/record.sh FILE [N] [P] [-sched]
set -e
out=$1 n=${2:-300} p=${3:-2} sched=${4:-}
events=syscalls:sys_enter_write,syscalls:sys_exit_write,syscalls:sys_enter_tgkill
case $sched in
'') ;;
-sched) events=$events,sched:sched_switch ;;
*) echo "record.sh: want -sched or nothing, got '$sched'" >&2; exit 2 ;;
esac
dir=$(mktemp -d)
go build -o "$dir/ctxperf" ./bench/faithfulness/ctxperf
go build -o "$dir/ctx_fanout" bench/faithfulness/corpus/ctx_fanout.go
{
	echo "# $(go version) $(perf --version) gomaxprocs=$p runs=$n${sched:+ $sched} date=$(date -u +%FT%TZ) uptime:$(uptime)"
	for _ in $(seq "$n"); do
		lines=$(GOMAXPROCS=$p perf record -q -a -o "$dir/perf.data" \
			-e "$events" \
			-- "$dir/ctx_fanout" | cat)
		perf script --ns -i "$dir/perf.data" -F comm,tid,time,event,trace > "$dir/events" 2>/dev/null
		# A run that cannot be read is noted, not fatal.
		"$dir/ctxperf" -perf "$dir/events" -out "$lines" 2>&1 | sed 's/^ctxperf: /# skipped: /'

	done
	echo "# done $(date -u +%FT%TZ) uptime:$(uptime)"
} > "$out"
rm -r "$dir"
