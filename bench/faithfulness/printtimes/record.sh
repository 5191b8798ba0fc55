#!/bin/bash
# Records N runs of printtimes at GOMAXPROCS=P into FILE, each a fresh
# process whose standard output is a pipe (as bench/faithfulness/record.sh
# reads a program's output) and whose run line, on standard error, goes to
# FILE, with the machine's load before and after in the header:
#   bash bench/faithfulness/printtimes/record.sh FILE [N] [P] [-warm]
set -e
out=$1 n=${2:-1000} p=${3:-2}
shift 3 || shift $#
bin=$(mktemp -d)/printtimes
go build -o "$bin" ./bench/faithfulness/printtimes
exec 3>"$out"
echo "# $(go version) gomaxprocs=$p runs=$n${*:+ args=$*} date=$(date -u +%FT%TZ) uptime:$(uptime)" >&3
for _ in $(seq "$n"); do GOMAXPROCS=$p "$bin" "$@" 2>&3 | cat >/dev/null; done
echo "# done $(date -u +%FT%TZ) uptime:$(uptime)" >&3
