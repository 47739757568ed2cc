#!/usr/bin/env bash
# bench.sh: calibrate's bounded-time figures for `make bench` (bounded time: 10^4 sizes, 10^6 rows),
# medians of RUNS runs (default 5), each beside a reference measured in the
# same run.
#
#   breakpoints: `calibrate --data` on a 2-node ring with S distinct sizes
#     (one knee), S = 10^3 and 10^4.  The breakpoint search is dynamic
#     programming, O(K S^2): 10x the sizes should cost about 100x (the
#     exhaustive search it replaced was O(S^4), 10^4x).  Reference: the
#     same 10^4 file with --segments 1 (reading, one line, report: what the
#     search adds).
#   merge: `calibrate --data` on two runs of every destination of a 100x100
#     torus at 50 sizes, 10^6 rows and 5 x 10^5 configurations, and on a
#     tenth of it; sort + one pass is O(n log n): ~11x for 10x the rows (the
#     pairwise merge it replaced, O(n^2): 100x).  Reference: coreutils
#     `sort` of the same 10^6 rows by their configuration.
set -euo pipefail
bin=$1
runs=${RUNS:-5}
tmp=$(mktemp -d /tmp/scitorus-bench-cal.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
columns="pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag"

# ring2 S: S distinct sizes 1..S, o(m) with a knee at S/2, 0.5% noise
ring2() {
    awk -v S="$1" -v cols="$columns" 'BEGIN { srand(14);
        print "# scitorus-bench 1"; print "# topology: ring 2"; print "# columns: " cols;
        for (m = 1; m <= S; m++) {
            o = m < S / 2 ? 50 + 0.05 * m : 50 + 0.025 * S + 100 + 0.01 * (m - S / 2);
            y = (2 * o + 6.67) * (1 + 0.005 * (rand() - 0.5));
            printf "pp\t0\t1\t1\t0\t0\t1\t0\t0\t%d\t16\t8\t%.1f\t%.1f\t%.1f\t1.00\t0.50\t%.1f\tok\n", m, y, y + 1, y + 1, y + 5 } }'
}
# torus DSTS: two runs of destinations 1..DSTS of a 100x100 torus at 50
# sizes, counts as topo/ gives them (docs/model.md, 'Topology and notation'), values from the current
# preset's model
torus() {
    awk -v D="$1" -v cols="$columns" 'BEGIN {
        print "# scitorus-bench 1"; print "# topology: torus 100x100"; print "# columns: " cols;
        for (run = 0; run < 2; run++) for (d = 1; d <= D; d++) {
            a = int(d / 100); b = d % 100; H = a + b; k = (a > 0) + (b > 0);
            R = (a ? 100 - a : 0) + (b ? 100 - b : 0);
            for (s = 1; s <= 50; s++) {
                m = 64 * s;
                y = 2 * (2085 + 11.6 * (m - 64)) + (H + R) / 2 * 7 + (H + R - 2 * k) / 2 * 60 + (k - 1) * 670 + run;
                printf "pp\t0\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t16\t8\t%.1f\t%.1f\t%.1f\t2.00\t1.00\t%.1f\tok\n", d, H, H - k, k - 1, R, R - k, k - 1, m, y, y + 1, y + 1, y + 9 } } }'
}
# seconds CMD...: wall-clock seconds of one run of CMD (output discarded)
seconds() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > /dev/null
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
cal() { "$bin/calibrate" -q --data "$@" -o "$tmp/out.params"; }

ring2 1000 > "$tmp/s3.tsv"
ring2 10000 > "$tmp/s4.tsv"
torus 9999 > "$tmp/m6.tsv"
torus 1000 > "$tmp/m5.tsv"
for i in $(seq "$runs"); do
    # interleaved, so a change of the machine's speed falls on all alike
    echo "$(seconds cal "$tmp/s3.tsv") $(seconds cal "$tmp/s4.tsv") $(seconds cal "$tmp/s4.tsv" --segments 1)" >> "$tmp/bp"
    echo "$(seconds cal "$tmp/m5.tsv") $(seconds cal "$tmp/m6.tsv") $(seconds sort -k2,2n -k10,10n "$tmp/m6.tsv")" >> "$tmp/mg"
done
col() { awk -v k="$2" '{ print $k }' "$1" | median; }
ratio() { awk -v k="$2" -v l="$3" '{ print $k / $l }' "$1" | median; }
echo "bench-calibrate (medians of $runs runs, interleaved; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
printf '  breakpoints, 2-node ring, one knee:\n'
printf '    calibrate --data, 10^3 sizes              %7.3f s\n' "$(col "$tmp/bp" 1)"
printf '    calibrate --data, 10^4 sizes              %7.3f s   ratio %.0f to 10^3 (O(S^2): ~100; the exhaustive search was O(S^4))\n' \
    "$(col "$tmp/bp" 2)" "$(ratio "$tmp/bp" 2 1)"
printf '    same 10^4 sizes, --segments 1 (reference) %7.3f s   (reading, one line, report)\n' "$(col "$tmp/bp" 3)"
printf '  merging repeated runs, 100x100 torus, 2 runs x 50 sizes of each destination:\n'
printf '    calibrate --data, %7d rows            %7.3f s\n' "$(($(wc -l < "$tmp/m5.tsv") - 3))" "$(col "$tmp/mg" 1)"
printf '    calibrate --data, %7d rows            %7.3f s   ratio %.1f to 1/10 of the rows (O(n log n): ~11; pairwise was O(n^2): 100)\n' \
    "$(($(wc -l < "$tmp/m6.tsv") - 3))" "$(col "$tmp/mg" 2)" "$(ratio "$tmp/mg" 2 1)"
printf '    sort -k2,2n -k10,10n of those rows (ref.) %7.3f s   calibrate / sort %.2f\n' "$(col "$tmp/mg" 3)" "$(ratio "$tmp/mg" 2 3)"
