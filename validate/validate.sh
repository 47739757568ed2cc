#!/usr/bin/env bash
# validate.sh: `make validate` -- the accuracy claims the docs make, measured
# now, each with the regime it was measured in (docs/formats.md, 'Regimes'),
# and the generated table of docs/VALIDATION.md rewritten with the figures:
# the rows of the claims run, the others' kept with the time each was measured.
# They need a quiet machine, so they are not in `make check`; each round
# takes the shared measuring lock, and the load average at the start and end
# is reported beside the table.
#
#   validate/validate.sh BIN_DIR [DOC]       every claim (DOC: docs/VALIDATION.md)
#   CLAIMS="floor logp" validate/validate.sh BIN_DIR   only these
#
# Claims: floor (scibench 8 B ping-pong over its bracketing floor), noisy
# (the noisy flag's share on a quiet run, scibench and mpibench), logp (the LogP identity),
# full (calibrate --full), echo (mpibench --echo's relay against a 2-node-ring
# hop), osu (mpibench over osu_latency; OSU_LATENCY=path),
# coll (mpibench --op over osu_*; OSU_COLL=directory), p2p (every mpibench
# --p2p mode over its reference; OSU_P2P=directory, SKAMPI, SKAMPI_SKI), testbed (the figures
# of docs/testbed.md on kernel-routed namespaces; root).  ROUNDS (default 5)
# and FULL_RUNS (default 10) set how many times each is measured.
# Exit status: 0 whatever the verdicts (the table says which claims were
# met, missed or undecided), 2 for an unknown claim.
set -uo pipefail
bin=$1 doc=${2:-docs/VALIDATION.md}
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-5} full_runs=${FULL_RUNS:-10}
claims=${CLAIMS:-"floor noisy logp full echo osu coll p2p testbed"}
lock=${MEASURE_LOCK:-${TMPDIR:-/tmp}/scitorus-measure.lock}
mpirun=(timeout 300 mpirun --oversubscribe -np 2)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
tmp=$(mktemp -d /tmp/scitorus-validate.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
rows=$tmp/rows   # claim | target | figure | regime | verdict | measured | command
: > "$rows"

load() { cut -d' ' -f1 /proc/loadavg; }
floor() { flock -x "$lock" "$bin/scibench" --floor | cut -f2; }
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
# row CLAIM TARGET FIGURE REGIME VERDICT COMMAND: one row of the table.  The
# claims' own benchmarks keep every core busy, or their own ranks when there
# are more (own: the most a claim runs), so a load average of one more than
# that means other work shared them: the verdict then says it decides nothing.
row() {
    local v=$5 l n
    l=$(load) n=$(nproc)
    [ "${own:-0}" -gt "$n" ] && n=$own
    if awk -v l="$l" -v n="$n" 'BEGIN { exit !(l >= n + 1) }'; then
        v="undecided (load $l where its own benchmark keeps $n busy; was: $5)"
    fi
    printf '%s|%s|%s|%s|%s|%s|%s\n' "$1" "$2" "$3" "$4" "$v" "$(date -u +%Y-%m-%dT%H:%MZ)" "$6" >> "$rows"
    echo "validate: $1: $3 [$v] ($4)" >&2
}
# regime LO HI: the band two floors (ns) lie in, as the docs name it
regime() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { lo = a < b ? a : b; hi = a < b ? b : a
    if (lo <= 0) { printf "floor not measured"; exit }
    printf "floor %.0f..%.0f ns%s", lo, hi, (hi > 1.6 * lo ? " (spans regimes)" : "") }'; }

# A size is decided on its ratio's range over n rounds, which holds the
# median with probability 1 - 2^(1-n): launches differ more than a median
# shows (docs/VALIDATION.md, the verdicts paragraph, names each outcome).
size_rule='function size_verdict(lo, hi, self, n) {
    if (n < 5) return "few"
    if (lo >= 0.90 && hi <= 1.10) return "in"
    if (hi >= 0.90 && lo <= 1.10) return "spread"
    return self < 0.90 || self > 1.10 ? "ref" : "out" }'
# self_verdict OUT REF SPREAD FEW: from the counts of each size_verdict,
# missed when one is out, met when every one is in, else undecided.
self_verdict() {
    if [ "$1" -gt 0 ]; then echo missed
    elif [ $(($2 + $3 + $4)) -gt 0 ]; then
        local why=""
        [ "$2" = 0 ] || why="the reference disagreed with itself beyond the bound at $2 sizes out"
        [ "$3" = 0 ] || why="${why:+$why; }the rounds' range reached across the bound at $3 sizes"
        [ "$4" = 0 ] || why="${why:+$why; }fewer than 5 rounds"
        echo "undecided ($why)"
    else echo met; fi
}
# counts FILE LO HI SELF N: "out ref spread few" over FILE's rows, their
# columns LO, HI and SELF, from N rounds
counts() {
    awk -v l="$2" -v h="$3" -v e="$4" -v n="$5" "$size_rule"'
        !/^#/ && NF >= e { c[size_verdict($l, $h, $e, n)]++ }
        END { print c["out"] + 0, c["ref"] + 0, c["spread"] + 0, c["few"] + 0 }' "$1"
}

