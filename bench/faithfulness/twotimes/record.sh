#!/bin/bash
# Records N runs of twotimes at GOMAXPROCS=P into FILE, each a fresh process,
# with the machine's load in the header (bench/faithfulness/samples/record.sh):
#   bash bench/faithfulness/twotimes/record.sh FILE [N] [P]
exec bash "$(dirname "$0")/../samples/record.sh" twotimes "$@"
