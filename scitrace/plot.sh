#!/usr/bin/env bash
# plot.sh: the figures of a traffic matrix (written by `scitrace matrix`):
# a heatmap of the bytes each rank sends each rank, and the message-size
# histogram (messages and bytes per power-of-two size class).  Called by
# `make trace-plots` and `make demo`; prints the files it wrote.
#
#   scitrace/plot.sh MATRIX OUTDIR [NAME]
#
# Fails (exit 1) if gnuplot fails or prints anything on stderr; a figure that
# fails is absent, never empty or partial (plots/gp.sh).
set -euo pipefail
matrix=$1 out=$2 name=${3:-$(basename "$1" .tsv)}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/data"
[ -r "$matrix" ] || { echo "scitrace/plot.sh: cannot read '$matrix'" >&2; exit 1; }
head -1 "$matrix" | grep -qx '# scitorus-traffic 1' ||
    { echo "scitrace/plot.sh: $matrix:1: not a traffic matrix (# scitorus-traffic 1)" >&2; exit 1; }

. "$here/../plots/gp.sh"
gp() { gp_draw scitrace/plot.sh "$here/$1" "$out" "$2" "$3"; }   # gp SCRIPT NAME VAR-ASSIGNMENTS

# bytes per (src, dst) on the full P x P grid, one block per src (gnuplot's
# `matrix nonuniform`-free image format: x y value, blank line between rows)
pairs=$out/data/$name-pairs.tsv
awk -F'\t' '/^# ranks:/ { split($0, a, ": "); p = a[2]; next } /^#/ { next }
    { b[$1 "," $2] += $3 * $4 }
    END { for (s = 0; s < p; s++) { for (d = 0; d < p; d++) printf "%d\t%d\t%.0f\n", s, d, b[s "," d]; print "" } }' \
    "$matrix" > "$pairs"
ranks=$(awk '/^# ranks:/ { print $3; exit }' "$matrix")

# size classes: 0, then [2^k, 2^(k+1)); messages and bytes in each
sizes=$out/data/$name-sizes.tsv
awk -F'\t' '/^#/ { next }
    { c = 0; s = $3; while (s >= 1) { s = int(s / 2); c++ } m[c] += $4; by[c] += $3 * $4; if (c > max) max = c }
    END { print "class\tlabel\tmessages\tbytes";
          for (c = 0; c <= max; c++) if (m[c]) printf "%d\t%s\t%d\t%.0f\n", c, (c ? 2^(c-1) "-" 2^c - 1 : "0"), m[c], by[c] }' \
    "$matrix" > "$sizes"

written=()
for term in png svg; do
    gp heatmap.gp "trace-$name-heatmap" "data='$pairs'; ranks=$ranks; title='$name: bytes sent, rank to rank'; term='$term'"
    gp sizes.gp "trace-$name-sizes" "data='$sizes'; title='$name: message sizes'; term='$term'"
    written+=("$out/trace-$name-heatmap.$term" "$out/trace-$name-sizes.$term")
done
printf '%s\n' "${written[@]}"
