#!/bin/sh
# The per-node step of a scale-out fleet analysis (docs/scale-out.md): analyse entry INDEX
# (0-based) of MANIFEST, a list of node bundles (one path a line, '#' comments), into
# OUT/<bundle file name>.db. The same script runs as a Slurm array task, a Kubernetes Indexed Job
# pod or an `xargs -P` process:
#
#   node.sh MANIFEST OUT [INDEX]
#
# INDEX: the third argument, else SLURM_ARRAY_TASK_ID, else JOB_COMPLETION_INDEX.
# FAULTLINE: the binary (default: faultline on PATH). FAULTLINE_OPTS: more options of
# `faultline analyze` (e.g. "--cache-dir /scratch/faultline-cache"; every node must use the same
# rules: the merge refuses databases of different rules or faultline versions).
#
# The database is written under a hidden name and renamed when done, so the merge never reads a
# half-written one; a task run again replaces it. Exit status: analyze's (0 done, 3 the bundle
# could not be read: the database, when there is one, says why and the merge reports the node).
set -eu
manifest=${1:?usage: node.sh MANIFEST OUT [INDEX]}
out=${2:?usage: node.sh MANIFEST OUT [INDEX]}
index=${3:-${SLURM_ARRAY_TASK_ID:-${JOB_COMPLETION_INDEX:-}}}
if [ -z "$index" ]; then
  echo "node.sh: no index (third argument, SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX)" >&2
  exit 2
fi
bundle=$(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$manifest" | sed -n "$((index + 1))p")
if [ -z "$bundle" ]; then
  echo "node.sh: $manifest has no entry $index" >&2
  exit 2
fi
name=$(basename "$bundle")
mkdir -p "$out"
db="$out/$name.db"
tmp="$out/.$name.db.$$"
rm -f "$tmp" "$tmp-wal" "$tmp-shm"
rc=0
# shellcheck disable=SC2086 # FAULTLINE_OPTS is a list of options
"${FAULTLINE:-faultline}" analyze "$bundle" --db "$tmp" --no-report -q ${FAULTLINE_OPTS:-} || rc=$?
if [ -f "$tmp" ]; then
  mv -f "$tmp" "$db"
fi
exit "$rc"
