#!/bin/sh
# make bench-p2p OSU_PT2PT=<OSU 5.x mpi/pt2pt directory> [SKAMPI=<skampi>
# SKAMPI_SKI=<parameter file>]: every mpibench --p2p mode (MODES, default all)
# against its reference at 8 B..1 MiB on 2 ranks, ROUNDS (default 3)
# interleaved rounds, each bracketed by scibench --floor (the regime), each
# reference launched before and after its modes.  The
# references (docs/VALIDATION-references.md): bw osu_bw, bibw osu_bibw; issend, iprobe,
# sendrecv, sendrecv-replace and bsend SKaMPI's ping-pongs of the same calls (bsend
# with a buffer attached by bin/test/bsend_attach.so); rsend, which neither has,
# osu_latency labelled fallback:osu_latency (as are SKaMPI's without SKAMPI).  Both
# figures are means in ns a message, each side by the reference's statistic
# (mbstat): the reference's (the mean of its two launches; OSU: one timed loop
# each, SKaMPI: the middle half of its repetitions) against mpibench's mean_ns
# (its equal batches' total time over their messages, SKaMPI's middle half
# of them where SKaMPI is the reference); median_ratio
# is mpibench's median's; ref_self the second launch's figure over the first's (how
# far the reference agrees with itself).  MAX_TIME (default 1): mpibench's --max-time, a
# point's.  Without OSU_PT2PT: says so, exits 0.
set -eu
bin=$1 osu=${2:-}
if [ -z "$osu" ] || [ ! -x "$osu/osu_latency" ] || [ ! -x "$osu/osu_bw" ] || [ ! -x "$osu/osu_bibw" ]; then
    echo "bench-p2p: skipped: set OSU_PT2PT=<directory with osu_latency, osu_bw, osu_bibw> (OSU built beside the project)"
    exit 0
fi
sk=${SKAMPI:-} ski=${SKAMPI_SKI:-}
if [ -n "$sk" ]; then
    # the parameter file must time in ns, reuse one pair of buffers as
    # mpibench does, and name the measurements below
    if [ ! -x "$sk" ] || [ ! -r "$ski" ] || ! grep -q '^ *set_unit(1000000000.0)' "$ski" ||
        ! grep -q '^ *switch_buffer_cycling_off()' "$ski"; then
        echo "bench-p2p: SKAMPI=$sk: needs an executable and SKAMPI_SKI=<.ski file with set_unit(1000000000.0) and switch_buffer_cycling_off()> (docs/VALIDATION-references.md)" >&2
        exit 2
    fi
    # its Iprobe ping-pong returns the whole loop, not a loop's iteration
    iprobe_its=$(sed -n 's/.*Pingpong_Send_Iprobe_Recv([^,]*,[^,]*,[^,]*, *\([0-9][0-9]*\) *).*/\1/p' "$ski" | head -n 1)
    # its Bsend ping-pong attaches no buffer: a shim attaches one at MPI_Init
    attach=$(cd "$bin" && pwd)/test/bsend_attach.so skbsend=""
    if grep -q 'Pingpong_Bsend_Recv' "$ski"; then
        [ -r "$attach" ] || { echo "bench-p2p: $ski measures Pingpong_Bsend_Recv: needs $attach (make $attach)" >&2; exit 2; }
        skbsend=1
    fi
