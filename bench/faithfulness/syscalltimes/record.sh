#!/bin/bash
# Records N runs of syscalltimes at GOMAXPROCS=P into FILE, each a fresh process,
# with the machine's load in the header (bench/faithfulness/samples/record.sh):
#   bash bench/faithfulness/syscalltimes/record.sh FILE [N] [P] [ARGS...]
exec bash "$(dirname "$0")/../samples/record.sh" syscalltimes "$@"
