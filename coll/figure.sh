#!/bin/sh
# coll/figure.sh BIN LOGP OUT.png FILE...: each collectives file (mpibench
# --op) against its prediction from the LogP file (calibrate --collectives), against size, one
# panel per process count (coll/coll.gp).  Usage: see coll/coll.gp.
set -eu
[ $# -ge 4 ] || { echo "usage: coll/figure.sh BIN LOGP OUT.png FILE..." >&2; exit 2; }
bin=$1 logp=$2 out=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$@"; do
    op=$(sed -n 's/^# op: //p' "$f")
    "$bin/calibrate" --collectives "$f" --logp "$logp" |
        awk -v op="$op" 'NF == 5 && $1 ~ /^[0-9]+$/ {print op, $1, $2, $3, $4}' >> "$tmp/all.dat"
done
procs=$(awk '{print $3}' "$tmp/all.dat" | sort -n | uniq | tr '\n' ' ')
ops=$(awk '{print $1}' "$tmp/all.dat" | awk '!s[$0]++' | tr '\n' ' ')
. "$(dirname "$0")/../plots/gp.sh"
gp_draw coll/figure.sh "$(dirname "$0")/coll.gp" "$(dirname "$out")" "$(basename "$out")" \
    "data='$tmp/all.dat'; procs='$procs'; ops='$ops'"
echo "coll/figure.sh: wrote $out"
