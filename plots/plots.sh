#!/usr/bin/env bash
# plots.sh: draws every figure with gnuplot from scimodel output (and, when
# given, a bench TSV and a params file).  Called by `make plots`.
#
#   plots.sh OUTDIR SCIMODEL [PARAMS] [BENCH]
#   LOGP="a.tsv b.tsv" plots.sh ...   LogP files for the logp figure
#   VALIDATION=FILE plots.sh ...   also calibrate --full's held-out figure
#
# Fails (exit 1) if gnuplot fails or prints anything on stderr; a figure that
# fails is absent, never empty or partial (gp.sh).
set -euo pipefail
out=$1 scimodel=$2 params=${3:-} bench=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/data"
written=()

. "$here/gp.sh"
gp() { gp_draw plots "$here/$1" "$out" "$2" "$3"; }   # gp SCRIPT NAME VAR-ASSIGNMENTS

crossover_figures() {   # NAME SCIMODEL-PARAMETER-ARGS... 
    local name=$1; shift
    "$scimodel" "$@" --dims 1..4 --sweep --nodes 1000 --format tsv > "$out/data/$name-sweep.tsv"
    "$scimodel" "$@" --dims 1..4 --sweep --sweep-points 400 --nodes 1000000 --format tsv > "$out/data/$name-sweep-log.tsv"
    "$scimodel" "$@" --dims 1..4 --crossover --format tsv > "$out/data/$name-crossover.tsv"
    for term in png svg; do
        gp crossover.gp "crossover-$name" "sweep='$out/data/$name-sweep.tsv'; xo='$out/data/$name-crossover.tsv'; title='$name: latency of 1D..4D SCI tori (thesis Figs. 14, 15)'; logx=0; term='$term'"
        gp crossover.gp "crossover-$name-log" "sweep='$out/data/$name-sweep-log.tsv'; xo='$out/data/$name-crossover.tsv'; title='$name: up to 10^6 nodes (log scale)'; logx=1; term='$term'"
        written+=("$out/crossover-$name.$term" "$out/crossover-$name-log.$term")
    done
}

# Fig. 14-style crossovers per traffic pattern, for each kind of links
pattern_figures() {   # PRESET LINKS
    local tag=$1-$2 withxo=" "
    for pat in uniform neighbor tornado complement; do
        "$scimodel" --preset "$1" --links "$2" --pattern "$pat" --dims 1..4 --sweep \
            --sweep-points 300 --nodes 1000000 --format tsv > "$out/data/$tag-$pat-sweep.tsv"
        "$scimodel" --preset "$1" --links "$2" --pattern "$pat" --metric avg --dims 1..4 \
            --crossover --format tsv > "$out/data/$tag-$pat-xo.tsv"
        if awk -F'\t' 'NR > 1 && $6 != "-" && $6 <= 1000000 { f = 1 } END { exit !f }' \
            "$out/data/$tag-$pat-xo.tsv"; then withxo+="$pat "; fi
    done
    for term in png svg; do
        gp patterns.gp "patterns-$tag" "dir='$out/data'; tag='$tag'; withxo='$withxo'; title='$1 preset, $2 links: mean latency of 1D..4D tori per traffic pattern'; term='$term'"
        written+=("$out/patterns-$tag.$term")
    done
}

# latency under load: uniform traffic near LOAD_NODES nodes, and saturation vs N
LOAD_NODES=4096
load_figures() {   # PRESET LINKS
    local tag=$1-$2
    "$scimodel" --preset "$1" --links "$2" --load --nodes "$LOAD_NODES" --dims 1..4 \
        --utilisation 0.05..0.95:0.05 --format tsv > "$out/data/load-$tag.tsv"
    : > "$out/data/load-sat-$tag.tsv"
    for n in 16 64 256 1024 4096 16384 65536 262144 1000000; do
        "$scimodel" --preset "$1" --links "$2" --load --nodes "$n" --dims 1..4 \
            --utilisation 0.5 --format tsv |
            awk -F'\t' 'NR > 1 { k = split($2, a, "x"); N = 1; for (i = 1; i <= k; i++) N *= a[i];
                                 printf "%d\t%d\t%.9g\n", $1, N, $8 / $6 }' \
            >> "$out/data/load-sat-$tag.tsv"
    done
    sort -k1,1n -k2,2n "$out/data/load-sat-$tag.tsv" |
        awk -F'\t' 'NR > 1 && $1 != d { printf "\n\n" } { d = $1; print }' > "$out/data/load-sat.tmp"
    mv "$out/data/load-sat.tmp" "$out/data/load-sat-$tag.tsv"
    for term in png svg; do
        gp load.gp "load-$tag" "curves='$out/data/load-$tag.tsv'; sat='$out/data/load-sat-$tag.tsv'; nodes=$LOAD_NODES; title='$1 preset, $2 links, uniform traffic, 64-byte messages, 1 byte/ns links'; term='$term'"
        written+=("$out/load-$tag.$term")
    done
}

crossover_figures current --preset current
crossover_figures enhanced --preset enhanced
for preset in current enhanced; do
    for links in uni bi; do
        pattern_figures "$preset" "$links"
    done
done
load_figures current uni
load_figures current bi
if [ -n "$params" ]; then
    name=$(basename "$params" .params)
    crossover_figures "$name" --params "$params"
fi
if [ -n "$bench" ] && [ -n "$params" ]; then
    name=$(basename "$bench" .tsv)
    for term in png svg; do
        gp calibration.gp "calibration-$name" "data='$bench'; params='$params'; term='$term'"
        written+=("$out/calibration-$name.$term")
        [ -f "$out/calibration-$name-hops.$term" ] && written+=("$out/calibration-$name-hops.$term")
    done
fi
# LogP figure: LOGP="a.tsv b.tsv" (one panel per file), else the samples
# in data/sample/logp-*.tsv (installed beside plots/ as share/scitorus/data)
samples=$(shopt -s nullglob; echo "$here"/../data/sample/logp-*.tsv)
logp=${LOGP:-$samples}
if [ -z "${logp// /}" ]; then
    echo "plots: no LogP files (LOGP=\"a.tsv ...\"; none in $here/../data/sample): LogP figure skipped" >&2
else
    for term in png svg; do
        gp logp.gp "logp" "files='$logp'; term='$term'"
        written+=("$out/logp.$term")
    done
fi
if [ -n "${VALIDATION:-}" ]; then
    name=$(basename "$VALIDATION" .tsv)
    for term in png svg; do
        gp validation.gp "$name" "data='$VALIDATION'; term='$term'"
        written+=("$out/$name.$term")
    done
fi
printf '%s\n' "${written[@]}"
