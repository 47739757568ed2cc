#!/bin/sh
# make bench-coll OSU_COLL=<OSU 5.x mpi/collective directory>: mpibench --op
# (its default, --sync osu) against osu_<op> -f, 8 B..1 MiB, in interleaved
# rounds, each under the measure lock: osu_<op>, mpibench, osu_<op> again (the
# mean of OSU's two launches is its figure, their ratio how far it agrees with itself):
# NPS="2 4" ROUNDS=5 OPS="bcast ..." (default: every op; those without an
# osu_<op> are listed as such).  Compared: osu_*'s Avg Latency (the mean over
# ranks of each rank's mean) against mpibench's mean_ns, the same figure.
# HEAP: both programs' GLIBC_TUNABLES (default below; empty: glibc's own).
set -eu
bin=$1 osu=${2:-}
[ -n "$osu" ] && [ -x "$osu/osu_bcast" ] || {
    echo "coll/bench.sh: give OSU_COLL=<directory with osu_bcast ...> (OSU built beside the project)" >&2
    exit 2; }
nps=${NPS:-${NP:-2 4}} rounds=${ROUNDS:-5}
ops=${OPS:-"barrier bcast reduce allreduce allgather alltoall gather scatter gatherv scatterv
    allgatherv alltoallv reduce_scatter scan exscan"}
. "$(dirname "$0")/bench_common.sh"
# Both programs keep Open MPI's temporary buffers on a never-trimmed heap: by
# default glibc maps or trims them per call as the process's other allocations
# decide (docs/VALIDATION-references.md, 'The collectives against OSU'); HEAP= unsets it.
heap=${HEAP-glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=268435456}
mrun="timeout 600 mpirun --allow-run-as-root --oversubscribe ${heap:+-x GLIBC_TUNABLES=$heap} -np"
for r in $(seq 1 "$rounds"); do
    for np in $nps; do
        for op in $ops; do
            [ -x "$osu/osu_$op" ] || continue
            o="$mrun $np $osu/osu_$op -f -m 8:1048576"
            m="$mrun $np $bin/mpibench --op $op --sizes 8..1048576 -q -o $tmp/mb-$op-$np-$r.tsv ${MBARGS:-}"
            [ "$op" = barrier ] && m="$mrun $np $bin/mpibench --op barrier -q -o $tmp/mb-$op-$np-$r.tsv ${MBARGS:-}"
            # osu_barrier skips 10 repetitions where the others skip 200, and its mean then
            # holds the start-up's slow ones (docs/VALIDATION-references.md, 'The collectives against OSU')
            [ "$op" = barrier ] && o="$mrun $np $osu/osu_barrier -f -x 200"
            flock -x "$lock" sh -c "$bin/scibench --floor | awk '{print \$2}' > $tmp/floor-$op-$np-$r &&
                $o > $tmp/osu-$op-$np-$r 2>&1 && $m && $o > $tmp/osu-$op-$np-$r.b 2>&1"
        done
    done
done
date=$(date -u +%Y-%m-%dT%H:%MZ)
floors=$(cat "$tmp"/floor-* | sort -n | awk '{v[NR] = $1} END {printf "%s..%s ns, median %s", v[1], v[NR], v[int((NR + 1) / 2)]}')
echo "# mpibench --op / osu_<op> -f, P = $nps, $rounds interleaved rounds, $date, load $(cut -d' ' -f1-3 /proc/loadavg), scibench --floor $floors, GLIBC_TUNABLES=${heap:-unset}"
echo "# op procs size osu_avg_ns mb_mean_ns ratio ratio_lo ratio_hi above osu_self (medians over rounds; lo/hi: their range; above: rounds with ratio > 1; osu_self: OSU's second launch over its first)"
for op in $ops; do
    if [ ! -x "$osu/osu_$op" ]; then
        echo "# $op: no osu_$op in $osu"
        continue
    fi
    for np in $nps; do
        for r in $(seq 1 "$rounds"); do
            # osu_barrier prints no size: its one row is size 0
            awk 'FILENAME ~ /\/osu-[^\/]*$/ && $1 ~ /^[0-9.]+$/ { l = FILENAME ~ /\.b$/
                    if (NF == 4) osu[l, 0] = $1 * 1000; else if (NF >= 5) osu[l, $1] = $2 * 1000; next }
                $1 == "coll" && osu[0, $5] > 0 && osu[1, $5] > 0 { o = (osu[0, $5] + osu[1, $5]) / 2
                    print $5, o, $11, $11 / o, osu[1, $5] / osu[0, $5] }' \
                "$tmp/osu-$op-$np-$r" "$tmp/osu-$op-$np-$r.b" "$tmp/mb-$op-$np-$r.tsv"
        done | sort -k1,1n -k4,4g | awk -v op="$op" -v np="$np" "$awk_median"'
            function flush(   i, up) { if (c == 0) return
                for (i = 1; i <= c; i++) up += q[i] > 1
                printf "%-14s %2d %8d %11.1f %11.1f %6.3f %6.3f %6.3f %d/%d %6.3f\n", op, np, k, med(o, c),
                       med(m, c), med(q, c), q[1], q[c], up, c, med(e, c)
                c = 0 }
            $1 != k {flush(); k = $1}
            {c++; o[c] = $2; m[c] = $3; q[c] = $4; e[c] = $5}
            END {flush()}'
    done
done
