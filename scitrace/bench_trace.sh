#!/usr/bin/env bash
# bench_trace.sh: the tracer's figures for `make bench`.
#
#   bench_trace.sh BIN_DIR      (BEFORE_LIB=/path/to/an/older/libscitrace.so
#                                adds it to 1a, measured in the same rounds;
#                                PARTS="1a 2" runs only those parts)
#
# 1. Overhead per message: (a) one process sending itself 1-byte messages
#    (bin/test/trace_app selfcost: Isend + Recv + Wait, 3 traced calls),
#    untraced, traced (and traced by BEFORE_LIB), RUNS rounds in rotating
#    order: no second core, so no latency regime in the way; the load
#    average and `scibench --floor` before and after say what the machine
#    was doing;
#    the same rounds time the loop in 4000 batches of 256 messages too
#    (trace_app selfbatch): their 10th percentile leaves out the batches
#    that the machine's other work or a move of the rank file's window fell
#    into, so it holds under load where the medians do not (and it is the
#    cost without the windows' share);
#    the same rounds run halo3d's step on one rank (trace_app selfhalo:
#    6 Irecv + 6 Isend to itself, a Waitall of 12, an Allreduce: 14 calls),
#    what part 4's traced steps add per rank without the other ranks;
#    (b) mpibench PP (8 B and 512 B, 2 ranks) without and
#    with libscitrace.so, RUNS pairs (default 5) in alternating order, each
#    pair bracketed by `scibench --floor`; pairs whose floors differ by more
#    than 10% (the VM changed latency regime) are dropped.  A PP half round
#    trip holds one traced MPI_Send and one traced MPI_Recv, so the
#    difference is what tracing adds to a message.  Each call writes one
#    16-byte record on entry and completes it on return (trace/tracebin.h),
#    timed by the TSC where the kernel's clocksource is tsc, read twice a
#    call: what one read costs (and one clock_gettime) is measured in the
#    same run, the floor of a call's cost.  docs/VALIDATION-tracer.md has
#    the figures.
# 2. Memory and disk: bin/test/trace_app sends 10^6 messages, untraced and
#    traced; peak RSS of each rank (the library maps a 4 MiB window of its
#    file, all of it resident once mapped) and the rank file's bytes per call.
# 3. Analyzer throughput: `scitrace summary` and `scitrace check` over a
#    synthetic trace of 16 ranks x 100 000 calls, calls per second.
# 4. halo3d (examples/halo3d.c), 8 ranks, 3000 steps, untraced and traced,
#    RUNS rounds in alternating order: the steps' time (halo3d's own clock,
#    without mpirun's start-up), the medians and the median ratio of a
#    round, the load before and after; and the traced run's trace size.
# 5. With OSU_ALLTOALL=/path/to/osu_alltoall (OSU micro-benchmarks, built
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
parts=${PARTS:-1a 1b 2 3 4 5}
part() { [[ " $parts " == *" $1 "* ]]; }
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
floor() { "$bin/scibench" --floor | cut -f2; }
# the regime, for 1a: the load average and the shared-memory floor (or why none)
regime() {
    local f
    f=$(timeout 60 "$bin/scibench" --floor 2>&1 | head -1)
    echo "load average $(cut -d' ' -f1-3 /proc/loadavg), scibench --floor: ${f//$'\t'/ }"
}
# mpibench's median half round trips at 8 and 512 B; $1 = plain | traced
pp() {
    local pre=()
    [ "$1" = traced ] && pre=(-x "LD_PRELOAD=$lib" -x "SCITRACE_DIR=$tmp/pp")
    timeout 120 mpirun "${mpirun_args[@]}" -np 2 "${pre[@]}" "$bin/mpibench" -q --sizes 8,512 \
        --max-time 1 --rel-error 0.002 | grep -v '^#' | awk '{ printf " %s", $14 }'
}

