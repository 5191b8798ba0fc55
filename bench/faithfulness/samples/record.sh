#!/bin/bash
# Records N runs of one of bench/faithfulness's timing tools (spawntimes,
# syscalltimes) at GOMAXPROCS=P into FILE, each a fresh process, with the
# machine's load before and after in the header; ARGS (-malg, -nanosleep 5,
# -println 4) go to the tool:
#   bash bench/faithfulness/samples/record.sh TOOL FILE [N] [P] [ARGS...]
# Each tool's record.sh calls this with its name.
set -e
tool=$1 out=$2 n=${3:-1000} p=${4:-2}
shift 4 || shift $#
bin=$(mktemp -d)/$tool
go build -o "$bin" "./bench/faithfulness/$tool"
{
	echo "# $(go version) gomaxprocs=$p runs=$n${*:+ args=$*} date=$(date -u +%FT%TZ) uptime:$(uptime)"
	for _ in $(seq "$n"); do GOMAXPROCS=$p "$bin" "$@"; done
	echo "# done $(date -u +%FT%TZ) uptime:$(uptime)"
} > "$out"
