#!/bin/bash
# Runs the shards of a warcrunch run, sweep or compare with GNU parallel on
# the hosts given, then merges them into the files one run writes.
#   shards.sh HOSTS SHARDS PARTS OUT COMMAND [ARGS...]
# e.g. shards.sh host1,host2,host3,host4 16 parts reports/ambush_1e9 \
#        run scenarios/gurps/ambush_at_the_ford.toml --trials 1000000000
# HOSTS as `parallel -S` takes them (":" is this machine); `warcrunch` on
# every host's PATH, the current folder shared by all of them.
set -euo pipefail
hosts=$1 shards=$2 parts=$3 out=$4
shift 4
seq 0 $((shards - 1)) |
  parallel --will-cite -q -S "$hosts" --workdir . --halt now,fail=1 \
    warcrunch "$@" --quiet --shard "{}/$shards" --out "$parts/shard-{}"
warcrunch merge "$parts"/shard-* --out "$out" --quiet
