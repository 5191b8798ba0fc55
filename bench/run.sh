#!/bin/sh
# Runs schedlab's performance benchmarks and the peer programs side by side
# and prints the figures of issue 7 against their targets. See README.md.
set -e
cd "$(dirname "$0")/.."
exec go run ./bench/compare "$@"
