#!/bin/sh
# make bench-coll OSU_COLL=<OSU 5.x mpi/collective directory>: mpibench --op
# against OSU's own collective benchmarks, interleaved rounds (each under
# the measure lock, < 2 min), per size the median over rounds of
# mpibench's median (slowest rank per repetition) / osu_<op> -f's Max
# Latency (slowest rank's mean).  NP=2 ROUNDS=3 OPS="bcast allreduce ...".
set -eu
bin=$1 osu=${2:-}
[ -n "$osu" ] && [ -x "$osu/osu_bcast" ] || {
    echo "coll/bench.sh: give OSU_COLL=<directory with osu_bcast ...> (OSU built beside the project)" >&2
    exit 2; }
np=${NP:-2} rounds=${ROUNDS:-3} ops=${OPS:-"bcast allreduce alltoall gather"}
sizes=8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536
lock=${MEASURE_LOCK:-/work/measure.lock}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mr="timeout 100 mpirun --allow-run-as-root --oversubscribe -np $np"
for r in $(seq 1 "$rounds"); do
    for op in $ops; do
        flock -x "$lock" sh -c "$mr $osu/osu_$op -f -m 8:65536 > $tmp/osu-$op-$r 2>&1 &&
            $mr $bin/mpibench --op $op --sizes $sizes --node-times -q -o $tmp/mb-$op-$r.tsv ${MBARGS:-}"
    done
done
echo "# mpibench --op / osu_<op> (-f Max Latency), NP=$np, median of $rounds interleaved rounds"
echo "# op size mpibench_ns osu_max_ns ratio"
for op in $ops; do
    for r in $(seq 1 "$rounds"); do
        awk -v r="$r" 'FNR == NR && $1 ~ /^[0-9]+$/ && NF >= 4 {osu[$1] = $4 * 1000; next}
            FNR != NR && $1 == "coll" && ($5 in osu) {print $5, $10, osu[$5], $10 / osu[$5]}' \
            "$tmp/osu-$op-$r" "$tmp/mb-$op-$r.tsv"
    done | sort -n -k1,1 -k4,4 | awk -v op="$op" -v n="$rounds" '
        {k = $1; c[k]++; v[k, c[k]] = $0}
        END {for (k in c) {split(v[k, int((c[k] + 1) / 2)], f, " ");
             printf "%s %d %.1f %.1f %.3f\n", op, f[1], f[2], f[3], f[4]}}' | sort -k2,2n
done
