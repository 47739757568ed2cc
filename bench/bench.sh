#!/usr/bin/env bash
# bench.sh: the benchmarks' speed figures for `make bench`,
# measured side by side, medians of RUNS runs (default 5).
#
#   bench.sh shm BIN_DIR   scibench PP at 8 B, 64 B, 4 KiB against the bare floor, and
#                          beside it the floor's bounce carrying the same 8 B
#                          (copied in and out, no header, no benchmark): how
#                          much of the ratio copying alone takes here
#   bench.sh mpi BIN_DIR   mpibench PP against OSU osu_latency (when the
#                          environment variable OSU_LATENCY names it)
#
# Every run is bracketed by `scibench --floor` measurements (bench-mpi takes
# one more between mpibench and OSU).  Some machines (VMs whose virtual CPUs
# move between host cores) change their core-to-core latency between runs,
# by 5x on the development VM: a run whose floors differ by more than 10% is
# dropped, and the rest are grouped by floor (a group per regime), so no
# ratio mixes two machines.
set -euo pipefail
mode=$1 bin=$2
runs=${RUNS:-5}
mpirun_args=(--oversubscribe -np 2)
[ "$(id -u)" = 0 ] && mpirun_args+=(--allow-run-as-root)
tmp=$(mktemp -d /tmp/scitorus-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

floor() { "$bin/scibench" --floor | cut -f2; }

# regimes FILE: lines "floor_before floor_after value..." -> the kept lines,
# each prefixed with its group number (groups: floors within 30% of the
# group's first), sorted by floor.
regimes() {
    awk '{ a = $1; b = $2; if ((a > b ? a / b : b / a) <= 1.10) print }' "$1" | sort -g |
        awk '{ f = ($1 + $2) / 2; if (NR == 1 || f > 1.3 * first) { g++; first = f } print g, $0 }'
}
# median of the numbers on stdin
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
# column K of group G's lines of FILE
col() { awk -v g="$2" -v k="$3" '$1 == g { print $k }' "$1"; }
# keep FILE TITLE: FILE's runs grouped by regime into $tmp/kept; says how many
keep() {
    regimes "$1" > "$tmp/kept"
    echo "$2; $(wc -l < "$tmp/kept") of $runs runs kept (their floors within 10% of each other)"
}
# the kept groups, and a group's title line
groups() { cut -d' ' -f1 "$tmp/kept" | sort -u; }
group_title() {
    local n
    n=$(col "$tmp/kept" "$1" 1 | wc -l)
    printf '  floor %.1f ns (%d runs)%s:\n' "$( (col "$tmp/kept" "$1" 2; col "$tmp/kept" "$1" 3) | median)" \
        "$n" "$([ "$n" -ge 3 ] || echo ', too few to trust: raise RUNS')"
}

if [ "$mode" = shm ]; then
    for i in $(seq "$runs"); do
        # the first floor comes with the copy loop, measured alternately with it
        read -r f1 copy < <("$bin/scibench" --floor --sizes 8 | grep -v '^#' | cut -f2,3)
        pp=$("$bin/scibench" -q --sizes 8,64,4096 --max-time 1 --rel-error 0.002 | grep -v '^#' |
             cut -f14 | tr '\n' ' ')
        f2=$(floor)
        # f1 f2 copy pp8 pp64 pp4k, then ratios: pp8 pp64 pp4k copy over the mean floor
        echo "$f1 $f2 $copy $pp" |
            awk '{ f = ($1 + $2) / 2; print $1, $2, $3, $4, $5, $6, $4 / f, $5 / f, $6 / f, $3 / f }' \
            >> "$tmp/shm"
    done
    keep "$tmp/shm" "bench-shm: ping-pong half round trip against the bare floor"
    for g in $(groups); do
        group_title "$g"
        fl=$( (col "$tmp/kept" "$g" 2; col "$tmp/kept" "$g" 3) | median)
        # 8 B: at most 1.20 where the floor is 40 ns or more, 1.70 below
        t=$(awk -v f="$fl" 'BEGIN { print (f >= 40 ? "1.20" : "1.70") }')
        k=5
        for s in 8 64 4096; do
            printf '    scibench PP %5s B %8.1f ns  ratio %5.2f%s\n' "$s" "$(col "$tmp/kept" "$g" $k | median)" \
                "$(col "$tmp/kept" "$g" $((k + 3)) | median)" "$([ "$s" = 8 ] && echo "  (target <= $t)")"
            k=$((k + 1))
        done
        printf '    bare 8 B copy loop %8.1f ns  ratio %5.2f  (the floor with 8 B copied in and out, nothing else)\n' \
            "$(col "$tmp/kept" "$g" 4 | median)" "$(col "$tmp/kept" "$g" 11 | median)"
    done
    echo "  (ratios: medians over runs of value / mean of the run's two floors; 64 B and"
    echo "   4 KiB have no fixed target: compare runs of the same regime; the 8 B target"
    echo "   is make validate's, docs/VALIDATION.md)"
    exit 0
fi

sizes="8 64 512 4096 65536"
nsizes=5
# mpibench's medians (column 14), then its means (column 15)
mpibench() {
    timeout 120 mpirun "${mpirun_args[@]}" "$bin/mpibench" -q --sizes "${sizes// /,}" \
        --max-time 1 --rel-error 0.002 | grep -v '^#' |
        awk '{ med = med " " $14; mean = mean " " $15 } END { printf "%s%s", med, mean }'
}
osu() {
    # OSU 5.x sweeps 0 B..4 MiB; the sizes compared are picked out.  Its figure
    # is a mean, which one preemption inflates: the median of 3 runs is taken
    for j in 1 2 3; do timeout 300 mpirun "${mpirun_args[@]}" "$OSU_LATENCY"; done |
        awk -v want="$sizes" 'BEGIN { n = split(want, w) }
                              /^[0-9]/ { c[$1]++; v[$1, c[$1]] = $2 * 1000 }
                              END { for (i = 1; i <= n; i++) { s = w[i]; m = c[s]
                                      for (a = 2; a <= m; a++) for (b = a; b > 1 && v[s, b - 1] > v[s, b]; b--) {
                                          t = v[s, b]; v[s, b] = v[s, b - 1]; v[s, b - 1] = t }
                                      printf " %s", m % 2 ? v[s, (m + 1) / 2] : (v[s, m / 2] + v[s, m / 2 + 1]) / 2 } }'
}
if [ -z "${OSU_LATENCY:-}" ]; then
    for i in $(seq "$runs"); do echo "$(floor) $(floor)$(mpibench)" >> "$tmp/mpi"; done
else
    # mpibench and OSU back to back, in alternating order, with a floor
    # before, between and after (the lowest and highest of them are kept)
    for i in $(seq "$runs"); do
        f1=$(floor)
        if [ $((i % 2)) = 1 ]; then
            m=$(mpibench); f2=$(floor); o=$(osu)
        else
            o=$(osu); f2=$(floor); m=$(mpibench)
        fi
        echo "$f1 $f2 $(floor)" | awk '{ lo = $1; hi = $1; for (i = 2; i <= 3; i++) {
                                          if ($i < lo) lo = $i; if ($i > hi) hi = $i }
                                        printf "%s %s", lo, hi }' >> "$tmp/mpi"
        echo "$m$o" >> "$tmp/mpi"
    done
