#!/bin/sh
# Packs sample bundles (plain directory trees under samples/) into archives for tests and demos.
# Archives are reproducible: sorted members, fixed mtime, uid/gid 0, no gzip timestamp.
#
# Usage: scripts/pack-samples.sh [-f FORMATS] [--split] SAMPLE_DIR... OUT_DIR
#        scripts/pack-samples.sh [-f FORMATS] [--split] --all OUT_DIR
#   -f FORMATS   comma list of tar.gz, tar.zst, zip (default: tar.gz,tar.zst,zip)
#   --split      pack each immediate subdirectory separately (a fleet: node01.tar.gz ...),
#                into OUT_DIR/<sample>/
#   --all        every directory under samples/
# Output: OUT_DIR/<sample>.<fmt>; the archive's top entry is <sample>/.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
formats=tar.gz,tar.zst,zip
split=0
all=0
usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
    -f) [ $# -ge 2 ] || { usage >&2; exit 2; }; formats=$2; shift 2 ;;
    --formats=*) formats=${1#*=}; shift ;;
    --split) split=1; shift ;;
    --all) all=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "pack-samples: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { usage >&2; exit 2; }
# the last argument is the output directory
for out in "$@"; do :; done
mkdir -p "$out"
out=$(cd "$out" && pwd)
list=
if [ "$all" = 1 ]; then
  [ $# -eq 1 ] || { echo "pack-samples: --all takes only OUT_DIR" >&2; exit 2; }
  for d in "$here"/samples/*/; do list="$list ${d%/}"; done
else
  [ $# -ge 2 ] || { usage >&2; exit 2; }
  n=$#
  i=0
  for a in "$@"; do
    i=$((i + 1))
    [ "$i" -lt "$n" ] || break
    [ -d "$a" ] || { echo "pack-samples: not a directory: $a" >&2; exit 2; }
    list="$list $(cd "$a" && pwd)"
  done
fi
for f in $(echo "$formats" | tr ',' ' '); do
  case $f in
    tar.gz) ;;
    tar.zst) command -v zstd >/dev/null 2>&1 || { echo "pack-samples: zstd not installed" >&2; exit 2; } ;;
    zip) command -v zip >/dev/null 2>&1 || { echo "pack-samples: zip not installed" >&2; exit 2; } ;;
    *) echo "pack-samples: unknown format $f" >&2; exit 2 ;;
  esac
done

pack_one() {  # SRC_DIR DEST_DIR
  src=$1; dest=$2; name=$(basename "$src"); parent=$(dirname "$src")
  mkdir -p "$dest"
  for f in $(echo "$formats" | tr ',' ' '); do
    a=$dest/$name.$f
    rm -f "$a"
    case $f in
      tar.gz) tar -C "$parent" --sort=name --mtime=@946684800 --owner=0 --group=0 --numeric-owner -cf - "$name" | gzip -n -9 >"$a" ;;
      tar.zst) tar -C "$parent" --sort=name --mtime=@946684800 --owner=0 --group=0 --numeric-owner -cf - "$name" | zstd -q -19 -o "$a" ;;
      zip)
        tmp=$(mktemp -d)
        cp -R "$src" "$tmp/$name"
        find "$tmp/$name" -exec touch -h -d @946684800 {} +
        (cd "$tmp" && find "$name" -print | LC_ALL=C sort | TZ=UTC zip -X -q -@ "$a")
        rm -rf "$tmp" ;;
    esac
    echo "$a"
  done
}

for s in $list; do
  if [ "$split" = 1 ]; then
    for sub in "$s"/*/; do
      [ -d "$sub" ] || continue
      pack_one "${sub%/}" "$out/$(basename "$s")"
    done
  else
    pack_one "$s" "$out"
  fi
done