# floor: per round, a floor, scibench's 8 B ping-pong, a floor; the ratio
# over the round's mean floor, grouped into regimes (floors within 1.6x of
# the group's lowest).  Target: at most 1.20 where the floor is 40 ns or more.
claim_floor() {
    for i in $(seq "$rounds"); do
        f1=$(floor)
        pp=$(flock -x "$lock" "$bin/scibench" -q --sizes 8 --max-time 1 --rel-error 0.002 |
             grep -v '^#' | cut -f14)
        f2=$(floor)
        echo "$f1 $f2 $pp"
    done | awk '{ f = ($1 + $2) / 2; if (f > 0) print f, $3 / f, ($1 > $2 ? $1 / $2 : $2 / $1) }' |
        sort -g > "$tmp/floor"
    awk '$3 <= 1.6' "$tmp/floor" | awk '{ if (NR == 1 || $1 > 1.6 * first) { g++; first = $1 }
        print g, $0 }' > "$tmp/floor.g"
    for g in $(cut -d' ' -f1 "$tmp/floor.g" | sort -u); do
        n=$(awk -v g="$g" '$1 == g' "$tmp/floor.g" | wc -l)
        fl=$(awk -v g="$g" '$1 == g { print $2 }' "$tmp/floor.g" | median)
        worst=$(awk -v g="$g" '$1 == g { print $3 }' "$tmp/floor.g" | sort -g | tail -1)
        med=$(awk -v g="$g" '$1 == g { print $3 }' "$tmp/floor.g" | median)
        v=$(awk -v w="$worst" -v f="$fl" 'BEGIN { print f < 40 ? "no target below 40 ns" : w <= 1.20 ? "met" : "missed" }')
        row "scibench 8 B ping-pong / its bracketing floor" "<= 1.20 in every round (floor >= 40 ns)" \
            "worst $(printf %.3f "$worst"), median $(printf %.3f "$med") over $n rounds" \
            "floor $(printf %.0f "$fl") ns" "$v" "CLAIMS=floor make validate"
    done
    dropped=$(awk '$3 > 1.6' "$tmp/floor" | wc -l)
    [ "$dropped" = 0 ] || row "scibench 8 B ping-pong / its bracketing floor" "-" \
        "$dropped of $rounds rounds dropped: their two floors in two regimes" "-" "undecided" \
        "CLAIMS=floor make validate"
}

# noisy: a sweep 1 B..64 KiB by scibench and one by mpibench, bracketed by
# floors; the share of each one's rows flagged noisy.  Quiet is decided by
# the floors alone, never by the flag it judges: the floors before and after
# share a regime and no row of either sweep spans regimes (its floors'
# quartiles within 1.6x).  A run that is not quiet is measured again, three
# runs at most; the verdict is on every row of the first quiet run.
# noisy_count FILE: rows, noisy rows, rows spanning regimes, and how far apart
# the median row's floor quartiles lie (%, informative: the machine's jitter).
noisy_count() {
    awk '!/^#/ { n++; noisy += $19 == "noisy"
            if (NF >= 22 && $21 > 0) { spans += $22 > 1.6 * $21; d[++m] = $22 / $21 - 1 } }
        END { for (i = 1; i <= m; i++) for (j = i; j > 1 && d[j - 1] > d[j]; j--) { t = d[j]; d[j] = d[j - 1]; d[j - 1] = t }
              printf "%d %d %d %.1f\n", n, noisy, spans, m ? 100 * d[int((m + 1) / 2)] : -1 }' "$1"
}
claim_noisy() {
    local k f1 f2 sn snoisy sspans sdrift mn mnoisy mspans mdrift fig seen="" v="undecided (not quiet)"
    for k in 1 2 3; do
        f1=$(floor)
        flock -x "$lock" "$bin/scibench" -q --sizes 1..65536 --max-time 0.5 -o "$tmp/noisy-shm.tsv"
        flock -x "$lock" "${mpirun[@]}" "$bin/mpibench" -q --sizes 1..65536 --max-time 0.5 \
            -o "$tmp/noisy-mpi.tsv" > /dev/null 2>&1 || : > "$tmp/noisy-mpi.tsv"
        f2=$(floor)
        read -r sn snoisy sspans sdrift < <(noisy_count "$tmp/noisy-shm.tsv")
        read -r mn mnoisy mspans mdrift < <(noisy_count "$tmp/noisy-mpi.tsv")
        fig="scibench $snoisy of $sn rows, mpibench $mnoisy of $mn rows"
        seen="$seen${seen:+; }run $k: $fig; $sspans and $mspans rows spanning, the median row's floor quartiles ${sdrift}% and ${mdrift}% apart, $(regime "$f1" "$f2")"
        echo "validate: noisy run $k: $fig noisy; $sspans and $mspans rows span regimes; the median row's floor quartiles ${sdrift}% and ${mdrift}% apart; $(regime "$f1" "$f2")" >&2
        if awk -v a="$f1" -v b="$f2" -v s="$((sspans + mspans))" -v n="$sn" -v m="$mn" \
            'BEGIN { exit !(a > 0 && b > 0 && (a > b ? a / b : b / a) <= 1.6 && s == 0 && n && m) }'; then
            v=$(awk -v n="$sn" -v k="$snoisy" -v m="$mn" -v l="$mnoisy" \
                'BEGIN { print k <= 0.10 * n && l <= 0.10 * m ? "met" : "missed" }')
            break
        fi
    done
    row "the noisy flag on a quiet run" "<= 10% of the rows of each sweep (quiet: floors in one regime, no row spanning)" \
        "$fig" "$seen" "$v" "CLAIMS=noisy make validate"
}

