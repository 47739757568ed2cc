#!/bin/sh
# make bench-coll-predict: the prediction from a LogP file against the
# measurement, both taken back to back under one measure lock a round (the
# machine's latency regime changes within seconds), ROUNDS=3, NP=2,
# OPS="bcast allreduce alltoall", LOGP_ARGS="--mpi-send isend" to vary.
set -eu
bin=$1
np=${NP:-2} rounds=${ROUNDS:-3} ops=${OPS:-"bcast allreduce alltoall"}
. "$(dirname "$0")/bench_common.sh"
for r in $(seq 1 "$rounds"); do
    flock -x "$lock" sh -c "$bin/scibench --floor | awk '{print \$2}' > $tmp/floor-$r &&
        $mr $bin/mpibench --pattern logp --sizes 8..65536 --max-diff 0.99 ${LOGP_ARGS:-} -q \
            -o $tmp/logp-$r.tsv &&
        for op in $ops; do
            for sync in window barrier; do
                $mr $bin/mpibench --op \$op --sync \$sync --sizes $sizes --node-times -q -o $tmp/\$op-\$sync-$r.tsv
            done
        done"
done
floors=$(cat "$tmp"/floor-* | sort -n | awk '{v[NR] = $1} END {printf "%s..%s ns", v[1], v[NR]}')
echo "# calibrate --collectives (mpibench --op) --logp (mpibench --pattern logp ${LOGP_ARGS:-}), NP=$np,"
echo "# $rounds rounds, $(date -u +%Y-%m-%dT%H:%MZ), scibench --floor $floors; predicted/measured - 1 in %"
echo "# op sync size measured_ns predicted_ns diff_pct diff_lo diff_hi (medians over rounds, lo/hi their range)"
for op in $ops; do
    for sync in window barrier; do
        for r in $(seq 1 "$rounds"); do
            "$bin/calibrate" --collectives "$tmp/$op-$sync-$r.tsv" --logp "$tmp/logp-$r.tsv" |
                awk 'NF == 5 && $1 ~ /^[0-9]+$/ {sub("%", "", $5); print $1, $3, $4, $5}'
        done | sort -k1,1n -k4,4n | awk -v op="$op" -v sync="$sync" "$awk_median"'
            function flush(   d) { if (c == 0) return
                d = med(q, c)
                printf "%-9s %-7s %6d %9.1f %9.1f %+6.1f %+6.1f %+6.1f\n", op, sync, k, med(m, c),
                       med(p, c), d, q[1], q[c]
                c = 0 }
            $1 != k {flush(); k = $1}
            {c++; m[c] = $2; p[c] = $3; q[c] = $4}
            END {flush()}'
    done
done
