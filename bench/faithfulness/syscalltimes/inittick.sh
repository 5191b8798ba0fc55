#!/usr/bin/env bash
# inittick.sh: every P's syscalltick as main.main runs, in real Go.
#
#	bash bench/faithfulness/syscalltimes/inittick.sh FILE [RUNS] [PROCS]
#
# Builds inittick/main.go and runs it RUNS times (100) at GOMAXPROCS=PROCS
# (1); FILE gets a header (the command, go version, load) and the count of
# each distinct set of every P's last complete scheddetail line (a run's
# last block may be cut by its exit), with schedtick, m and runqsize left
# out: what is counted is each P's status and syscalltick.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: inittick.sh FILE [RUNS] [PROCS]" >&2; exit 2; }
file=$1 runs=${2:-100} procs=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/inittick" "$here/inittick/main.go"
{
	echo "# bash bench/faithfulness/syscalltimes/inittick.sh FILE $runs $procs"
	echo "# $(go version), $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	for _ in $(seq "$runs"); do
		GOMAXPROCS=$procs GODEBUG=schedtrace=1,scheddetail=1 "$work/inittick" 2>&1 |
			awk '/^  P[0-9]+:.*timerslen=/ { last[$1] = $2 " " $4 } END { for (i = 0; i < '"$procs"'; i++) printf "P%d: %s; ", i, last["P" i ":"]; print "" }'
	done | sort | uniq -c | sort -rn
} > "$file"
