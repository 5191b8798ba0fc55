#!/usr/bin/env bash
# record.sh: record real Go's netpoller on loopback (issue 27, item 6), a
# server and its client in two processes, at GOMAXPROCS 1 and 2.
#
#	bash bench/faithfulness/netpoll/record.sh [-o DIR] [-b SECONDS] [-q] [GROUP...]
#
# It builds server/ and client/ with the go command, waits until the
# 1-minute load average is at most 0.5 (checking every 60s, 5 times at
# most), then, before each cell, until the machine has been at most 10%
# busy for 3s (see cell below; all waiting ends -b seconds, 1200 by
# default, after the start, and it records anyway), and writes, for each cell, DIR/CELL-pP.txt:
# a header line (# cmd=... gomaxprocs=... go=... uptime=<load averages>
# date=...), a second comment line (machine, load after, logs), then the
# values in ns, one per line. DIR is
# bench/faithfulness/recordings/netpoll/run1 by default. -q is a smoke test:
# a few values per cell, into DIR all the same, without waiting. GROUPs
# (wake-idle, pingpong, serve, wake-busy; all by default) choose cells. The
# cells:
#
#	wake-idle   the server's one goroutine blocked in conn.Read; the
#	            client sends 16-byte messages 5-20ms apart; the server
#	            records (now after Read returns) − (client's send time)
#	pingpong    RTT/2 of round trips to an echo server, 1-5ms apart
#	pingpong-hot  the same, back to back
#	serve-u50, serve-u80  a goroutine-per-connection server, exponential
#	            service times of mean 1ms burnt as CPU, under open-loop
#	            Poisson arrivals at 50% and 80% of GOMAXPROCS, on a pool of
#	            64 connections; the client's latency from each request's
#	            scheduled send time (-sent: from its actual write; -late:
#	            the sender's lateness)
#	wake-busy   wake-idle while GOMAXPROCS goroutines run CPU loops
#
# The server runs with GOMAXPROCS=P; the client with GOMAXPROCS=2 (this
# machine's default), except in the ping-pongs, where both run with P.
# Idle cells run first, busy ones last, so that the load the recording
# itself makes weighs least on the idle ones.
set -euo pipefail

# The whole script is one block, read before it runs, so that editing this
# file while a recording runs cannot change what that recording does.
{

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out="$root/bench/faithfulness/recordings/netpoll/run1"
quick=0
budget=1200
while getopts 'o:b:q' opt; do
	case $opt in
	o) out=$OPTARG ;;
	b) budget=$OPTARG ;;
	q) quick=1 ;;
	*) echo "usage: record.sh [-o DIR] [-b SECONDS] [-q] [GROUP...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

nwake=2000 nserve=10000 npp=2000 wwarm=20 swarm=200
if [ $quick = 1 ]; then
	nwake=100 nserve=500 npp=100 wwarm=5 swarm=20
fi
groups=" ${*:-wake-idle pingpong serve wake-busy} "
for g in $groups; do
	case $g in wake-idle | pingpong | serve | wake-busy) ;; *) echo "record.sh: unknown group $g" >&2; exit 2 ;; esac
done
want() { [[ $groups == *" $1 "* ]]; }
cmdline="bash bench/faithfulness/netpoll/record.sh -o ${out#"$root"/} -b $budget"
if [ $quick = 1 ]; then cmdline+=" -q"; fi
cmdline+=" ${*:-}"
cmdline=${cmdline% }

mkdir -p "$out"
tmp=$(mktemp -d)
spid=
cleanup() {
	if [ -n "$spid" ] && kill -0 "$spid" 2>/dev/null; then kill "$spid"; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

(cd "$root" && go build -o "$tmp/server" ./bench/faithfulness/netpoll/server && go build -o "$tmp/client" ./bench/faithfulness/netpoll/client)
gover=$(go version | cut -d' ' -f3)
machine="$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -sr)"

loads() { cut -d' ' -f1-3 /proc/loadavg | tr ' ' ','; }

# Waiting for a quiet machine (below) stops budget seconds after this
# point; from then on every cell is recorded once. A smoke test never
# waits.
case $budget in '' | *[!0-9]*) echo "record.sh: -b wants seconds, got '$budget'" >&2; exit 2 ;; esac
t0=$SECONDS
if [ $quick = 1 ]; then budget=0; fi

# Wait for a quiet machine: a 1-minute load of 0.5 at most, for 5 minutes
# at most, since the finer wait of each cell (below) catches the gaps
# between other sessions' bursts that a 1-minute average cannot.
for ((i = 0; i < 5 && SECONDS - t0 < budget; i++)); do
	l1=$(cut -d' ' -f1 /proc/loadavg)
	if awk -v l="$l1" 'BEGIN { exit !(l <= 0.5) }'; then break; fi
	echo "record.sh: load $l1 > 0.5, waiting 60s ($(uptime))" >&2
	sleep 60
done
echo "record.sh: starting at load $(loads): $(uptime)" >&2

# cpu prints the machine's busy and total jiffies (/proc/stat) and the CPU
# jiffies of this shell's waited-for children (/proc/self/stat's cutime and
# cstime: the servers and clients, through timeout), on one line.
cpu() {
	local c
	c=$(awk '{ print $16 + $17 }' "/proc/$$/stat")
	awk -v c="$c" '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print t - $5 - $6, t, c; exit }' /proc/stat
}

# busy SECONDS prints how busy the machine was (all CPUs, percent) over
# the next SECONDS.
busy() {
	local a b
	a=$(cpu)
	sleep "$1"
	b=$(cpu)
	awk -v a="$a" -v b="$b" 'BEGIN { split(a, x); split(b, y); printf "%.0f", (y[2] > x[2]) ? 100 * (y[1] - x[1]) / (y[2] - x[2]) : 0 }'
}