# logp: mpibench --pattern logp --mpi-send isend --os-fence, ROUNDS runs;
# per run L and the share of sizes where the identity holds within 10%, as
# calibrate --logp checks it on the file: RTT(m)/2 = os(m) + L + or(m) + D(m),
# D(m) the drain of the send's stores beyond the smallest size's (an isend
# returns before its eager copy reaches the other core; docs/model.md,
# 'LogP parameters').  L >= 0, or negative with the file's L_flag (its reason).
# A run spanning regimes is measured again.
claim_logp() {
    # a run whose floors before and after lie in two regimes is measured
    # again, as the osu claim's rounds are: twice the rounds at most
    local ok=0 runs=0 ls="" i=0 tries=0 spans=0 f1 f2 lo="" hi=""
    while [ "$runs" -lt "$rounds" ] && [ "$tries" -lt $((2 * rounds)) ]; do
        tries=$((tries + 1)) i=$((i + 1))
        f1=$(floor)
        flock -x "$lock" "${mpirun[@]}" "$bin/mpibench" --pattern logp --mpi-send isend --os-fence \
            --max-size 65536 -q -o "$tmp/logp-$i.tsv" > /dev/null 2>&1 || continue
        f2=$(floor)
        if regime "$f1" "$f2" | grep -q "spans regimes"; then
            spans=$((spans + 1))
            echo "validate: logp: a run spanned regimes ($(regime "$f1" "$f2")): measured again" >&2
            continue
        fi
        runs=$((runs + 1))
        lo=$(printf '%s\n' $lo "$f1" "$f2" | sort -g | head -1) hi=$(printf '%s\n' $hi "$f1" "$f2" | sort -g | tail -1)
        read -r within n < <("$bin/calibrate" --logp "$tmp/logp-$i.tsv" -o "$tmp/logp-$i.params" 2>/dev/null |
            sed -n 's/^ *within 10%: \([0-9]*\) of \([0-9]*\) sizes with D.*/\1 \2/p')
        L=$(sed -n 's/^# L_ns: //p' "$tmp/logp-$i.tsv")
        flagged=$(grep -c '^# L_flag:' "$tmp/logp-$i.tsv")
        ls="$ls ${L:-nan}"
        good=$(awk -v L="${L:-nan}" -v f="$flagged" -v w="${within:-0}" -v n="${n:-0}" \
            'BEGIN { print (L != "nan" && (L >= 0 || f) && n && w >= 0.9 * n) }')
        ok=$((ok + good))
        echo "validate: logp run $runs: L ${L:-?} ns$(awk -v L="${L:-0}" 'BEGIN { if (L < 0) print " (L_flag)" }'), identity within 10% at ${within:-?} of ${n:-?} sizes ($(regime "$f1" "$f2"))" >&2
    done
    row "LogP (isend, os-fence): L >= 0 (or flagged with its reason) and os + L + or + D within 10% of RTT/2 at >= 90% of sizes" \
        "in $rounds of $rounds runs" "$ok of $runs runs (L:$ls ns)$([ "$spans" = 0 ] || echo "; $spans more spanning regimes dropped")" \
        "$(regime "${lo:-0}" "${hi:-0}"), each run on stderr" \
        "$([ "$runs" -lt "$rounds" ] && echo "undecided ($runs of $rounds runs in one regime)" ||
           { [ "$ok" = "$rounds" ] && echo met || echo missed; })" "CLAIMS=logp make validate"
}

