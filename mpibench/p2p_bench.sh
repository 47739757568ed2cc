#!/bin/sh
# make bench-p2p OSU_PT2PT=<OSU 5.x mpi/pt2pt directory>: every mpibench --p2p
# mode (MODES, default all) against its OSU reference at 8 B..1 MiB on 2
# ranks, ROUNDS (default 3) interleaved rounds, each bracketed by scibench
# --floor (the regime).  The references: bw osu_bw, bibw osu_bibw, and
# osu_latency for the modes OSU 5.x has no program of its own for (bsend,
# rsend, issend, iprobe: half a round trip; sendrecv, sendrecv-replace: one
# exchange).  OSU's figure is one timed loop's mean (a latency, or MB/s
# turned into ns a message: size / bandwidth); mpibench's the median of its
# batches (mean_ratio: its mean).  Without OSU_PT2PT: says so, exits 0.
set -eu
bin=$1 osu=${2:-}
if [ -z "$osu" ] || [ ! -x "$osu/osu_latency" ] || [ ! -x "$osu/osu_bw" ] || [ ! -x "$osu/osu_bibw" ]; then
    echo "bench-p2p: skipped: set OSU_PT2PT=<directory with osu_latency, osu_bw, osu_bibw> (OSU built beside the project)"
    exit 0
fi
np=2 rounds=${ROUNDS:-3}
modes=${MODES:-"bsend rsend issend iprobe sendrecv sendrecv-replace bw bibw"}
. "$(dirname "$0")/../coll/bench_common.sh"
# 18 sizes of a window mode take longer than one collective's sweep
mr="timeout 900 mpirun --allow-run-as-root --oversubscribe -np $np"
sizes=8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576
ref() { case $1 in bw) echo osu_bw ;; bibw) echo osu_bibw ;; *) echo osu_latency ;; esac; }
refs=$(for m in $modes; do ref "$m"; done | sort -u | tr '\n' ' ')
# one round: each reference, then the modes it serves; every other round
# in the reverse order, so a drift within a round falls on both sides
round() {
    steps=""
    for o in $refs; do
        steps="$steps osu:$o"
        for m in $modes; do [ "$(ref "$m")" = "$o" ] && steps="$steps mb:$m"; done
    done
    [ $(($1 % 2)) = 1 ] || steps=$(echo $steps | tr ' ' '\n' | sed '1!G;h;$!d' | tr '\n' ' ')
    for s in $steps; do
        case $s in
            osu:*) $mr "$osu/${s#osu:}" > "$tmp/${s#osu:}-$1" 2>&1 ;;
            mb:*) $mr "$bin/mpibench" --p2p "${s#mb:}" --sizes $sizes --max-time 1 -q \
                      -o "$tmp/mb-${s#mb:}-$1.tsv" ;;
        esac
    done
}
floor() { "$bin/scibench" --floor | awk '{print $2}'; }
for r in $(seq 1 "$rounds"); do
    (exec 9>>"$lock"; flock -x 9; floor > "$tmp/floor-a-$r"; round "$r"; floor > "$tmp/floor-b-$r")
done
date=$(date -u +%Y-%m-%dT%H:%MZ)
load=$(cut -d' ' -f1-3 /proc/loadavg)
floors=$(cat "$tmp"/floor-* | sort -n | awk '{v[NR] = $1} END {printf "%s..%s ns, median %s", v[1], v[NR], v[int((NR + 1) / 2)]}')
echo "# mpibench --p2p / OSU, 2 ranks, $rounds interleaved rounds, $date, load $load, scibench --floor $floors"
echo "# mode reference size osu_ns mb_median_ns ratio ratio_lo ratio_hi mean_ratio (ns a message; median over rounds, lo/hi their range)"
for m in $modes; do
    o=$(ref "$m")
    for r in $(seq 1 "$rounds"); do
        # osu_latency: us; osu_bw, osu_bibw: MB/s over all messages (bibw: both ways)
        awk -v lat="$([ "$o" = osu_latency ] && echo 1 || echo 0)" -v mode="$m" '
            FNR == NR && $1 ~ /^[0-9]+$/ && NF >= 2 && $2 > 0 {osu[$1] = lat ? $2 * 1000 : $1 * 1000 / $2; next}
            FNR != NR && $1 == mode && ($10 in osu) {
                print $10, osu[$10], $14, $14 / osu[$10], $15 / osu[$10]}' "$tmp/$o-$r" "$tmp/mb-$m-$r.tsv"
    done | sort -k1,1n -k4,4n | awk -v mode="$m" -v ref="$o" "$awk_median"'
        function flush() { if (c == 0) return
            printf "%-16s %-11s %7d %10.2f %10.2f %6.3f %6.3f %6.3f %6.3f\n", mode, ref, k, med(o, c),
                   med(m, c), med(q, c), lo, hi, med(d, c)
            c = 0 }
        $1 != k {flush(); k = $1}
        {c++; o[c] = $2; m[c] = $3; q[c] = $4; d[c] = $5; if (c == 1 || $4 < lo) lo = $4; if (c == 1 || $4 > hi) hi = $4}
        END {flush()}'
done
