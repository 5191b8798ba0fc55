#!/usr/bin/env bash
# twins.sh: run the Starlark twins of record.sh's cells on schedlab and
# print p50 / p90 / p99 per cell, for docs/faithfulness.md's comparison
# with the recordings (summary-run2.txt, summary-run3.txt).
#
#	bash bench/faithfulness/netpoll/twins.sh
#
# wake and pingpong are one run each (seed 1, 2000 messages); serve is
# pooled over seeds 1-8 (80,000 requests) with schedlab lab, once with the
# 1ms of CPU the Go client asks for and once with the spin wall time the
# real server logged for that cell (run2's and run3's mean).
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=$(mktemp -d)/schedlab
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/schedlab
d=bench/faithfulness/netpoll
for p in 1 2; do
	echo "wake-idle-p$p        $("$bin" run --procs $p $d/wake.star | tail -1)"
	echo "wake-busy-p$p        $("$bin" run --procs $p --param spinners=$p $d/wake.star | tail -1)"
	echo "pingpong-p$p         $("$bin" run --procs $p $d/pingpong.star | tail -1)"
	echo "pingpong-hot-p$p     $("$bin" run --procs $p --param think=0 $d/pingpong.star | tail -1)"
done
# cell, procs, u, the real server's spin wall time (run2 and run3's mean)
for c in "serve-u50-p1 1 0.5 1.056ms" "serve-u80-p1 1 0.8 1.022ms" "serve-u50-p2 2 0.5 1.128ms" "serve-u80-p2 2 0.8 1.141ms"; do
	set -- $c
	for s in 1ms "$4"; do
		row=$("$bin" lab --seeds 8 --sweep procs="$2" --sweep u="$3" --sweep service="$s" $d/serve.star 2>/dev/null | tail -1)
		echo "$1 service=$s  $(echo "$row" | awk '{print "p50", $10, "p90", $11, "p99", $12}')"
	done
done