# full: calibrate --full FULL_RUNS times: exit 0, held-out error, o(64 B)
# within 5% of the others of its regime, time under 60 s.
claim_full() {
    : > "$tmp/full"
    for i in $(seq "$full_runs"); do
        t0=$(date +%s.%N)
        rc=0
        flock -x "$lock" "$bin/calibrate" --full -q -o "$tmp/full-$i.params" > "$tmp/full-$i.out" 2>&1 || rc=$?
        t=$(echo "$(date +%s.%N) - $t0" | bc)
        err=$(sed -n 's/.*held-out check passed: max error \([0-9.]*\)%.*/\1/p' "$tmp/full-$i.out" | tail -1)
        o64=nan fl=nan
        if [ "$rc" = 0 ]; then
            o64=$("$bin/scimodel" --params "$tmp/full-$i.params" --nodes 2 --dims 1 |
                  sed -n 's/^ *o(64 B) = \([0-9.]*\) ns.*/\1/p')
            fl=$(sed -n 's/^regime_floor_ns = //p' "$tmp/full-$i.params")
        fi
        echo "$rc $t ${err:-nan} $o64 ${fl:-nan}" >> "$tmp/full"
        echo "validate: calibrate --full run $i: exit $rc, $t s, held-out ${err:-?}%, o(64 B) $o64 ns, floor ${fl:-?} ns" >&2
    done
    read -r zero maxt maxerr < <(awk '{ z += $1 == 0; if ($2 > t) t = $2; if ($3 != "nan" && $3 > e) e = $3 }
        END { printf "%d %.1f %.2f\n", z, t, e }' "$tmp/full")
    # o(64 B) spread within each regime (floors within 1.6x of the group's lowest)
    spread=$(awk '$1 == 0 && $5 != "nan" { print $5, $4 }' "$tmp/full" | sort -g |
        awk '{ if (NR == 1 || $1 > 1.6 * first) { g++; first = $1 } if (!(g in lo) || $2 < lo[g]) lo[g] = $2
               if (!(g in hi) || $2 > hi[g]) hi[g] = $2; n[g]++; f[g] = f[g] ? f[g] : $1 }
             END { for (i = 1; i <= g; i++) printf "%sfloor %.0f ns: %d runs, o(64 B) %.1f..%.1f (%.1f%%)",
                   (i > 1 ? "; " : ""), f[i], n[i], lo[i], hi[i], 100 * (hi[i] - lo[i]) / lo[i] }')
    spread_ok=$(awk '$1 == 0 && $5 != "nan" { print $5, $4 }' "$tmp/full" | sort -g |
        awk '{ if (NR == 1 || $1 > 1.6 * first) { g++; first = $1 } if (!(g in lo) || $2 < lo[g]) lo[g] = $2
               if ($2 > hi[g]) hi[g] = $2 } END { ok = 1; for (i = 1; i <= g; i++) if (hi[i] > 1.05 * lo[i]) ok = 0; print ok }')
    v=$(awk -v z="$zero" -v n="$full_runs" -v t="$maxt" -v s="$spread_ok" -v e="$maxerr" \
        'BEGIN { print (z >= 0.8 * n && t < 60 && s && e <= 5 ? "met" : "missed") }')
    row "calibrate --full: exit 0, held-out <= 5%, o(64 B) within 5% in a regime, < 60 s" \
        ">= 80% of $full_runs runs exit 0" "$zero of $full_runs exit 0, worst held-out $maxerr%, slowest $maxt s" \
        "${spread:-no run fitted}" "$v" "CLAIMS=full make validate"
}

# osu: per round osu_latency, mpibench, osu_latency, ROUNDS rounds; the
# median over rounds of the ratio at each size, the worst size.  The same
# statistic on both sides: osu_latency's average and mpibench's mean_ns.  The
# sizes are decided on their range over rounds (size_rule); a round
# spanning regimes is measured again.
claim_osu() {
    if [ -z "${OSU_LATENCY:-}" ] || [ ! -x "${OSU_LATENCY:-}" ]; then
        row "mpibench / osu_latency, 8 B..64 KiB" "within 0.90..1.10 at every size" "not measured" "-" \
            "undecided (set OSU_LATENCY)" "OSU_LATENCY=path CLAIMS=osu make validate"
        return
    fi
    sizes="8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536"
    # a round whose floors before and after lie in two regimes is measured
    # again, twice the rounds at most
    local i=0 tries=0 spans=0 fa fb lo="" hi=""
    : > "$tmp/osu"
    while [ "$i" -lt "$rounds" ] && [ "$tries" -lt $((2 * rounds)) ]; do
        tries=$((tries + 1))
        fa=$(floor)
        {   flock -x "$lock" "${mpirun[@]}" "$OSU_LATENCY" | awk '/^[0-9]/ { print "a", $1, $2 * 1000 }'
            flock -x "$lock" "${mpirun[@]}" "$bin/mpibench" -q --sizes "${sizes// /,}" --max-time 1 \
                --rel-error 0.002 | awk '!/^#/ { print "mb", $10, $15 }'
            flock -x "$lock" "${mpirun[@]}" "$OSU_LATENCY" | awk '/^[0-9]/ { print "b", $1, $2 * 1000 }'
        } > "$tmp/osu.round"
        fb=$(floor)
        if regime "$fa" "$fb" | grep -q "spans regimes"; then
            spans=$((spans + 1))
            echo "validate: osu: a round spanned regimes ($(regime "$fa" "$fb")): measured again" >&2
            continue
        fi
        cat "$tmp/osu.round" >> "$tmp/osu"
        i=$((i + 1))
        lo=$(printf '%s\n' $lo "$fa" "$fb" | sort -g | head -1) hi=$(printf '%s\n' $hi "$fa" "$fb" | sort -g | tail -1)
    done
    f1=${lo:-0} f2=${hi:-0}
    # per size and round: mpibench over the mean of the two OSU launches
    # around it, and OSU's second over its first; per size their medians
    awk '{ v[$1, $2, ++c[$1, $2]] = $3 } END { split("'"$sizes"'", s)
        for (i = 1; s[i] != ""; i++) for (k = 1; k <= c["mb", s[i]]; k++)
            if (v["a", s[i], k] > 0 && v["b", s[i], k] > 0)
                print s[i], v["mb", s[i], k] / ((v["a", s[i], k] + v["b", s[i], k]) / 2), v["b", s[i], k] / v["a", s[i], k] }' \
        "$tmp/osu" | sort -k1,1n > "$tmp/osu.r"
    # per size: the median ratio and the range over rounds, OSU's median over itself
    local sz
    while read -r sz; do
        echo "$sz $(awk -v s="$sz" '$1 == s { print $2 }' "$tmp/osu.r" | median)" \
            "$(awk -v s="$sz" '$1 == s { print $2 }' "$tmp/osu.r" | sort -g | sed -n '1p;$p' | tr '\n' ' ')" \
            "$(awk -v s="$sz" '$1 == s { print $3 }' "$tmp/osu.r" | median)"
    done < <(cut -d' ' -f1 "$tmp/osu.r" | uniq) > "$tmp/osu.s"
    local worst
    worst=$(awk '{ d = $2 > 1 ? $2 - 1 : 1 - $2
        if (d >= wd) { wd = d; w = sprintf("%.3f at %d B (rounds %.3f..%.3f; osu_latency over itself %.3f)", $2, $1, $3, $4, $5) } }
        END { print w }' "$tmp/osu.s")
    read -r out ref spread few < <(counts "$tmp/osu.s" 3 4 5 "$i")
    row "mpibench / osu_latency, 8 B..64 KiB" "within 0.90..1.10 at every size" \
        "worst ${worst:-none} (median of $i rounds$([ "$spans" = 0 ] || echo ", $spans more spanning regimes dropped")); $out sizes out, $spread across the bound, $ref where osu_latency disagreed with itself" \
        "$(regime "$f1" "$f2")" "$([ -n "$worst" ] && self_verdict "$out" "$ref" "$spread" "$few" || echo undecided)" \
        "OSU_LATENCY=path CLAIMS=osu make validate"
}