fi
np=2 rounds=${ROUNDS:-3}
modes=${MODES:-"bsend rsend issend iprobe sendrecv sendrecv-replace bw bibw"}
. "$(dirname "$0")/../coll/bench_common.sh"
# 18 sizes of a window mode take longer than one collective's sweep
mr="timeout 900 mpirun --allow-run-as-root --oversubscribe -np $np"
sizes=8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576
ref() {
    case $1 in
        bw) echo osu_bw ;;
        bibw) echo osu_bibw ;;
        issend | iprobe | sendrecv | sendrecv-replace) [ -n "$sk" ] && echo skampi || echo fallback:osu_latency ;;
        bsend) [ -n "$sk" ] && [ -n "$skbsend" ] && echo skampi || echo fallback:osu_latency ;;
        *) echo fallback:osu_latency ;;
    esac
}
# SKaMPI's measurement of a mode, and how many messages its time is: a round
# trip 2; Iprobe's loop 2 an iteration, and its one more send, which puts the
# figure up to 1 / (2 iterations) above.
skname() {
    case $1 in
        issend) echo "Pingpong_Issend_Recv 2" ;;
        bsend) echo "Pingpong_Bsend_Recv 2" ;;
        iprobe) echo "Pingpong_Send_Iprobe_Recv $((2 * ${iprobe_its:-1}))" ;;
        sendrecv) echo "Pingpong_Sendrecv 1" ;;
        sendrecv-replace) echo "Pingpong_Sendrecv_replace 1" ;;
    esac
}
# mpibench's options for a mode: its reference's statistic.  SKaMPI reports
# the mean of the middle half of its repetitions (dropping a quarter at each
# end), so mpibench drops the same share of its batches; OSU's is a plain mean.
mbstat() { [ "$(ref "$1")" != skampi ] || echo "--cut-quantile 0.25"; }
refs=$(for m in $modes; do ref "$m"; done | sort -u | tr '\n' ' ')
# one round: each reference, the modes it serves, the reference again (its
# two launches bracket the modes: their mean is the reference's figure, and
# their ratio how far it agrees with itself); every other round in the
# reverse order, so a drift within a round falls on both sides
round() {
    steps=""
    for o in $refs; do
        steps="$steps ref:$o:a"
        for m in $modes; do [ "$(ref "$m")" = "$o" ] && steps="$steps mb:$m"; done
        steps="$steps ref:$o:b"
    done
    [ $(($1 % 2)) = 1 ] || steps=$(echo $steps | tr ' ' '\n' | sed '1!G;h;$!d' | tr '\n' ' ')
    for s in $steps; do
        case $s in
            ref:skampi:*) $mr ${skbsend:+-x LD_PRELOAD=$attach} "$sk" -i "$ski" \
                              -o "$tmp/skampi-$1${s##*:}" > "$tmp/skampi-$1${s##*:}.log" 2>&1 ;;
            ref:*) x=${s%:*} && $mr "$osu/${x##*:}" > "$tmp/${x#ref:}-$1${s##*:}" 2>&1 ;;
            mb:*) $mr "$bin/mpibench" --p2p "${s#mb:}" $(mbstat "${s#mb:}") --sizes $sizes \
                      --max-time "${MAX_TIME:-1}" -q \
                      -o "$tmp/mb-${s#mb:}-$1.tsv" ;;
        esac
    done
}
# refns MODE ROUND LAUNCH: "size ns-a-message" from the mode's reference in
# that round's launch a or b
refns() {
    o=$(ref "$1") f=$tmp/$(ref "$1")-$2$3
    case $o in
        skampi) set -- $(skname "$1")
            awk -v name="\"$1\"" -v per="$2" '$2 == "begin" && $4 == name {on = 1; next}
                $2 == "end" {on = 0} on && $1 == "count=" && $4 > 0 {print $3, $4 / per}' "$f" ;;
        # osu_latency: us; osu_bw, osu_bibw: MB/s over all messages (bibw: both ways)
        *osu_latency) awk '$1 ~ /^[0-9]+$/ && NF >= 2 && $2 > 0 {print $1, $2 * 1000}' "$f" ;;
        *) awk '$1 ~ /^[0-9]+$/ && NF >= 2 && $2 > 0 {print $1, $1 * 1000 / $2}' "$f" ;;
    esac
}
floor() { "$bin/scibench" --floor | awk '{print $2}'; }
for r in $(seq 1 "$rounds"); do
    (exec 9>>"$lock"; flock -x 9; floor > "$tmp/floor-a-$r"; round "$r"; floor > "$tmp/floor-b-$r")
done
date=$(date -u +%Y-%m-%dT%H:%MZ)
load=$(cut -d' ' -f1-3 /proc/loadavg)
floors=$(cat "$tmp"/floor-* | sort -n | awk '{v[NR] = $1} END {printf "%s..%s ns, median %s", v[1], v[NR], v[int((NR + 1) / 2)]}')
echo "# mpibench --p2p / its reference, 2 ranks, $rounds interleaved rounds, $date, load $load, scibench --floor $floors"
echo "# mode reference size ref_ns mb_mean_ns ratio ratio_lo ratio_hi median_ratio ref_self (ns a message, mean over mean, against SKaMPI the middle halves' means; median over rounds, lo/hi their range; ref_self: the reference's second launch over its first)"
for m in $modes; do
    o=$(ref "$m")
    for r in $(seq 1 "$rounds"); do
        refns "$m" "$r" b > "$tmp/refb"
        refns "$m" "$r" a | awk -v mode="$m" -v b="$tmp/refb" '
            BEGIN {while ((getline l < b) > 0) {split(l, f, " "); rb[f[1]] = f[2]}}
            FNR == NR {if ($1 in rb) {ref[$1] = ($2 + rb[$1]) / 2; self[$1] = rb[$1] / $2}; next}
            $1 == mode && ($10 in ref) {print $10, ref[$10], $15, $15 / ref[$10], $14 / ref[$10], self[$10]}' - "$tmp/mb-$m-$r.tsv"
    done | sort -k1,1n -k4,4n | awk -v mode="$m" -v ref="$o" "$awk_median"'
        function flush() { if (c == 0) return
            printf "%-16s %-20s %7d %10.2f %10.2f %6.3f %6.3f %6.3f %6.3f %6.3f\n", mode, ref, k, med(o, c),
                   med(m, c), med(q, c), lo, hi, med(d, c), med(e, c)
            c = 0 }
        $1 != k {flush(); k = $1}
        {c++; o[c] = $2; m[c] = $3; q[c] = $4; d[c] = $5; e[c] = $6; if (c == 1 || $4 < lo) lo = $4; if (c == 1 || $4 > hi) hi = $4}
        END {flush()}'
done
