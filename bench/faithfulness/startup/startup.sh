#!/usr/bin/env bash
# startup.sh: what the real scheduler is doing when main.main begins, and
# which start-up states give which outcome.
#
#	bash bench/faithfulness/startup/startup.sh [-n RUNS] [-p PROCS] [-o DIR] [-trace | -spawns] program...
#
# For each corpus program, a copy is built with probe.go: main.main's first
# statement reads the scheduler's own counters (runtime.sched's nmspinning,
# npidle, nmidle, mnext; every P's status, M, schedtick, runnext and
# run queue, by goid) and the program prints them after its outcome. The
# copy runs RUNS times (3000) as its own process with GOMAXPROCS=PROCS (2);
# DIR/NAME-pP.txt (DIR defaults to bench/faithfulness/recordings/startup)
# gets a header and the counts of each outcome with each start-up state
# (goids and ticks left out), and DIR/NAME-pP.outcomes.txt the outcome
# counts alone, comparable with record.sh's. With -trace, the copy is built
# with trace.go instead: runtime/trace from the main package's init, one
# trace per run in DIR/NAME-pP-traces/, for dump (go run
# ./bench/faithfulness/startup/dump); the trace perturbs the schedule, so
# the outcome counts are written but not the start-up states. With
# -spawns, the copy also puts probeSpawn() after each go statement, and
# each run prints when each go statement returned, in ns since main.main's
# first statement: the files are named NAME-pP-spawns.txt and
# NAME-pP-spawns.outcomes.txt, and NAME-pP-spawns.runs.txt keeps every
# run's line (outcome, state, spawns=T1,T2,...), for spawns (go run
# ./bench/faithfulness/startup/spawns).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../corpus"
runs=3000
procs=2
out="$here/../recordings/startup"
trace=
spawns=
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-p) procs=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	-trace) trace=1; shift ;;
	-spawns) spawns=1; shift ;;
	-*) echo "usage: startup.sh [-n RUNS] [-p PROCS] [-o DIR] [-trace | -spawns] program..." >&2; exit 2 ;;
	*) break ;;
	esac