# echo: mpibench --echo, ring 2 and ring 6 interleaved at 64 KiB, a launch a
# round; ring 6's median over three 2-node-ring hops, its median over rounds
# (a relay of received bytes is a hop's operation: calibrate's MPI model).
claim_echo() {
    f1=$(floor)
    for i in $(seq "$rounds"); do
        flock -x "$lock" "${mpirun[@]}" "$bin/mpibench" --echo --sizes 65536 --max-time 2 \
            --rel-error 0.01 -q -o "$tmp/echo2" --interleave "6=$tmp/echo6" &&
            paste <(awk '!/^#/ { print $14 }' "$tmp/echo2") <(awk '!/^#/ { print $14 }' "$tmp/echo6")
    done | awk 'NF == 2 && $1 > 0 { printf "%.4f\n", $2 / (3 * $1) }' > "$tmp/echo"
    f2=$(floor)
    local med lo hi
    med=$(median < "$tmp/echo") lo=$(sort -g "$tmp/echo" | head -1) hi=$(sort -g "$tmp/echo" | tail -1)
    [ -n "$med" ] || { row "mpibench --echo: ring 6 / 3 x ring 2 at 64 KiB" "within 0.95..1.05" "no figure" \
        "$(regime "$f1" "$f2")" "undecided" "CLAIMS=echo make validate"; return; }
    row "mpibench --echo: ring 6 / 3 x ring 2 at 64 KiB" "within 0.95..1.05" \
        "$med (rounds $lo..$hi, median of $(wc -l < "$tmp/echo"))" "$(regime "$f1" "$f2")" \
        "$(awk -v m="$med" 'BEGIN { print (m >= 0.95 && m <= 1.05 ? "met" : "missed") }')" \
        "CLAIMS=echo make validate"
}