# Other sessions share this machine. Before each cell, wait until it has
# been at most 10% busy for 3s, and after it, measure how much CPU
# processes other than the server and client took while it ran; a cell
# where they took more than 10% is recorded again (twice at most), and
# the attempt they disturbed least is kept (until the budget is spent).

# attempt NAME P CLIENT_P "SERVER ARGS" "CLIENT ARGS" runs the server,
# then the client against it, into $tmp/raw* (whichever of the two
# records writes them), and sets quiet, others, load0, load1, date0, logs.
attempt() {
	local name=$1 p=$2 cp=$3 sargs=$4 cargs=$5
	local i
	quiet=$(busy 3)
	for ((i = 0; i < 20 && quiet > 10 && SECONDS - t0 < budget; i++)); do
		echo "record.sh: $name-p$p: machine $quiet% busy, waiting" >&2
		sleep 10
		quiet=$(busy 3)
	done
	rm -f "$tmp"/raw* "$tmp/addr"
	: >"$tmp/addr"
	load0=$(loads)
	date0=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	local c0 c1
	c0=$(cpu)
	# shellcheck disable=SC2086
	GOMAXPROCS=$p timeout 150 "$tmp/server" $sargs >"$tmp/addr" 2>"$tmp/server.log" &
	spid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q '^addr ' "$tmp/addr" && break
		sleep 0.05
	done
	local addr
	addr=$(awk '/^addr /{print $2}' "$tmp/addr")
	if [ -z "$addr" ]; then
		echo "record.sh: $name-p$p: the server did not start: $(cat "$tmp/server.log")" >&2
		exit 1
	fi
	# shellcheck disable=SC2086
	GOMAXPROCS=$cp timeout 150 "$tmp/client" -addr "$addr" $cargs 2>"$tmp/client.log"
	wait "$spid"
	spid=
	c1=$(cpu)
	others=$(awk -v a="$c0" -v b="$c1" 'BEGIN { split(a, x); split(b, y); o = (y[1] - x[1]) - (y[3] - x[3]); if (o < 0) o = 0; printf "%.0f", (y[2] > x[2]) ? 100 * o / (y[2] - x[2]) : 0 }')
	load1=$(loads)
	logs=$(cat "$tmp/server.log" "$tmp/client.log" | tr '\n' ' ')
}

# cell NAME P CLIENT_P "SERVER ARGS" "CLIENT ARGS" [EXTRA...] records a
# cell into DIR/NAME-pP.txt (and DIR/NAME-pP-EXTRA.txt from
# $tmp/raw-EXTRA), again if others disturbed it.
cell() {
	local name=$1 p=$2 cp=$3 sargs=$4 cargs=$5
	shift 5
	local try best=101 sfx
	mkdir -p "$tmp/best"
	for ((try = 1; try <= 3; try++)); do
		attempt "$name" "$p" "$cp" "$sargs" "$cargs"
		echo "record.sh: $name-p$p try $try: machine $quiet% busy before, others took $others% during (load $load0 -> $load1) $logs" >&2
		if ((others < best)); then
			best=$others
			rm -f "$tmp"/best/*
			for sfx in "" "$@"; do
				local f="$tmp/best/$name-p$p${sfx:+-$sfx}.txt"
				{
					echo "# cmd=\"GOMAXPROCS=$p server ${sargs//$tmp/TMP} | GOMAXPROCS=$cp client ${cargs//$tmp/TMP} (by $cmdline)\" gomaxprocs=$p go=$gover uptime=$load0 date=$date0"
					echo "# machine: $machine; load after: $load1; CPU busy in the 3s before: $quiet%; CPU taken by other processes during: $others% (try $try); logs: ${logs:-none}"
					cat "$tmp/raw${sfx:+-$sfx}"
				} >"$f"
			done
		fi
		if ((others <= 10 || SECONDS - t0 >= budget)); then break; fi
	done
	for f in "$tmp"/best/*; do
		mv "$f" "$out/"
		echo "record.sh: $out/${f##*/}: $(grep -vc '^#' "$out/${f##*/}") values, others $best%" >&2
	done
}

wake_client="-mode wake -n $nwake -warmup $wwarm -min 5ms -max 20ms"
want wake-idle && for p in 1 2; do
	cell wake-idle $p 2 "-mode wake -n $nwake -warmup $wwarm -out $tmp/raw" "$wake_client -seed $((10 + p))"
done
want pingpong && for p in 1 2; do
	cell pingpong $p $p "-mode echo" "-mode pingpong -n $npp -warmup $wwarm -min 1ms -max 5ms -seed $((20 + p)) -out $tmp/raw"
	cell pingpong-hot $p $p "-mode echo" "-mode pingpong -n $npp -warmup $wwarm -min 0 -max 0 -out $tmp/raw"
done
want serve && for p in 1 2; do
	for u in 50 80; do
		rate=$((p * u * 10))
		cell serve-u$u $p 2 "-mode serve -conns 64" \
			"-mode poisson -rate $rate -n $nserve -warmup $swarm -conns 64 -service 1ms -seed $((30 + p * 100 + u)) -out $tmp/raw -out-sent $tmp/raw-sent -out-late $tmp/raw-late" \
			sent late
	done
done
want wake-busy && for p in 1 2; do
	cell wake-busy $p 2 "-mode wake -spinners $p -n $nwake -warmup $wwarm -out $tmp/raw" "$wake_client -seed $((40 + p))"
done
echo "record.sh: done at load $(loads)" >&2
exit
}
