#!/bin/sh
# make bench-p2p OSU_PT2PT=<OSU 5.x mpi/pt2pt directory>: mpibench --p2p bibw
# against osu_bibw at 8 B..1 MiB on 2 ranks, ROUNDS (default 3) interleaved
# rounds, each bracketed by scibench --floor (the regime).  OSU's figure is
# a bandwidth, MB/s of one timed loop; mpibench's a median (and a mean) of
# batches, in ns a message: compared as time a message, mpibench / OSU
# (OSU 5.x sweeps 1 B..4 MiB; the sizes compared are picked out).
# The other --p2p modes have no OSU counterpart.  Without OSU_PT2PT: says
# so and exits 0, measuring nothing.
set -eu
bin=$1 osu=${2:-}
if [ -z "$osu" ] || [ ! -x "$osu/osu_bibw" ]; then
    echo "bench-p2p: skipped: set OSU_PT2PT=<directory with osu_bibw> (OSU built beside the project)"
    exit 0
fi
np=2 rounds=${ROUNDS:-3}
. "$(dirname "$0")/../coll/bench_common.sh"
# 18 sizes of bibw take longer than one collective's sweep
mr="timeout 900 mpirun --allow-run-as-root --oversubscribe -np $np"
sizes=8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576
for r in $(seq 1 "$rounds"); do
    # alternate which of the two goes first, so a drift within a round falls on both
    if [ $((r % 2)) = 1 ]; then first=osu; else first=mb; fi
    flock -x "$lock" sh -c "$bin/scibench --floor | awk '{print \$2}' > $tmp/floor-a-$r
        run_osu() { $mr $osu/osu_bibw > $tmp/osu-$r 2>&1; }
        run_mb() { $mr $bin/mpibench --p2p bibw --sizes $sizes --max-time 2 -q -o $tmp/mb-$r.tsv; }
        if [ $first = osu ]; then run_osu && run_mb; else run_mb && run_osu; fi &&
        $bin/scibench --floor | awk '{print \$2}' > $tmp/floor-b-$r"
done
date=$(date -u +%Y-%m-%dT%H:%MZ)
load=$(cut -d' ' -f1-3 /proc/loadavg)
floors=$(cat "$tmp"/floor-* | sort -n | awk '{v[NR] = $1} END {printf "%s..%s ns, median %s", v[1], v[NR], v[int((NR + 1) / 2)]}')
echo "# mpibench --p2p bibw / osu_bibw, 2 ranks, $rounds interleaved rounds, $date, load $load, scibench --floor $floors"
echo "# size osu_ns mb_median_ns ratio ratio_lo ratio_hi mean_ratio (ns a message = size / bandwidth; median over rounds, lo/hi their range)"
for r in $(seq 1 "$rounds"); do
    awk 'FNR == NR && $1 ~ /^[0-9]+$/ && NF >= 2 && $2 > 0 {osu[$1] = $1 * 1000 / $2; next}
        FNR != NR && $1 == "bibw" && ($10 in osu) {
            print $10, osu[$10], $14, $14 / osu[$10], $15 / osu[$10]}' "$tmp/osu-$r" "$tmp/mb-$r.tsv"
done | sort -k1,1n -k4,4n | awk "$awk_median"'
    function flush() { if (c == 0) return
        printf "%7d %10.2f %10.2f %6.3f %6.3f %6.3f %6.3f\n", k, med(o, c), med(m, c), med(q, c), lo, hi,
               med(d, c)
        c = 0 }
    $1 != k {flush(); k = $1}
    {c++; o[c] = $2; m[c] = $3; q[c] = $4; d[c] = $5; if (c == 1 || $4 < lo) lo = $4; if (c == 1 || $4 > hi) hi = $4}
    END {flush()}'