# coll: coll/bench.sh's interleaved rounds of mpibench --op (its default,
# osu_*'s loop and figure) and every osu_<op> -f at P = 2 and 4, 8 B..1 MiB;
# per op its worst size (the median over rounds farthest from 1); the sizes
# decided on their range over rounds (size_rule).
claim_coll() {
    local what="mpibench --op / osu_* (every collective OSU has) at P = 2 and 4, 8 B..1 MiB" own=4
    if [ -z "${OSU_COLL:-}" ] || [ ! -x "${OSU_COLL:-}/osu_bcast" ]; then
        row "$what" "within 0.90..1.10 at every size" \
            "not measured" "-" "undecided (set OSU_COLL)" "OSU_COLL=dir CLAIMS=coll make validate"
        return
    fi
    f1=$(floor)
    ROUNDS=$rounds NPS="2 4" MEASURE_LOCK=$lock \
        "$root/coll/bench.sh" "$bin" "$OSU_COLL" > "$tmp/coll" 2>&1
    f2=$(floor)
    sed 's/^/validate: coll: /' "$tmp/coll" >&2   # every op, P and size, for the record
    worst=$(awk '!/^#/ && NF >= 10 { d = $6 > 1 ? $6 - 1 : 1 - $6
            if (!($1 in wd) || d >= wd[$1]) { wd[$1] = d; w[$1] = sprintf("%s %.3f (P=%d %d B; OSU over itself %.3f)", $1, $6, $2, $3, $10) }
            if (d >= all) { all = d; a = w[$1] } }
        END { printf "%s;", a; for (k in w) printf " %s,", w[k] }' "$tmp/coll" | sed 's/,$//')
    read -r out ref spread few < <(counts "$tmp/coll" 7 8 10 "$rounds")
    v=$(self_verdict "$out" "$ref" "$spread" "$few")
    [ -n "$worst" ] && [ "$worst" != ";" ] || v=undecided
    row "$what" "within 0.90..1.10 at every size" \
        "worst ${worst:-none} (medians of $rounds rounds); $out sizes out, $spread across the bound, $ref where OSU disagreed with itself" \
        "$(regime "$f1" "$f2")" "$v" "OSU_COLL=dir CLAIMS=coll make validate"
}

# p2p: mpibench/p2p_bench.sh's interleaved rounds of every --p2p mode and its
# reference (osu_bw, osu_bibw; SKaMPI's ping-pongs with SKAMPI and SKAMPI_SKI;
# else fallback:osu_latency), 8 B..1 MiB; a row per mode: its worst size's
# median ratio; the sizes decided on their range over rounds (size_rule).
claim_p2p() {
    local what="mpibench --p2p MODE / its reference at P = 2, 8 B..1 MiB"
    if [ -z "${OSU_P2P:-}" ] || [ ! -x "${OSU_P2P:-}/osu_bw" ]; then
        row "$what" "within 0.90..1.10 at every size" "not measured" "-" "undecided (set OSU_P2P)" \
            "OSU_P2P=dir CLAIMS=p2p make validate"
        return
    fi
    local f1 f2 m
    f1=$(floor)
    ROUNDS=$rounds MEASURE_LOCK=$lock "$root/mpibench/p2p_bench.sh" "$bin" "$OSU_P2P" > "$tmp/p2p" 2>&1
    f2=$(floor)
    for m in $(awk '!/^#/ && NF >= 10 && !s[$1]++ { print $1 }' "$tmp/p2p"); do
        worst=$(awk -v m="$m" '!/^#/ && $1 == m { d = $6 > 1 ? $6 - 1 : 1 - $6
            if (d >= wd) { wd = d; w = sprintf("%.3f at %d B (rounds %.3f..%.3f; the reference over itself %.3f) against %s", $6, $3, $7, $8, $10, $2) } }
            END { print w }' "$tmp/p2p")
        awk -v m="$m" '$1 == m' "$tmp/p2p" > "$tmp/p2p.m"
        read -r out ref spread few < <(counts "$tmp/p2p.m" 7 8 10 "$rounds")
        row "mpibench --p2p $m / its reference at P = 2, 8 B..1 MiB" "within 0.90..1.10 at every size" \
            "worst $worst (median of $rounds rounds); $out sizes out, $spread across the bound, $ref where the reference disagreed with itself" \
            "$(regime "$f1" "$f2")" "$(self_verdict "$out" "$ref" "$spread" "$few")" "OSU_P2P=dir CLAIMS=p2p make validate"
    done
    awk '!/^#/ && NF >= 10' "$tmp/p2p" | grep -q . || row "$what" "within 0.90..1.10 at every size" "no figure ($(head -c 200 "$tmp/p2p"))" \
        "$(regime "$f1" "$f2")" "undecided" "OSU_P2P=dir CLAIMS=p2p make validate"
}

