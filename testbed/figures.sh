#!/bin/bash
# testbed/figures.sh DIR [ROUNDS] [BINDIR]: the figures of docs/testbed.md
# from testbed/campaign.sh's files, round by round, then median and range.
#   fit      calibrate on rings 2, 4, 6 and the 2x2 torus: lf, ls, lb, o(8 B)
#   held-out ring 5 predicted: median and largest |error| over its points,
#            and the round's noise at the size of that largest error: the
#            largest spread (max / min - 1) between the passes' runs of one
#            destination, over the held-out ring and the networks fitted
#            (the prediction rests on them); "-" with one pass
#   relay    6-node shortest-way ring: the 8 B ping-pong's growth per hop
#            (least squares over 1, 2, 3 hops, each the median of its runs)
#            against lp + lf + 8 lb
#   rate     per-byte cost between 32 and 64 KiB (the rate-limited points:
#            the bucket passes the first two packets at line speed), rings 2
#            and 4 at RATE minus without, against 1/RATE per wire byte
#            ((MTU + 14) / (MTU - 52) wire bytes per payload byte)
#   rate hop where the campaign measured p6 (b6 at RATE): the rate's share
#            of the 64 KiB growth per hop, against a wire's (MTU + 14) / RATE
#            (store and forward of one packet) and the shaper's 0 (the
#            packets leave each link paced already; its bucket passes one)
# Writes DIR/figures.tsv (one row per round) and prints the summary.
set -u
dir=${1:?usage: figures.sh DIR [ROUNDS] [BINDIR]}
rounds=${2:-5}
bin=${3:-bin}
RATE_BPS=${RATE_BPS:-1000000000} MTU=${MTU:-9000}
# a point's median ns in FILE (size $2, destination $3): with repeated runs,
# the median of the runs' medians (one disturbed run does not move it)
med() { awk -v m="$2" -v d="$3" '!/^#/ && $10 == m && $3 == d {print $14}' "$1" | sort -g |
        awk '{v[NR] = $1} END {if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
# least-squares growth per hop of size $2 over the medians at hops 1..3
lsq() { for d in 1 2 3; do echo "$d $(med "$1" "$2" $d)"; done |
        awk '{n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2}
             END {printf "%.1f", (n * sxy - sx * sy) / (n * sxx - sx * sx)}'; }
key() { awk -F' = ' -v k="$1" '$1 == k {print $2}' "$2"; }

printf 'round\tlf_ns\tls_ns\tlb_ns_per_byte\to8_ns\theldout_median_pct\theldout_max_pct\theldout_max_size\trelay_per_hop_ns\tpredicted_per_hop_ns\trelay_err_pct\trate_delta_ns_per_byte\trate_truth_ns_per_byte\trate_err_pct\trate_hop_ns\twire_packet_ns\theldout_spread_pct\n' >"$dir/figures.tsv"
for ((r = 1; r <= rounds; r++)); do
    f=$dir/fit-r$r
    "$bin/calibrate" --max-error 100 --data "$dir/r2-r$r.tsv" "$dir/r4-r$r.tsv" "$dir/r6-r$r.tsv" "$dir/t22-r$r.tsv" \
        --validate "$dir/r5-r$r.tsv" --validation-out "$f-validation.tsv" -o "$f.params" >"$f.txt" 2>&1
    [ -s "$f.params" ] || { echo "figures: round $r: calibrate failed, see $f.txt" >&2; continue; }
    lf=$(key lf_ns "$f.params") ls=$(key ls_ns "$f.params") lb=$(key lb_ns_per_byte "$f.params")
    lp=$(key lp_ns "$f.params")
    o8=$(awk -F' = ' '/^o_seg[0-9]+_from_bytes/ {n = $2} /^o_seg[0-9]+_ns =/ {a[n] = $2}
                      /^o_seg[0-9]+_ns_per_byte/ {b[n] = $2}
                      /^o0_ns =/ {o0 = $2} /^o1_ns_per_byte =/ {o1 = $2} /^mref_bytes =/ {mref = $2}
                      END {if (!(1 in a)) {printf "%.1f", o0 + o1 * (8 - mref); exit}
                           best = 1; for (k in a) if (k + 0 <= 8 && k + 0 >= best) best = k + 0;
                           printf "%.1f", a[best] + b[best] * (8 - best)}' "$f.params")
    read -r vmed vmax vsize < <(awk '!/^#/ {e = $7 < 0 ? -$7 : $7; print e, $1}' "$f-validation.tsv" |
        sort -g | awk '{v[NR] = $1; s[NR] = $2} END {printf "%.2f %.2f %d\n", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[NR], s[NR]}')
    spread=$(for n in r2 r4 r6 t22 r5; do
                 awk -v m="$vsize" '!/^#/ && $10 == m {k = $3; c[k]++
                          if (!(k in lo) || $14 < lo[k]) lo[k] = $14; if ($14 > hi[k]) hi[k] = $14}
                      END {for (k in c) if (c[k] > 1) printf "%.2f\n", 100 * (hi[k] / lo[k] - 1)}' "$dir/$n-r$r.tsv"
             done | sort -g | tail -n 1)
    # growth per hop at 8 B on the shortest-way ring (hops = destination 1..3)
    slope=$(lsq "$dir/b6-r$r.tsv" 8)
    pred=$(awk -v lp="$lp" -v lf="$lf" -v lb="$lb" 'BEGIN {printf "%.1f", lp + lf + 8 * lb}')
    rerr=$(awk -v a="$slope" -v b="$pred" 'BEGIN {printf "%.1f", 100 * (a - b) / b}')
    # per-byte cost between 32 and 64 KiB, every destination of rings 2 and 4
    delta=$(for net in 2 4; do for ((d = 1; d < net; d++)); do
                q1=$(med "$dir/q$net-r$r.tsv" 32768 $d) q2=$(med "$dir/q$net-r$r.tsv" 65536 $d)
                r1=$(med "$dir/r$net-r$r.tsv" 32768 $d) r2=$(med "$dir/r$net-r$r.tsv" 65536 $d)
                echo "$q1 $q2 $r1 $r2"
            done; done | awk '{s += (($2 - $1) - ($4 - $3)) / 32768; n++} END {printf "%.3f", s / n}')
    truth=$(awk -v bps="$RATE_BPS" -v mtu="$MTU" 'BEGIN {printf "%.3f", 8e9 / bps * (mtu + 14) / (mtu - 52)}')
    qerr=$(awk -v a="$delta" -v b="$truth" 'BEGIN {printf "%.1f", 100 * (a - b) / b}')
    qhop=- wire=-
    if [ -s "$dir/p6-r$r.tsv" ]; then
        qhop=$(awk -v a="$(lsq "$dir/p6-r$r.tsv" 65536)" -v b="$(lsq "$dir/b6-r$r.tsv" 65536)" 'BEGIN {printf "%.1f", a - b}')
        wire=$(awk -v bps="$RATE_BPS" -v mtu="$MTU" 'BEGIN {printf "%.1f", 8e9 / bps * (mtu + 14)}')
    fi
    printf '%d\t%.0f\t%.0f\t%.4f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$lf" "$ls" "$lb" "$o8" \
        "$vmed" "$vmax" "$vsize" "$slope" "$pred" "$rerr" "$delta" "$truth" "$qerr" "$qhop" "$wire" "${spread:--}" >>"$dir/figures.tsv"
done
column -t "$dir/figures.tsv"
echo
# median [min, max] of every column over the rounds
awk -F'\t' 'NR == 1 {for (i = 2; i <= NF; i++) h[i] = $i; nf = NF; next}
            {for (i = 2; i <= NF; i++) if ($i != "-") v[i, ++c[i]] = $i}
            END {for (i = 2; i <= nf; i++) {
                   m = c[i]; if (!m) continue; for (a = 1; a <= m; a++) x[a] = v[i, a]
                   for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (x[b] + 0 < x[a] + 0) {t = x[a]; x[a] = x[b]; x[b] = t}
                   med = m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
                   printf "%-24s median %10.3f  [%s .. %s] over %d rounds\n", h[i], med, x[1], x[m], m}}' "$dir/figures.tsv"
