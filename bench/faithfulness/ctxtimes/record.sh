#!/bin/bash
# Records N runs of ctxtimes at GOMAXPROCS=P into FILE, each a fresh
# process with its standard output a pipe, with the machine's load in the
# header (bench/faithfulness/samples/record.sh):
#   bash bench/faithfulness/ctxtimes/record.sh FILE [N] [P] [-light]
set -e
out=$1 n=${2:-1000} p=${3:-2} light=${4:-}
bin=$(mktemp -d)/ctxtimes
go build -o "$bin" ./bench/faithfulness/ctxtimes
{
	echo "# $(go version) gomaxprocs=$p runs=$n${light:+ args=$light} date=$(date -u +%FT%TZ) uptime:$(uptime)"
	# The tool's standard output is a pipe (cat's), its run line on
	# standard error goes into FILE.
	for _ in $(seq "$n"); do { GOMAXPROCS=$p "$bin" $light | cat >/dev/null; } 2>&1; done
	echo "# done $(date -u +%FT%TZ) uptime:$(uptime)"
} > "$out"