# testbed: one round of testbed/campaign.sh (rings of 2, 4, 6, a 2x2 torus,
# the held-out ring of 5, the 6-node shortest-way ring) and its figures, as
# docs/testbed.md decides them: the held-out ring 5 within 10% at every size
# up to 64 KiB (a miss by less than the round's own spread there cannot
# decide: measured again, 3 rounds at most); on the shortest-way ring the
# 8 B ping-pong grows with every hop (a hop that did not is decided when its
# slower pass beat the hop before's faster one); halo3d on a ring of 2 on
# the round's parameters, its replay within 25% of the measured time.
claim_testbed() {
    local what="testbed: held-out ring 5 <= 10% at every size; 8 B grows every hop; halo3d replay <= 25%"
    local cmd="CLAIMS=testbed make validate" why
    if ! why=$("$bin/scitestbed" check 2>&1 >/dev/null); then
        row "$what" "every bound, decided against the round's noise" "not measured" "-" \
            "undecided (${why%%$'\n'*})" "$cmd"
        return
    fi
    local k d="" err=nan size=nan spread=nan seen="" v=undecided f1 f2
    f1=$(floor)
    for k in 1 2 3; do
        d=$tmp/testbed-$k
        env LOCK="$lock" B_REPEATS=1 PASSES=2 MAX_TIME=0.75 "$root/testbed/campaign.sh" "$d" 1 "$bin" \
            >"$d.log" 2>&1 && "$root/testbed/figures.sh" "$d" 1 "$bin" >>"$d.log" 2>&1 ||
            { seen="$seen round $k failed (${d}.log);"; continue; }
        read -r err size spread < <(awk 'NR == 2 { print $7, $8, ($17 == "-" ? 0 : $17) }' "$d/figures.tsv")
        seen="$seen round $k: $err% at $size B, spread $spread%;"
        v=$(awk -v e="$err" -v s="$spread" 'BEGIN { print (e <= 10 ? "met" : e - s > 10 ? "missed" : "undecided") }')
        [ "$v" = undecided ] || break
    done
    f2=$(floor)
    row "testbed: held-out ring 5, largest error over 1 B..64 KiB" "<= 10% (a miss within the round's spread: undecided)" \
        "${seen# }" "$(regime "$f1" "$f2")" "$v" "$cmd"
    # the last round's other figures: its hop growth and halo3d on its fit
    [ -s "$d/b6-r1.tsv" ] && [ -s "$d/fit-r1.params" ] || return
    # 8 B at 1, 2, 3 hops of the shortest-way ring: the faster and the slower pass
    read -r a1 a2 a3 s1 s2 s3 < <(awk '!/^#/ && $10 == 8 && $3 >= 1 && $3 <= 3 { v = $14
        if (!($3 in a) || v < a[$3]) a[$3] = v; if (v > s[$3]) s[$3] = v }
        END { print a[1], a[2], a[3], s[1], s[2], s[3] }' "$d/b6-r1.tsv")
    v=$(awk -v a1="$a1" -v a2="$a2" -v a3="$a3" -v s2="$s2" -v s3="$s3" 'BEGIN {
        if (a1 < a2 && a2 < a3) { print "met"; exit }
        print ((a1 >= a2 && s2 < a1) || (a2 >= a3 && s3 < a2) ? "missed" : "undecided") }')
    row "testbed: 8 B ping-pong on the 6-node shortest-way ring" "grows with every hop" \
        "$a1, $a2, $a3 ns at 1, 2, 3 hops (slower passes $s1, $s2, $s3)" "$(regime "$f1" "$f2")" "$v" "$cmd"
    # halo3d on a ring of 2, the exchange's duplex cost measured first
    local name=v$(($$ % 100000)) e1 e2
    halo() {
        "$bin/scitestbed" --name "$name" up --ring 2 --mtu 9000 >/dev/null 2>&1 || return 1
        local dup
        dup=$(bash "$root/testbed/halo3d.sh" duplex "$name" 2 "$d/fit-r1.params" "$d/app" "$bin" | tail -n 1) &&
            bash "$root/testbed/halo3d.sh" trace "$name" "$d/app" 300 "$bin" ||
            { "$bin/scitestbed" --name "$name" down >/dev/null 2>&1; return 1; }
        "$bin/scitestbed" --name "$name" down >/dev/null 2>&1
        bash "$root/testbed/halo3d.sh" compare 2 "$d/fit-r1.params" "$d/app" "$bin" \
            "$root/tests/fixtures/plots/ring2.params" "$dup" | awk -F'\t' '$1 == "mean" { print $NF }'
    }
    e1=$(halo) e2=""
    num='^[-+]?[0-9]+([.][0-9]*)?$'   # a figure, not nan or nothing
    awk -v e="${e1:-nan}" -v num="$num" 'BEGIN { exit !(e ~ num && (e < 0 ? -e : e) <= 25) }' || e2=$(halo)
    v=$(awk -v a="${e1:-nan}" -v b="${e2:-none}" -v num="$num" 'BEGIN {
        if (a !~ num) { print "undecided (halo3d gave no figure)"; exit }
        A = a < 0 ? -a : a; if (A <= 25) { print "met"; exit }
        if (b !~ num) { print "undecided (halo3d gave no figure the second time)"; exit }
        B = b < 0 ? -b : b; d = a - b; d = d < 0 ? -d : d; l = A < B ? A : B
        print (B <= 25 ? "met" : l - d > 25 ? "missed" : "undecided (beyond 25% within the spread of the two runs)") }')
    row "testbed: halo3d replay on the round's parameters, ring of 2" "within 25% of the measured communication time" \
        "${e1:-?}%${e2:+, then $e2%}" "$(regime "$f1" "$f2")" "$v" "$cmd"
}