done
[ -z "$trace" ] || [ -z "$spawns" ] || { echo "startup.sh: -trace and -spawns do not go together" >&2; exit 2; }
[ $# -gt 0 ] || { echo "startup.sh: name at least one program of corpus/" >&2; exit 2; }
case $runs in '' | *[!0-9]* | 0) echo "startup.sh: -n wants a positive count, got '$runs'" >&2; exit 2 ;; esac
cmdline="bash bench/faithfulness/startup/startup.sh -n $runs -p $procs${trace:+ -trace}${spawns:+ -spawns} $*"
suffix=${spawns:+-spawns}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for name in "$@"; do
	src="$corpus/$name.go"
	[ -f "$src" ] || { echo "startup.sh: no $src" >&2; exit 2; }
	grep -q 'fmt.Print\(ln\|f\)(' "$src" || { echo "startup.sh: $name.go prints its outcome without fmt.Println or fmt.Printf" >&2; exit 2; }
	mkdir -p "$work/$name"
	# The copy: probeAt(0) as main.main's first statement, the outcome
	# through probePrintln.
	sed -e 's/^func main() {$/func main() {\n\tprobeAt(0)/' -e 's/fmt\.Println(/probePrintln(/' -e 's/fmt\.Printf(/probePrintf(/' "$src" |
		if [ -n "$spawns" ]; then
			# probeSpawn() after each go statement: at the end of a
			# one-line one, or after the "}(...)" that closes a go
			# func literal at the go's own indentation.
			awk '
				/^[ \t]*go / && !/\{$/ { print $0 "; probeSpawn()"; next }
				/^[ \t]*go / { ind = $0; sub(/go .*/, "", ind); open[++n] = ind; print; next }
				n > 0 && index($0, open[n] "}(") == 1 && /\)$/ { print $0 "; probeSpawn()"; n--; next }
				{ print }'
		else
			cat
		fi >"$work/$name/$name.go"
	echo 'var _ = fmt.Sprint' >>"$work/$name/$name.go"
	if [ -n "$trace" ]; then
		cp "$here/trace.go" "$work/$name/"
		(cd "$work/$name" && GOFLAGS= go build -o "$work/$name/bin" "$name.go" trace.go)
	else
		cp "$here/probe.go" "$work/$name/"
		(cd "$work/$name" && GOFLAGS= go build -ldflags=-checklinkname=0 -o "$work/$name/bin" "$name.go" probe.go)
	fi
	load0=$(cut -d' ' -f1-3 /proc/loadavg)
	start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	raw="$work/$name/raw"
	if [ -n "$trace" ]; then
		tdir="$out/$name-p$procs-traces"
		mkdir -p "$tdir"
		for ((i = 0; i < runs; i++)); do
			printf '%d\t%s\n' "$i" "$(GOMAXPROCS=$procs PROBE_TRACE="$tdir/$i.trace" "$work/$name/bin")"
		done >"$raw"
		cp "$raw" "$tdir/outcomes.txt"
	else
		for ((i = 0; i < runs; i++)); do GOMAXPROCS=$procs "$work/$name/bin"; done >"$raw"
	fi
	load1=$(cut -d' ' -f1-3 /proc/loadavg)
	header() {
		echo "# program: $name.go with $1  GOMAXPROCS=$procs  runs: $runs"
		echo "# command: $cmdline"
		echo "# go: $(go version | cut -d' ' -f3-)"
		echo "# machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -sr)"
		echo "# started: $start  load before: $load0  after: $load1"
	}
	if [ -n "$trace" ]; then
		{
			header trace.go
			cut -f2 "$raw" | sort | uniq -c | sort -k1,1nr -k2 | sed -E 's/^ *([0-9]+) (.*)$/\1\t\2/'
		} >"$out/$name-p$procs-traced.outcomes.txt"
		echo "$out/$name-p$procs-traced.outcomes.txt" >&2
		continue
	fi
	{
		header probe.go
		cut -f1 "$raw" | sort | uniq -c | sort -k1,1nr -k2 | sed -E 's/^ *([0-9]+) (.*)$/\1\t\2/'
	} >"$out/$name-p$procs$suffix.outcomes.txt"
	{
		header probe.go
		echo "# each line: count, outcome, the state at main.main's first statement: the P main runs on,"
		echo "# runtime.sched's nmspinning, npidle, nmidle and mnext (Ms made, sysmon's included), and each P:"
		echo "# status/M (holds one)/runq length, the runq's and runnext's goroutines (main's own in its"
		echo "# goid batch: 2 forcegchelper, 3 bgsweep, 4 bgscavenge, 5 updateMaxProcsGoroutine, 6 runFinalizers on"
		echo "# P0's batch; 17.. on P1's, ...)"
		sed -E 's/ spawns=[0-9,-]+$//; s/ t=[0-9]+us//; s/ goid=[0-9]+//; s#/tick[0-9]+##g; s/ \|$//; s/\t\| s0/\t/' "$raw" |
			sort | uniq -c | sort -k1,1nr -k2 | sed -E 's/^ *([0-9]+) (.*)$/\1\t\2/'
	} >"$out/$name-p$procs$suffix.txt"
	if [ -n "$spawns" ]; then
		{
			header probe.go
			echo "# each line: one run: its outcome, the state at main.main's first statement as in"
			echo "# $name-p$procs$suffix.txt (with the time since runtime.main's start and the ticks), and"
			echo "# spawns=: when each go statement returned, in ns since main.main's first statement"
			cat "$raw"
		} >"$out/$name-p$procs$suffix.runs.txt"
	fi
	echo "$out/$name-p$procs$suffix.txt: $(grep -v '^#' "$out/$name-p$procs$suffix.txt" | head -2 | tr '\n' ';')" >&2
done
