#!/bin/bash
# Records N runs of busywake at GOMAXPROCS=P into FILE, each a fresh process,
# with the machine's load in the header (bench/faithfulness/samples/record.sh):
#   bash bench/faithfulness/busywake/record.sh FILE [N] [P] [ARGS...]
exec bash "$(dirname "$0")/../samples/record.sh" busywake "$@"