load0=$(load)
start=$(date -u +%Y-%m-%dT%H:%MZ)
for c in $claims; do
    case $c in
        floor|noisy|logp|full|echo|osu|coll|p2p|testbed) "claim_$c" ;;
        *) echo "validate.sh: unknown claim '$c' (floor noisy logp full echo osu coll p2p testbed)" >&2; exit 2 ;;
    esac
done
load1=$(load)

# This run's rows and DOC's rows of the claims it did not measure, kept as
# they were (a table from before the measured column gets its run's date):
# a run of some claims, or without a reference, never loses another's figures.
merged() {
    awk -F'|' -v doc="$doc" '
        { c = match($7, /CLAIMS=[a-z0-9]+/) ? substr($7, RSTART + 7, RLENGTH - 7) : ""
          row[NR] = $0; cl[NR] = c; if ($3 != "not measured") now[c] = 1 }
        END {
            while ((getline l < doc) > 0) {
                if (l ~ /^<!-- validate: begin -->$/) { on = 1; continue }
                if (l ~ /^<!-- validate: end -->$/) on = 0
                if (!on) continue
                if (l ~ /^Measured /) { split(l, w, " "); date = w[2] }
                if (l ~ /^Last run /) { split(l, w, " "); date = w[3] }
                if (l !~ /^[|] / || l ~ /^[|] claim [|]/) continue
                k = split(l, f, " [|] "); sub(/^[|] /, "", f[1]); sub(/ [|]$/, "", f[k]); gsub(/`/, "", f[k])
                if (!match(f[k], /CLAIMS=[a-z0-9]+/)) continue
                c = substr(f[k], RSTART + 7, RLENGTH - 7)
                if (c in now) continue
                old[c] = 1
                print f[1] "|" f[2] "|" f[3] "|" f[4] "|" f[5] "|" (k >= 7 ? f[6] : date) "|" f[k]
            }
            for (i = 1; i <= NR; i++) if (!(cl[i] in old)) print row[i]
        }' "$rows"
}
# The table between the markers of DOC, rewritten in place (atomically):
# every claim's rows in the order the claims are listed above.
{
    echo "Last run $start on $(hostname), load average $load0 at the start and $load1 at the end;"
    echo "ROUNDS=$rounds, FULL_RUNS=$full_runs, claims: $claims (the other rows: their measured column)."
    echo
    echo "| claim | target | last figure | regime | verdict | measured | reproduce |"
    echo "|---|---|---|---|---|---|---|"
    merged | awk -F'|' -v order="floor noisy logp full echo osu coll p2p testbed" '
        BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) at[o[i]] = i }
        { c = match($7, /CLAIMS=[a-z0-9]+/) ? substr($7, RSTART + 7, RLENGTH - 7) : ""
          printf "%02d %05d|%s\n", (c in at) ? at[c] : 99, NR, $0 }' | sort -t'|' -k1,1 | cut -d'|' -f2- |
        awk -F'|' '{ printf "| %s | %s | %s | %s | %s | %s | `%s` |\n", $1, $2, $3, $4, $5, $6, $7 }'
} > "$tmp/table"
if [ -f "$doc" ] && grep -q '^<!-- validate: begin -->$' "$doc"; then
    awk -v t="$tmp/table" '/^<!-- validate: begin -->$/ { print; while ((getline l < t) > 0) print l; skip = 1; next }
        /^<!-- validate: end -->$/ { skip = 0 } !skip' "$doc" > "$tmp/doc" &&
        cp "$tmp/doc" "$doc.tmp.$$" && mv "$doc.tmp.$$" "$doc"
    echo "validate: wrote the table of $doc" >&2
fi
cat "$tmp/table"
