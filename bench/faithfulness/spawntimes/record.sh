#!/bin/bash
# Records N runs of spawntimes at GOMAXPROCS=P into FILE, each a fresh
# process, with the machine's load before and after in the header; ARGS
# (-malg) go to spawntimes:
#   bash bench/faithfulness/spawntimes/record.sh FILE [N] [P] [ARGS...]
set -e
out=$1 n=${2:-1000} p=${3:-2}
shift 3 || shift $#
bin=$(mktemp -d)/spawntimes
go build -o "$bin" ./bench/faithfulness/spawntimes
{
	echo "# $(go version) gomaxprocs=$p runs=$n args=$* date=$(date -u +%FT%TZ) uptime:$(uptime)"
	for _ in $(seq "$n"); do GOMAXPROCS=$p "$bin" "$@"; done
	echo "# done $(date -u +%FT%TZ) uptime:$(uptime)"
} > "$out"