fi
# kept lines: group, two floors, nsizes medians, nsizes means, nsizes OSU
keep "$tmp/mpi" "bench-mpi: PP half round trip, 2 ranks on one host"
for g in $(groups); do
    group_title "$g"
    if [ -z "${OSU_LATENCY:-}" ]; then
        printf '  %8s %14s %14s\n' size median_ns mean_ns
    else
        printf '  %8s %14s %14s %14s %8s\n' size median_ns mean_ns osu_latency_ns ratio
    fi
    k=4
    for s in $sizes; do
        a=$(col "$tmp/kept" "$g" $k | median)
        b=$(col "$tmp/kept" "$g" $((k + nsizes)) | median)
        if [ -z "${OSU_LATENCY:-}" ]; then
            printf '  %8s %14.1f %14.1f\n' "$s" "$a" "$b"
        else
            o=$(col "$tmp/kept" "$g" $((k + 2 * nsizes)) | median)
            r=$(awk -v g="$g" -v k=$k -v o=$((k + 2 * nsizes)) '$1 == g { print $k / $o }' "$tmp/kept" |
                median)
            printf '  %8s %14.1f %14.1f %14.1f %8.3f\n' "$s" "$a" "$b" "$o" "$r"
        fi
        k=$((k + 1))
    done
done
if [ -z "${OSU_LATENCY:-}" ]; then
    echo "  mpibench / osu_latency: not measured: set OSU_LATENCY=/path/to/osu_latency"
    echo "  (OSU built beside the project; mpibench's median and mean only)"
else
    echo "  (ratio: median over runs of mpibench's median / osu_latency's mean, measured"
    echo "   back to back; the median, because one hiccup of a VM inflates a mean; on a"
    echo "   quiet machine the two agree.  Target within 0.90..1.10 at every size)"
fi
