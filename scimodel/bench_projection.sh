#!/bin/bash
# bench-projection (make bench): process time of projecting a 10^5-row
# traffic matrix onto 4 candidates (the n^D tori of 1..4 dimensions, named
# with --shape: --dims takes every exact shape of 4096 nodes, 64 of them),
# median of RUNS runs, against the issue's target of 1 s; and with one
# candidate (--shape 16x16x16), which is mostly reading the file, beside it.
# usage: scimodel/bench_projection.sh BIN_DIR [RUNS]
set -euo pipefail
bin=${1:-bin}
runs=${2:-5}
dir=build/bench
mkdir -p "$dir"
matrix=$dir/traffic-1e5.tsv
# 4096 ranks (ring 4096, 64x64, 16^3, 8^4): a 3D halo exchange on 16^3
# (6 rows per rank) plus 19 random peers per rank (102400 rows), sizes 8 B .. 64 KiB.
if [ ! -s "$matrix" ]; then
  awk 'BEGIN {
    srand(1); n = 16; P = n * n * n;
    print "# scitorus-traffic 1"; print "# ranks: " P;
    print "# source: synthetic, scimodel/bench_projection.sh";
    print "# columns: src dst size_bytes messages";
    for (r = 0; r < P; r++) {
      x = int(r / (n * n)); y = int(r / n) % n; z = r % n;
      split((x+1)%n " " y " " z " " (x+n-1)%n " " y " " z " " x " " (y+1)%n " " z " " \
            x " " (y+n-1)%n " " z " " x " " y " " (z+1)%n " " x " " y " " (z+n-1)%n, c, " ");
      for (k = 0; k < 6; k++) print r "\t" (c[3*k+1]*n*n + c[3*k+2]*n + c[3*k+3]) "\t65536\t100";
      for (k = 0; k < 19; k++) print r "\t" int(rand() * P) "\t" 2 ^ (3 + int(rand() * 14)) "\t" 1 + int(rand() * 20);
    }
  }' > "$matrix.tmp" && mv "$matrix.tmp" "$matrix"
fi
rows=$(grep -vc '^#' "$matrix")

# CPU seconds (user + sys) of one run, output discarded
cpu() {
  local TIMEFORMAT='%U %S'
  { time "$@" > /dev/null; } 2>&1 | awk '{print $1 + $2}'
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

all=(); one=()
for ((i = 0; i < runs; i++)); do   # interleaved, so a change of machine speed hits both
  all+=("$(cpu "$bin/scimodel" --traffic "$matrix" --shape 4096 --shape 64x64 --shape 16x16x16 \
             --shape 8x8x8x8 --format tsv)")
  one+=("$(cpu "$bin/scimodel" --traffic "$matrix" --shape 16x16x16 --format tsv)")
done
t_all=$(printf '%s\n' "${all[@]}" | median)
t_one=$(printf '%s\n' "${one[@]}" | median)
echo "bench-projection (medians of $runs runs, process time; $rows rows, 4096 ranks)"
printf '  scimodel --traffic, 4 shapes      %6.3f s   ratio to the 1 s target %.3f\n' "$t_all" "$(echo "$t_all / 1" | bc -l)"
printf '  scimodel --traffic, 16x16x16      %6.3f s   (reading the matrix + one candidate)\n' "$t_one"
