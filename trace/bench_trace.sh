#!/usr/bin/env bash
# bench_trace.sh: the tracer's figures for `make bench` (issue 12).
#
#   bench_trace.sh BIN_DIR
#
# 1. Overhead per message: (a) one process sending itself 1-byte messages
#    (bin/test/trace_app selfcost), untraced and traced, RUNS pairs in
#    alternating order: no second core, so no latency regime in the way;
#    (b) mpibench PP (8 B and 512 B, 2 ranks) without and
#    with libscitrace.so, RUNS pairs (default 5) in alternating order, each
#    pair bracketed by `scibench --floor`; pairs whose floors differ by more
#    than 10% (the VM changed latency regime) are dropped.  A PP half round
#    trip holds one traced MPI_Send and one traced MPI_Recv, so the
#    difference is what tracing adds to a message.  Target: < 50 ns.
# 2. Bounded memory: bin/test/trace_app sends 10^7 messages over 4 million
#    (size, tag) keys, untraced and traced; peak RSS of each rank.
# 3. Analyzer throughput: `scitrace summary` and `scitrace matrix` over a
#    synthetic trace of 16 ranks x 100 000 records, records per second.
# 4. With OSU_ALLTOALL=/path/to/osu_alltoall (OSU micro-benchmarks, built
#    beside the project, never part of it): traced on 4 ranks, every ordered
#    pair must carry the same alltoall bytes.  Skipped when unset.
set -euo pipefail
bin=$1
runs=${RUNS:-5}
lib=$(cd "$bin" && pwd)/libscitrace.so
mpirun_args=(--oversubscribe)
[ "$(id -u)" = 0 ] && mpirun_args+=(--allow-run-as-root)
tmp=$(mktemp -d /tmp/scitorus-bench-trace.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
floor() { "$bin/scibench" --floor | cut -f2; }
# mpibench's median half round trips at 8 and 512 B; $1 = plain | traced
pp() {
    local pre=()
    [ "$1" = traced ] && pre=(-x "LD_PRELOAD=$lib" -x "SCITRACE_DIR=$tmp/pp")
    timeout 120 mpirun "${mpirun_args[@]}" -np 2 "${pre[@]}" "$bin/mpibench" -q --sizes 8,512 \
        --max-time 1 --rel-error 0.002 | grep -v '^#' | awk '{ printf " %s", $14 }'
}

selfcost() {
    local pre=()
    [ "$1" = traced ] && pre=(-x "LD_PRELOAD=$lib" -x "SCITRACE_DIR=$tmp/self")
    timeout 120 mpirun "${mpirun_args[@]}" -np 1 "${pre[@]}" "$bin/test/trace_app" selfcost 200000 |
        awk '{ print $5 }'
}
echo "bench-trace: 1a. tracing overhead, one rank sending itself 1 B (Isend + Recv + Wait)"
for i in $(seq "$runs"); do
    if [ $((i % 2)) = 1 ]; then a=$(selfcost plain); b=$(selfcost traced); else b=$(selfcost traced); a=$(selfcost plain); fi
    echo "$a $b" >> "$tmp/self.txt"
done
printf '  plain %.1f ns  traced %.1f ns  added %.1f ns per message (medians of %d pairs; target < 50 ns)\n' \
    "$(cut -d' ' -f1 "$tmp/self.txt" | median)" "$(cut -d' ' -f2 "$tmp/self.txt" | median)" \
    "$(awk '{ print $2 - $1 }' "$tmp/self.txt" | median)" "$runs"
# instructions: callgrind counts them exactly, free of the VM's drift
if command -v valgrind > /dev/null; then
    instr() {
        local pre=()
        [ "$1" = traced ] && pre=(-x "LD_PRELOAD=$lib" -x "SCITRACE_DIR=$tmp/self")
        timeout 300 mpirun "${mpirun_args[@]}" -np 1 "${pre[@]}" valgrind --tool=callgrind \
            --callgrind-out-file=/dev/null "$bin/test/trace_app" selfcost 20000 2>&1 |
            awk '/refs:/ { gsub(",", "", $NF); print $NF }'
    }
    a=$(instr plain); b=$(instr traced)
    echo "  instructions (callgrind, 180000 messages): $(( (b - a) / 180000 )) added per message"
fi
echo "bench-trace: 1b. tracing overhead, mpibench PP half round trip, 2 ranks on one host"
for i in $(seq "$runs"); do
    f1=$(floor)
    if [ $((i % 2)) = 1 ]; then a=$(pp plain); b=$(pp traced); else b=$(pp traced); a=$(pp plain); fi
    echo "$f1 $(floor)$a$b" >> "$tmp/pp.txt"
done
awk '{ r = $1 > $2 ? $1 / $2 : $2 / $1; if (r <= 1.10) print }' "$tmp/pp.txt" > "$tmp/kept"
echo "  $(wc -l < "$tmp/kept") of $runs pairs kept; floor $(awk '{ print ($1 + $2) / 2 }' "$tmp/kept" | median) ns (the regime)"
if [ ! -s "$tmp/kept" ]; then
    echo "  no pair kept: the latency regime changed within every pair (see 1a, which needs no second core)"
    k_sizes=""
else
    printf '  %6s %12s %12s %14s\n' size plain_ns traced_ns added_ns
    k_sizes="0 1"
fi
for k in $k_sizes; do
    size=$([ $k = 0 ] && echo 8 || echo 512)
    printf '  %6s %12.1f %12.1f %14.1f\n' "$size" \
        "$(awk -v c=$((3 + k)) '{ print $c }' "$tmp/kept" | median)" \
        "$(awk -v c=$((5 + k)) '{ print $c }' "$tmp/kept" | median)" \
        "$(awk -v c=$((3 + k)) '{ print $(c + 2) - $c }' "$tmp/kept" | median)"
done
echo "  (added: median over pairs of traced - plain; target < 50 ns per message)"

echo "bench-trace: 2. 10^7 messages over 4 million (size, tag) keys, peak RSS per rank"
for mode in plain traced; do
    pre=()
    [ $mode = traced ] && pre=(-x "LD_PRELOAD=$lib" -x "SCITRACE_DIR=$tmp/many")
    start=$(date +%s.%N)
    timeout 300 mpirun "${mpirun_args[@]}" -np 2 "${pre[@]}" "$bin/test/trace_app" many 10000000 |
        sort > "$tmp/rss-$mode"
    t=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
    printf '  %-7s %s  (%s s)\n' $mode "$(awk '{ printf "rank %s %6.1f MiB  ", $3 + 0, $6 / 1024 }' "$tmp/rss-$mode")" "$t"
done
awk '/^table/ { printf "  rank file: %d of %d table entries used, ", $2, $3 } /^rec / { m += $7; f += $9 }
     END { printf "%d messages recorded, %d folded records\n", m, f }' "$tmp/many/rank-00000.trace"

echo "bench-trace: 3. analyzer throughput, synthetic trace of 16 ranks x 100000 records"
mkdir -p "$tmp/syn"
for r in $(seq 0 15); do
    awk -v r=$r 'BEGIN { n = 100000; printf "# scitrace-rank 1\nrank %d\nranks 16\nstatus finalized\nhost h\ncommand synthetic\ntable %d 65536\ndropped 0 0\nuntraced_starts 0\n", r, n
        printf "comm 0 0123456789abcdef 0 16"; for (i = 0; i < 16; i++) printf " %d", i; print ""
        for (i = 0; i < n / 2; i++) { p = (r + 1 + i % 15) % 16; q = (r + 15 - i % 15) % 16; t = int(i / 15)
            printf "rec send %d 0 %d %d 3 %d 0\nrec recv %d 0 %d %d 3 %d 0\n", p, t, 8 * (i % 64), 24 * (i % 64), q, t, 8 * (i % 64), 24 * (i % 64) }
        printf "end %d\n", n + 10 }' > "$tmp/syn/rank-$(printf %05d $r).trace"