selfcost() {   # $1 = plain | a library; $2 = selfcost (default) | selfhalo
    local pre=() mode=${2:-selfcost}
    [ "$1" != plain ] && pre=(-x "LD_PRELOAD=$1" -x "SCITRACE_DIR=$tmp/self")
    rm -rf "$tmp/self"
    timeout 120 mpirun "${mpirun_args[@]}" -np 1 "${pre[@]}" "$bin/test/trace_app" "$mode" \
        $([ "$mode" = selfcost ] && echo 200000 || echo 20000) | awk '{ print $(NF - 3) }'
}
batch() {   # $1 = plain | a library: the 10th percentile, ns per message
    local pre=()
    [ "$1" != plain ] && pre=(-x "LD_PRELOAD=$1" -x "SCITRACE_DIR=$tmp/self")
    rm -rf "$tmp/self"
    timeout 120 mpirun "${mpirun_args[@]}" -np 1 "${pre[@]}" "$bin/test/trace_app" selfbatch 4000 |
        awk '{ print $6 }'
}
libs=(plain "$lib")
[ -n "${BEFORE_LIB:-}" ] && libs+=("$BEFORE_LIB")
if part 1a; then
echo "bench-trace: 1a. tracing overhead, one rank sending itself 1 B (Isend + Recv + Wait: 3 calls)"
echo "  before: $(regime)"
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2> /dev/null || echo unknown)
echo "  times from: $([ "$cs" = tsc ] && [ -z "${SCITRACE_NO_TSC:-}" ] && echo "the TSC (clocksource tsc)" || echo "clock_gettime (clocksource $cs)")"
echo "  one clock read (a traced call makes two): $("$bin/test/trace_app" clockcost | sed 's/^trace_app: clockcost //; s/tsc/TSC/')"
for i in $(seq "$runs"); do
    row=()
    for k in $(seq 0 $((${#libs[@]} - 1))); do   # rotate the order each round
        j=$(( (k + i) % ${#libs[@]} ))
        row[$j]=$(selfcost "${libs[$j]}")
        halo[$j]=$(selfcost "${libs[$j]}" selfhalo)
        bat[$j]=$(batch "${libs[$j]}")
    done
    echo "${row[*]}" >> "$tmp/self.txt"
    echo "${bat[*]}" >> "$tmp/batch.txt"
    echo "${halo[*]}" >> "$tmp/selfhalo.txt"
done
printf '  plain %.1f ns  traced %.1f ns  added %.1f ns per message, %.1f per call (medians of %d rounds)\n' \
    "$(cut -d' ' -f1 "$tmp/self.txt" | median)" "$(cut -d' ' -f2 "$tmp/self.txt" | median)" \
    "$(awk '{ print $2 - $1 }' "$tmp/self.txt" | median)" \
    "$(awk '{ print ($2 - $1) / 3 }' "$tmp/self.txt" | median)" "$runs"
if [ -n "${BEFORE_LIB:-}" ]; then
    printf '  before (%s): traced %.1f ns, added %.1f ns per message, %.1f per call\n' "$BEFORE_LIB" \
        "$(cut -d' ' -f3 "$tmp/self.txt" | median)" "$(awk '{ print $3 - $1 }' "$tmp/self.txt" | median)" \
        "$(awk '{ print ($3 - $1) / 3 }' "$tmp/self.txt" | median)"
fi
printf '  batches, 10th percentile: plain %.1f ns  traced %.1f ns  added %.1f ns per call (medians of %d rounds)\n' \
    "$(cut -d' ' -f1 "$tmp/batch.txt" | median)" "$(cut -d' ' -f2 "$tmp/batch.txt" | median)" \
    "$(awk '{ print ($2 - $1) / 3 }' "$tmp/batch.txt" | median)" "$runs"
if [ -n "${BEFORE_LIB:-}" ]; then
    printf '  batches, before: traced %.1f ns, added %.1f ns per call\n' \
        "$(cut -d' ' -f3 "$tmp/batch.txt" | median)" "$(awk '{ print ($3 - $1) / 3 }' "$tmp/batch.txt" | median)"
fi
printf '  halo step on one rank (14 calls): plain %.1f ns  traced %.1f ns  added %.1f ns per step (medians)\n' \
    "$(cut -d' ' -f1 "$tmp/selfhalo.txt" | median)" "$(cut -d' ' -f2 "$tmp/selfhalo.txt" | median)" \
    "$(awk '{ print $2 - $1 }' "$tmp/selfhalo.txt" | median)"
if [ -n "${BEFORE_LIB:-}" ]; then
    printf '  halo step, before: traced %.1f ns, added %.1f ns per step\n' \
        "$(cut -d' ' -f3 "$tmp/selfhalo.txt" | median)" "$(awk '{ print $3 - $1 }' "$tmp/selfhalo.txt" | median)"
fi
echo "  after:  $(regime)"
echo "  rounds (ns per message: plain traced${BEFORE_LIB:+ before}): $(tr '\n' ';' < "$tmp/self.txt")"
echo "  rounds (ns per halo step): $(tr '\n' ';' < "$tmp/selfhalo.txt")"
echo "  rounds (batches' 10th percentile, ns per message): $(tr '\n' ';' < "$tmp/batch.txt")"
# instructions: callgrind counts them exactly, free of the VM's drift
if command -v valgrind > /dev/null; then
    instr() {   # $1 = plain | a library; $2 = selfcost N | selfhalo N
        local pre=()
        [ "$1" != plain ] && pre=(-x "LD_PRELOAD=$1" -x "SCITRACE_DIR=$tmp/self")
        rm -rf "$tmp/self"
        timeout 300 mpirun "${mpirun_args[@]}" -np 1 "${pre[@]}" valgrind --tool=callgrind \
            --callgrind-out-file=/dev/null "$bin/test/trace_app" $2 2>&1 |
            awk '/refs:/ { gsub(",", "", $NF); print $NF }'
    }
    # 9 rounds of 20000 messages, of 2000 halo steps
    a=$(instr plain "selfcost 20000"); b=$(instr "$lib" "selfcost 20000")
    h=$(instr plain "selfhalo 2000"); g=$(instr "$lib" "selfhalo 2000")
    echo "  instructions (callgrind): $(( (b - a) / 180000 )) added per message, $(( (g - h) / 18000 )) per halo step"
    if [ -n "${BEFORE_LIB:-}" ]; then
        c=$(instr "$BEFORE_LIB" "selfcost 20000"); f=$(instr "$BEFORE_LIB" "selfhalo 2000")
        echo "  instructions, before: $(( (c - a) / 180000 )) added per message, $(( (f - h) / 18000 )) per halo step"
    fi
fi
fi
if part 1b; then
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
echo "  (added: median over pairs of traced - plain, per message: two traced calls)"
fi

if part 2; then
echo "bench-trace: 2. 10^6 messages rank 0 -> rank 1, peak RSS per rank and rank file size"
for mode in plain traced; do
    pre=()
    [ $mode = traced ] && pre=(-x "LD_PRELOAD=$lib" -x "SCITRACE_DIR=$tmp/many")
    start=$(date +%s.%N)
    timeout 300 mpirun "${mpirun_args[@]}" -np 2 "${pre[@]}" "$bin/test/trace_app" many 1000000 |
        sort > "$tmp/rss-$mode"
    t=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
    printf '  %-7s %s  (%s s)\n' $mode "$(awk '{ printf "rank %s %6.1f MiB  ", $3 + 0, $6 / 1024 }' "$tmp/rss-$mode")" "$t"
done
printf '  rank file: %s bytes per call (rank 0, 10^6 sends)\n' \
    "$(awk -v b="$(stat -c %s "$tmp/many/rank-00000.trace")" 'BEGIN { printf "%.1f", b / 1e6 }')"
rm -rf "$tmp/many"
fi

if part 3; then
echo "bench-trace: 3. analyzer throughput, synthetic trace of 16 ranks x 100000 calls"
mkdir -p "$tmp/syn"
for r in $(seq 0 15); do
    awk -v r=$r 'BEGIN { n = 100000; printf "# scitrace-rank 2\nrun syn\nrank %d\nranks 16\nhost h\ncommand synthetic\nstart_ns 1\n", r
        printf "comm 0 0123456789abcdef 0 16"; for (i = 0; i < 16; i++) printf " %d", i; print "\nphase 0 main"
        t = 0
        for (i = 0; i < n / 2; i++) { p = (r + 1 + i % 15) % 16; q = (r + 15 - i % 15) % 16; g = int(i / 15)
            printf "> %d 0 send 1 0 %d %d %d\n< %d\n> %d 0 recv 1 0 %d %d %d\n< %d %d %d %d\n", t, p, g, 8 * (i % 64), t + 1, t + 2, q, g, 8 * (i % 64), t + 3, q, g, 8 * (i % 64); t += 4 }
        printf "status finalized\nend %d\n", 2 * n + 10 }' > "$tmp/syn/rank-$(printf %05d $r).trace"
done
for mode in summary check; do
    for i in 1 2 3; do
        s=$(date +%s.%N)
        "$bin/scitrace" $mode "$tmp/syn" > /dev/null || true
        awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { print e - s }'
    done | median | awk -v m=$mode '{ printf "  scitrace %-8s %6.2f s  %6.2f million calls/s\n", m, $1, 1.6 / $1 }'
done
grep -q "0 sends unmatched, 0 receives unmatched" <("$bin/scitrace" summary "$tmp/syn") ||
    { echo "bench-trace: the synthetic trace should match completely" >&2; exit 1; }
fi
if part 4; then
echo "bench-trace: 4. halo3d, 8 ranks, 3000 steps, untraced and traced in alternating order ($runs rounds)"
echo "  before: $(regime)"
halo() {   # $1 = plain | traced: the steps' seconds
    local pre=()
    if [ "$1" = traced ]; then
        rm -rf "$tmp/halo"
        pre=(-x "LD_PRELOAD=$lib" -x "SCITRACE_DIR=$tmp/halo")
    fi
    timeout 300 mpirun "${mpirun_args[@]}" -np 8 "${pre[@]}" "$bin/halo3d" --steps 3000 |
        awk '/steps took/ { print $5 }'
}
for i in $(seq "$runs"); do
    if [ $((i % 2)) = 1 ]; then a=$(halo plain); b=$(halo traced); else b=$(halo traced); a=$(halo plain); fi
    echo "$a $b" >> "$tmp/halo.txt"
done
printf '  steps: untraced %.3f s, traced %.3f s (medians); traced / untraced in a round: median %.3f, range %s\n' \
    "$(cut -d' ' -f1 "$tmp/halo.txt" | median)" "$(cut -d' ' -f2 "$tmp/halo.txt" | median)" \
    "$(awk '{ print $2 / $1 }' "$tmp/halo.txt" | median)" \
    "$(awk '{ print $2 / $1 }' "$tmp/halo.txt" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }')"
echo "  untraced runs alone: $(cut -d' ' -f1 "$tmp/halo.txt" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f s", lo, hi }') (their spread is the noise)"
echo "  trace: $(cat "$tmp/halo"/rank-*.trace | wc -c) bytes, 8 rank files"
echo "  after:  $(regime)"
echo "  rounds (s: untraced traced): $(tr '\n' ';' < "$tmp/halo.txt")"
fi

part 5 || exit 0

echo "bench-trace: 5. OSU micro-benchmarks' osu_alltoall traced on 4 ranks"
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
