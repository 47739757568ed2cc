#!/bin/bash
# testbed/campaign.sh: the testbed's measurements and fits, round by round
# (docs/testbed.md, "The figures").  Every round measures, one testbed after
# another, rings of 2, 4, 5 and 6 nodes, a 2x2 torus, a 6-node ring with
# shortest-way routes and the rings of 2, 4 and 6 again with every link at
# RATE; then fits rings 2, 4, 6 + torus, validates on ring 5, and fits the
# rate-limited rings.  Each mpibench run holds the measurement lock (flock -x)
# for itself only.
#
#   testbed/campaign.sh OUTDIR [ROUNDS] [BINDIR]
#   env: SIZES (default 1..65536), MAX_TIME (per run, default 12),
#        RATE (default 1gbit), LOCK (default /work/measure.lock, "" for none),
#        NETS (default "r2 r4 r6 t22 r5 b6 q2 q4 q6")
set -u
out=${1:?usage: campaign.sh OUTDIR [ROUNDS] [BINDIR]}
rounds=${2:-5}
bin=$(cd "${3:-bin}" && pwd)
SIZES=${SIZES:-1..65536} MAX_TIME=${MAX_TIME:-12} RATE=${RATE:-1gbit}
LOCK=${LOCK-/work/measure.lock}
NETS=${NETS:-r2 r4 r6 t22 r5 b6 q2 q4 q6}
tb=$bin/scitestbed
mkdir -p "$out"
prefix=c$(($$ % 9000 + 1000))

# net -> scitestbed up options and mpibench topology
up_opts() {
    case $1 in
        r*) echo "--ring ${1#r}" ;;
        b*) echo "--ring ${1#b} --links bi" ;;
        q*) echo "--ring ${1#q} --rate $RATE" ;;
        t*) local s=${1#t}; echo "--torus ${s:0:1}x${s:1:1}" ;;
    esac
}
topo_opts() {
    case $1 in
        r*|b*|q*) echo "--ring ${1:1}" ;;
        t*) local s=${1#t}; echo "--torus ${s:0:1}x${s:1:1}" ;;
    esac
}

cleanup() { for n in $NETS; do "$tb" --name "$prefix$n" down 2>/dev/null; done; }
trap 'cleanup; exit 143' INT TERM HUP
trap cleanup EXIT
for n in $NETS; do
    # shellcheck disable=SC2046
    "$tb" --name "$prefix$n" up $(up_opts "$n") || { echo "campaign: up $n failed" >&2; exit 1; }
done

locked() { if [ -n "$LOCK" ]; then flock -x "$LOCK" "$@"; else "$@"; fi; }

for ((r = 1; r <= rounds; r++)); do
    for n in $NETS; do
        f=$out/$n-r$r.tsv
        start=$(date -u +%T)
        # shellcheck disable=SC2046
        locked "$tb" --name "$prefix$n" run --timeout 300 -- "$bin/mpibench" $(topo_opts "$n") \
            --route network --all-dst --sizes "$SIZES" --interleave-sizes --max-time "$MAX_TIME" \
            -q -o "$f" || { echo "campaign: round $r, $n failed" >&2; exit 1; }
        echo "campaign: round $r $n $start-$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >&2
    done
done
