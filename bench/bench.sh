#!/usr/bin/env bash
# bench.sh: the benchmarks' speed figures for `make bench` (issue 3),
# measured side by side in one run, medians of RUNS runs.
#
#   bench.sh shm BIN_DIR          scibench PP at 8 B / the bare floor
#   bench.sh mpi BIN_DIR          mpibench PP vs OSU osu_latency (if the
#                                 environment variable OSU_LATENCY names it)
set -euo pipefail
mode=$1 bin=$2
runs=${RUNS:-5}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mpirun_args=(--oversubscribe -np 2)
[ "$(id -u)" = 0 ] && mpirun_args+=(--allow-run-as-root)

if [ "$mode" = shm ]; then
    : > /tmp/scitorus-bench-ratio.$$
    for i in $(seq "$runs"); do
        floor=$("$bin/scibench" --floor | cut -f2)
        pp=$("$bin/scibench" -q --sizes 8 --max-time 1 --rel-error 0.002 | grep -v '^#' | cut -f14)
        echo "$pp $floor" | awk '{printf "%.4f %s %s\n", $1/$2, $1, $2}' >> /tmp/scitorus-bench-ratio.$$
    done
    r=$(cut -d' ' -f1 /tmp/scitorus-bench-ratio.$$ | median)
    p=$(cut -d' ' -f2 /tmp/scitorus-bench-ratio.$$ | median)
    f=$(cut -d' ' -f3 /tmp/scitorus-bench-ratio.$$ | median)
    rm -f /tmp/scitorus-bench-ratio.$$
    printf 'bench-shm (medians of %d runs)\n  scibench PP 8 B (median) %.1f ns, floor %.1f ns: ratio %.2f (target <= 1.15)\n' \
        "$runs" "$p" "$f" "$r"
    exit 0
fi

sizes="8 64 512 4096 65536"
declare -A ours theirs ratios
for s in $sizes; do ours[$s]=""; theirs[$s]=""; ratios[$s]=""; done
for i in $(seq "$runs"); do
    timeout 120 mpirun "${mpirun_args[@]}" "$bin/mpibench" -q --sizes 8,64,512,4096,65536 \
        --max-time 1 --rel-error 0.002 | grep -v '^#' > /tmp/scitorus-mpi.$$
    for s in $sizes; do ours[$s]+="$(awk -v s=$s '$10==s {print $14}' /tmp/scitorus-mpi.$$) "; done
    if [ -n "${OSU_LATENCY:-}" ]; then
        # (OSU 5.x sweeps 0 B..4 MiB; the sizes we compare are picked below)
        timeout 300 mpirun "${mpirun_args[@]}" "$OSU_LATENCY" > /tmp/scitorus-osu.$$
        for s in $sizes; do
            a=$(awk -v s=$s '$10==s {print $14}' /tmp/scitorus-mpi.$$)
            b=$(awk -v s=$s '$1==s {print $2*1000}' /tmp/scitorus-osu.$$)
            theirs[$s]+="$b "
            ratios[$s]+="$(echo "$a $b" | awk '{print $1/$2}') "
        done
    fi
done
rm -f /tmp/scitorus-mpi.$$ /tmp/scitorus-osu.$$
echo "bench-mpi: PP half round trip, 2 ranks on one host, medians of $runs runs"
if [ -z "${OSU_LATENCY:-}" ]; then
    echo "  (OSU comparison skipped: set OSU_LATENCY=/path/to/osu_latency, built beside the project)"
    printf '  %8s %14s\n' size mpibench_ns
    for s in $sizes; do printf '  %8s %14.1f\n' "$s" "$(echo ${ours[$s]} | tr ' ' '\n' | median)"; done
    exit 0
fi
# The machine's speed changes between runs, so each run's two sweeps (back
# to back) give one ratio; the ratio printed is the median of those.
printf '  %8s %14s %14s %8s\n' size mpibench_ns osu_latency_ns ratio
for s in $sizes; do
    a=$(echo ${ours[$s]} | tr ' ' '\n' | median); b=$(echo ${theirs[$s]} | tr ' ' '\n' | median)
    r=$(echo ${ratios[$s]} | tr ' ' '\n' | median)
    printf '  %8s %14.1f %14.1f %8.3f\n' "$s" "$a" "$b" "$r"
done
echo "  (ratio: median over runs of mpibench / osu_latency measured back to back;"
echo "   target within 0.90..1.10 at every size)"
