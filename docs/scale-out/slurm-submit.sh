#!/bin/sh
# Queues the per-node array and the merge on Slurm (docs/scale-out.md):
#
#   slurm-submit.sh MANIFEST OUT JOB_DB [PARALLEL]
#
# MANIFEST lists the node bundles (paths every compute node can read), OUT is a shared folder for
# the per-node databases, JOB_DB the merged database (its report: JOB_DB.html). PARALLEL: tasks
# at once (default 100).
set -eu
manifest=$1
out=$2
job_db=$3
parallel=${4:-100}
here=$(cd "$(dirname "$0")" && pwd)
n=$(grep -c -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$manifest")
mkdir -p "$out"
export MANIFEST="$manifest" OUT="$out" JOB_DB="$job_db" FAULTLINE_SCALEOUT="$here"
array=$(sbatch --parsable --export=ALL --array="0-$((n - 1))%$parallel" "$here/slurm-node.sbatch")
sbatch --parsable --export=ALL --dependency="afterany:${array%%;*}" "$here/slurm-merge.sbatch"
