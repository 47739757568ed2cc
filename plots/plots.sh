#!/usr/bin/env bash
# plots.sh: draws every figure with gnuplot from scimodel output (and, when
# given, a bench TSV and a params file).  Called by `make plots`.
#
#   plots.sh OUTDIR SCIMODEL [PARAMS] [BENCH]
#   LOGP="a.tsv b.tsv" plots.sh ...   LogP files for the logp figure
#   VALIDATION=FILE plots.sh ...   also calibrate --full's held-out figure
#   FIG5="API.tsv MPI.tsv" plots.sh ...   the thesis's Fig. 5 from two bench
#       files of a 2-node ring (scibench and mpibench, --pattern ow or pp)
#   FULLDATA=PREFIX plots.sh OUT SCIMODEL PARAMS   the thesis's Figs. 12 and
#       13b from calibrate --full's PREFIX-ring*.tsv and PREFIX-torus*.tsv
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
# the thesis's figures (docs/VALIDATION.md, 'The thesis's figures')
stat_column() {   # the params file's fit_statistic as a bench column (median default)
    case $(sed -n 's/^fit_statistic *= *"\(.*\)"/\1/p' "$1" 2>/dev/null) in
        min) echo 13 ;; mean) echo 15 ;; *) echo 14 ;;
    esac
}
fig5() {   # API.tsv MPI.tsv: size, then per file the median and MB/s (first pair)
    local what
    what=$(awk -F'\t' '!/^#/ { print ($1 == "ow" ? "one-way" : $1 == "pp" ? "ping-pong" : $1); exit }' "$1")
    awk -F'\t' 'FNR == 1 { f++ } /^#/ { next }
        !(f in s) { s[f] = $2; d[f] = $3 }
        $2 == s[f] && $3 == d[f] && $14 > 0 { v[f, $10] = sprintf("%s\t%.6g", $14, $10 / $14 * 1000); z[$10] = 1 }
        END { print "size_bytes\tapi_ns\tapi_MBps\tmpi_ns\tmpi_MBps"
              for (m in z) printf "%d\t%s\t%s\n", m, ((1, m) in v) ? v[1, m] : "-\t-",
                                                        ((2, m) in v) ? v[2, m] : "-\t-" }' "$1" "$2" |
        sort -n > "$out/data/thesis-fig5.tsv"
    for term in png svg; do
        gp thesis-fig5.gp thesis-fig5 "data='$out/data/thesis-fig5.tsv'; what='$what'; term='$term'"
        written+=("$out/thesis-fig5.$term")
    done
}
FIG13_SIZE=64   # the thesis's Fig. 13b: 64-byte messages
fig12_13b() {   # PREFIX PARAMS
    local prefix=$1 p=$2 lp col rings f n h m
    rings=$(shopt -s nullglob; echo "$prefix"-ring*.tsv)
    if [ -z "$rings" ]; then
        echo "plots: no $prefix-ring*.tsv (calibrate --full's data): thesis Figs. 12 and 13b skipped" >&2
        return
    fi
    lp=$(sed -n 's/^lp_ns *= *//p' "$p")
    col=$(stat_column "$p")
    # shellcheck disable=SC2086
    awk -F'\t' -v col="$col" -v lp="$lp" -f "$here/components.awk" $rings \
        $(shopt -s nullglob; echo "$prefix"-torus*.tsv) > "$out/data/thesis-fig12.tsv"
    for term in png svg; do
        gp thesis-fig12.gp thesis-fig12 "data='$out/data/thesis-fig12.tsv'; params='$p'; term='$term'"
        written+=("$out/thesis-fig12.$term")
    done
    # each ring's symmetric pair at FIG13_SIZE: nodes, measured, the model's PP
    printf 'nodes\tmeasured_ns\tmodel_ns\n' > "$out/data/thesis-fig13b-measured.tsv"
    for f in $rings; do
        n=$(sed -n 's/^# topology: ring \([0-9]*\)$/\1/p' "$f")
        read -r h m < <(awk -F'\t' -v col="$col" -v size=$FIG13_SIZE \
            '!/^#/ && $1 == "pp" && $10 == size { print $4, $col; exit }' "$f") || continue
        printf '%s\t%s\t%s\n' "$n" "$m" "$(model_pp "$p" "$n" "$h")" >> "$out/data/thesis-fig13b-measured.tsv"
    done
    sort -n -o "$out/data/thesis-fig13b-measured.tsv" "$out/data/thesis-fig13b-measured.tsv"
    if [ "$(wc -l < "$out/data/thesis-fig13b-measured.tsv")" -lt 2 ]; then
        echo "plots: no ring in $prefix-ring*.tsv has a $FIG13_SIZE-byte point: thesis Fig. 13b skipped" >&2
        return
    fi
    printf 'nodes\tmodel_ns\n' > "$out/data/thesis-fig13b-model.tsv"
    for n in 2 4 6 8 10 12 16 20 24 32 40 48 64 80 96 128 160 200 256 320 400 512 640 800 1000; do
        printf '%s\t%s\n' "$n" "$(model_pp "$p" "$n" $((n / 2)))" >> "$out/data/thesis-fig13b-model.tsv"
    done
    for term in png svg; do
        gp thesis-fig13b.gp thesis-fig13b "model='$out/data/thesis-fig13b-model.tsv'; measured='$out/data/thesis-fig13b-measured.tsv'; size=$FIG13_SIZE; term='$term'"
        written+=("$out/thesis-fig13b.$term")
    done
}
model_pp() {   # PARAMS N HOPS: scimodel's ping-pong latency / 2 on ring N, ns
    "$scimodel" --params "$1" --shape "$2" --hops "$3" --size $FIG13_SIZE --format tsv |
        awk -F'\t' '$1 == "transaction" { printf "%.6g\n", $5 / 2 }'
}
if [ -n "${FIG5:-}" ]; then
    read -r fig5_api fig5_mpi <<< "$FIG5"
    fig5 "$fig5_api" "$fig5_mpi"
fi
if [ -n "${FULLDATA:-}" ] && [ -n "$params" ]; then
    fig12_13b "$FULLDATA" "$params"
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
        # LogP/MPI's logp_plot -n: the plain averages, as the paper drew them
        gp logp.gp "logp-averages" "files='$logp'; term='$term'; bars=0"
        written+=("$out/logp.$term" "$out/logp-averages.$term")
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
