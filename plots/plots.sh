#!/usr/bin/env bash
# plots.sh: draws every figure with gnuplot from scimodel output (and, when
# given, a bench TSV and a params file).  Called by `make plots`.
#
#   plots.sh OUTDIR SCIMODEL [PARAMS] [BENCH]
#   VALIDATION=FILE plots.sh ...   also calibrate --full's held-out figure
#
# Fails (exit 1) if gnuplot fails or prints anything on stderr: a warning
# usually means a figure that silently lost data.
set -euo pipefail
out=$1 scimodel=$2 params=${3:-} bench=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/data"
written=()

gp() {   # gp SCRIPT VAR-ASSIGNMENTS
    local err
    err=$(gnuplot -e "$2" "$here/$1" 2>&1 >/dev/null) || { echo "plots: gnuplot $1 failed: $err" >&2; exit 1; }
    if [ -n "$err" ]; then echo "plots: gnuplot $1: $err" >&2; exit 1; fi
}

crossover_figures() {   # NAME SCIMODEL-PARAMETER-ARGS... 
    local name=$1; shift
    "$scimodel" "$@" --dims 1..4 --sweep --nodes 1000 --format tsv > "$out/data/$name-sweep.tsv"
    "$scimodel" "$@" --dims 1..4 --sweep --sweep-points 400 --nodes 1000000 --format tsv > "$out/data/$name-sweep-log.tsv"
    "$scimodel" "$@" --dims 1..4 --crossover --format tsv > "$out/data/$name-crossover.tsv"
    for term in png svg; do
        gp crossover.gp "sweep='$out/data/$name-sweep.tsv'; xo='$out/data/$name-crossover.tsv'; out='$out/crossover-$name'; title='$name: latency of 1D..4D SCI tori (thesis Figs. 14, 15)'; logx=0; term='$term'"
        gp crossover.gp "sweep='$out/data/$name-sweep-log.tsv'; xo='$out/data/$name-crossover.tsv'; out='$out/crossover-$name-log'; title='$name: up to 10^6 nodes (log scale)'; logx=1; term='$term'"
        written+=("$out/crossover-$name.$term" "$out/crossover-$name-log.$term")
    done
}

crossover_figures current --preset current
crossover_figures enhanced --preset enhanced
if [ -n "$params" ]; then
    name=$(basename "$params" .params)
    crossover_figures "$name" --params "$params"
fi
if [ -n "$bench" ] && [ -n "$params" ]; then
    name=$(basename "$bench" .tsv)
    for term in png svg; do
        gp calibration.gp "data='$bench'; params='$params'; out='$out/calibration-$name'; term='$term'"
        written+=("$out/calibration-$name.$term")
        [ -f "$out/calibration-$name-hops.$term" ] && written+=("$out/calibration-$name-hops.$term")
    done
fi
if [ -n "${VALIDATION:-}" ]; then
    name=$(basename "$VALIDATION" .tsv)
    for term in png svg; do
        gp validation.gp "data='$VALIDATION'; out='$out/$name'; term='$term'"
        written+=("$out/$name.$term")
    done
fi
printf '%s\n' "${written[@]}"
