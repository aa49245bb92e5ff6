#!/bin/bash
# Submits a sharded warcrunch job and its merge, which runs once every
# shard has succeeded (and is cancelled if one fails).
#   submit.sh SHARDS PARTS OUT COMMAND [ARGS...]
# e.g. submit.sh 16 parts reports/ambush_1e9 \
#        run scenarios/gurps/ambush_at_the_ford.toml --trials 1000000000
# CPUS_PER_TASK sets each shard's cores and threads (default 1). sbatch
# options for both jobs go in SBATCH_* variables: SBATCH_PARTITION, or
# SBATCH_WAIT=1 to return when the jobs end (non-zero if a shard failed:
# rerun it alone, as shards.sbatch says, then submit merge.sbatch).
set -euo pipefail
here=$(dirname "$0")
shards=$1 parts=$2 out=$3
shift 3
array=$(sbatch --parsable --cpus-per-task="${CPUS_PER_TASK:-1}" --array="0-$((shards - 1))" \
  "$here/shards.sbatch" "$shards" "$parts" "$@")
sbatch --parsable --dependency="afterok:${array%%;*}" --kill-on-invalid-dep=yes \
  "$here/merge.sbatch" "$parts" "$out"
