#!/bin/bash
# Records N runs of syscalltimes at GOMAXPROCS=P into FILE, each a fresh
# process, with the machine's load before and after in the header; ARGS
# (-nanosleep 10) go to syscalltimes:
#   bash bench/faithfulness/syscalltimes/record.sh FILE [N] [P] [ARGS...]
set -e
out=$1 n=${2:-1000} p=${3:-2}
shift 3 || shift $#
bin=$(mktemp -d)/syscalltimes
go build -o "$bin" ./bench/faithfulness/syscalltimes
{
	echo "# $(go version) gomaxprocs=$p runs=$n${*:+ args=$*} date=$(date -u +%FT%TZ) uptime:$(uptime)"
	for _ in $(seq "$n"); do GOMAXPROCS=$p "$bin" "$@"; done
	echo "# done $(date -u +%FT%TZ) uptime:$(uptime)"
} > "$out"
