#!/bin/bash
# make sim-figure: makespan against D for an application's schedule, zero-load
# and with link contention, beside scimodel --traffic's sum for its matrix.
# Usage: scisim/figure.sh BINDIR OUTDIR [SCHEDULE.goal TRAFFIC.tsv]; without a
# schedule, examples/halo3d.c's (scisim/halo3d_goal.sh, 64 ranks, 10 steps).
set -eu
bin=$1 out=$2
mkdir -p "$out"
goal=${3:-$out/halo3d-64.goal} tsv=${4:-$out/halo3d-64.tsv}
[ $# -ge 4 ] || scisim/halo3d_goal.sh 10 20000 "$goal" "$tsv"
"$bin/scisim" "$goal" --dims 1..4 --format tsv -q -o "$out/sim-zero.tsv"
"$bin/scisim" "$goal" --dims 1..4 --contention --format tsv -q -o "$out/sim-contention.tsv"
"$bin/scimodel" --traffic "$tsv" --dims 1..4 --format tsv > "$out/sim-traffic.tsv"
{ printf "dims\tshape\tzero_ns\tcontention_ns\ttraffic_total_ns\n"
  paste <(tail -n +2 "$out/sim-zero.tsv" | cut -f1,2,5) <(tail -n +2 "$out/sim-contention.tsv" | cut -f5) \
        <(tail -n +2 "$out/sim-traffic.tsv" | cut -f5); } > "$out/sim-makespan.tsv"
. "$(dirname "$0")/../plots/gp.sh"
gp_draw sim-figure "$(dirname "$0")/makespan.gp" "$out" sim-makespan \
    "data='$out/sim-makespan.tsv'; term='png'; title='$(basename "$goal"): makespan against D'"
echo "sim-figure: $out/sim-makespan.png (data $out/sim-makespan.tsv)"