done
for mode in summary matrix; do
    for i in 1 2 3; do
        s=$(date +%s.%N)
        if [ $mode = summary ]; then "$bin/scitrace" summary "$tmp/syn" > /dev/null
        else "$bin/scitrace" matrix -o "$tmp/syn.tsv" "$tmp/syn"; fi
        awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { print e - s }'
    done | median | awk -v m=$mode '{ printf "  scitrace %-8s %6.2f s  %6.2f million records/s\n", m, $1, 1.6 / $1 }'
done
grep -q "0 sends unmatched, 0 receives unmatched" <("$bin/scitrace" summary "$tmp/syn") ||
    { echo "bench-trace: the synthetic trace should match completely" >&2; exit 1; }

echo "bench-trace: 4. OSU micro-benchmarks' osu_alltoall traced on 4 ranks"
if [ -z "${OSU_ALLTOALL:-}" ] || [ ! -x "$OSU_ALLTOALL" ]; then
    echo "  skipped: set OSU_ALLTOALL=/path/to/osu_alltoall (built from source beside the project)"
    exit 0
fi
"$bin/scitrace" run -d "$tmp/osu" -- mpirun "${mpirun_args[@]}" -np 4 "$OSU_ALLTOALL" -m 4096 \
    > "$tmp/osu.out" 2> "$tmp/osu.err" || { cat "$tmp/osu.err" >&2; exit 1; }
"$bin/scitrace" matrix --calls alltoall -o "$tmp/osu-a2a.tsv" "$tmp/osu"
"$bin/scitrace" matrix -o "$tmp/osu-all.tsv" "$tmp/osu"
pairs() { awk -F'\t' '/^#/ { next } { b[$1 " " $2] += $3 * $4 } END { for (k in b) print b[k] }' "$1" | sort -g | uniq -c; }
echo "  alltoall only: ordered pairs by bytes (count bytes):"; pairs "$tmp/osu-a2a.tsv" | sed 's/^/   /'
n=$(pairs "$tmp/osu-a2a.tsv" | wc -l); cnt=$(pairs "$tmp/osu-a2a.tsv" | awk '{ print $1 }')
if [ "$n" = 1 ] && [ "$cnt" = 12 ]; then echo "  every ordered pair of the 4 ranks: the same alltoall bytes (as it must)"
else echo "  FAIL: alltoall bytes differ between ordered pairs" >&2; exit 1; fi
echo "  whole matrix (OSU's timing reductions and barriers expanded too): $(pairs "$tmp/osu-all.tsv" | wc -l) distinct per-pair byte totals"
