#!/bin/sh
# make bench-coll OSU_COLL=<OSU 5.x mpi/collective directory>: mpibench --op
# against osu_<op> -f, interleaved rounds, NP=2 ROUNDS=5 OPS="bcast ...".
# Compared as osu_* -f define Max Latency (the largest rank's MEAN, column
# node_mean_ns) and run (200 untimed, then 1000 timed repetitions);
# median_ns (the slowest rank per repetition) beside it.
set -eu
bin=$1 osu=${2:-}
[ -n "$osu" ] && [ -x "$osu/osu_bcast" ] || {
    echo "coll/bench.sh: give OSU_COLL=<directory with osu_bcast ...> (OSU built beside the project)" >&2
    exit 2; }
np=${NP:-2} rounds=${ROUNDS:-5} ops=${OPS:-"bcast allreduce alltoall gather"}
. "$(dirname "$0")/bench_common.sh"
for r in $(seq 1 "$rounds"); do
    for op in $ops; do
        flock -x "$lock" sh -c "$bin/scibench --floor | awk '{print \$2}' > $tmp/floor-$op-$r &&
            $mr $osu/osu_$op -f -m 8:65536 > $tmp/osu-$op-$r 2>&1 &&
            $mr $bin/mpibench --op $op --sizes $sizes --node-times --warmup 200 --min-samples 1000 --batch 1000 -q \
                -o $tmp/mb-$op-$r.tsv ${MBARGS:-}"
    done
done
date=$(date -u +%Y-%m-%dT%H:%MZ)
floors=$(cat "$tmp"/floor-* | sort -n | awk '{v[NR] = $1} END {printf "%s..%s ns, median %s", v[1], v[NR], v[int((NR + 1) / 2)]}')
echo "# mpibench --op / osu_<op> -f, NP=$np, $rounds interleaved rounds, $date, scibench --floor $floors"
echo "# op size osu_max_ns mb_node_mean_max_ns ratio ratio_lo ratio_hi median_ratio (median over rounds; lo/hi: their range)"
for op in $ops; do
    for r in $(seq 1 "$rounds"); do
        awk 'FNR == NR && $1 ~ /^[0-9]+$/ && NF >= 4 {osu[$1] = $4 * 1000; next}
            FNR != NR && $1 == "coll" && ($5 in osu) && NF >= 17 {
                n = split($17, m, ","); mx = 0
                for (i = 1; i <= n; i++) if (m[i] + 0 > mx) mx = m[i] + 0
                print $5, osu[$5], mx, mx / osu[$5], $10 / osu[$5]}' \
            "$tmp/osu-$op-$r" "$tmp/mb-$op-$r.tsv"
    done | sort -k1,1n -k4,4n | awk -v op="$op" "$awk_median"'
        function flush(   r) { if (c == 0) return
            r = med(q, c)
            printf "%-9s %6d %9.1f %9.1f %6.3f %6.3f %6.3f %6.3f\n", op, k, med(o, c), med(m, c),
                   r, q[1], q[c], med(d, c)
            c = 0 }
        $1 != k {flush(); k = $1}
        {c++; o[c] = $2; m[c] = $3; q[c] = $4; d[c] = $5}
        END {flush()}'
done
