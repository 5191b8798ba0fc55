#!/bin/bash
# Records N runs of stalltimes at GOMAXPROCS=P into FILE, each a fresh
# process, with the machine's load in the header
# (bench/faithfulness/samples/record.sh):
#   bash bench/faithfulness/stalltimes/record.sh FILE [N] [P] [-d 200ms]
exec bash "$(dirname "$0")/../samples/record.sh" stalltimes "$@"
