#!/usr/bin/env bash
# summarize.sh FILE...: pool the outcomes of FILEs and print how often each
# arrival order came up, and under each the wake orders, as shares of the
# runs with that arrival. A FILE is either a recording of record.sh
# (COUNT<tab>arrive A B C wake X Y Z) or the output of schedlab explore
# on arrive.star (its OUTPUT table: HASH COUNT "arrive ... wake ...").
#
#	schedlab explore --runs 2000 --procs 4 --perturb timing bench/faithfulness/closewake/arrive.star > /tmp/sl-p4.txt
#	bash bench/faithfulness/closewake/summarize.sh /tmp/sl-p4.txt
set -euo pipefail
cat "$@" | awk '
	/^#/ { next }
	{
		line = $0
		gsub(/"/, "", line)
		if (match(line, /arrive [0-9] [0-9] [0-9] wake [0-9] [0-9] [0-9]/) == 0) next
		outcome = substr(line, RSTART, RLENGTH)
		split(line, f, /[ \t]+/)
		n = (f[1] ~ /^[0-9]+$/) ? f[1] : f[2]
		a = substr(outcome, 8, 5); w = substr(outcome, 19, 5)
		arr[a] += n; both[a SUBSEP w] += n; total += n
	}
	END {
		printf "%d runs\n", total
		for (a in arr) printf "%d\t%s\n", arr[a], a | "sort -k1,1nr > /tmp/closewake.arr"
		close("sort -k1,1nr > /tmp/closewake.arr")
		while ((getline l < "/tmp/closewake.arr") > 0) {
			split(l, g, "\t"); a = g[2]
			printf "arrive %s  %5.1f%%\n", a, 100 * arr[a] / total
			for (k in both) {
				split(k, p, SUBSEP)
				if (p[1] == a) printf "%d\t    wake %s  %5.1f%%\n", both[k], p[2], 100 * both[k] / arr[a] | "sort -k1,1nr | cut -f2"
			}
			close("sort -k1,1nr | cut -f2")
		}
	}'
