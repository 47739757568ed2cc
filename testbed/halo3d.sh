#!/bin/bash
# testbed/halo3d.sh: the application path on a testbed torus.
#   halo3d.sh trace NAME OUTDIR [STEPS] [BINDIR]
#       trace halo3d with one rank per node of testbed NAME (up, e.g.
#       scitestbed --name NAME up --torus 2x2) into OUTDIR/trace
#   halo3d.sh duplex NAME SHAPE PARAMS OUTDIR [BINDIR]
#       measure a two-rank exchange on nodes 0 and 1 of testbed NAME
#       (mpibench --op alltoall --sync window, 8 and 1024 B; each rank's
#       median, as the replay's times are each rank's), replay one on PARAMS,
#       and write OUTDIR/duplex.txt: D0,D1 for scisim --duplex, the line
#       through the two sizes' differences (measured - replayed)
#   halo3d.sh compare SHAPE PARAMS OUTDIR [BINDIR [SELF [DUPLEX]]]
#       write its schedule (scitrace goal), replay it with scisim on the
#       torus's calibrated PARAMS (a rank's messages to itself on SELF's
#       endpoints, e.g. a shared-memory calibration: MPI copies them in
#       memory), and compare communication time, rank by rank:
#   measured   the time inside MPI calls (the trace's enter/exit times),
#              MPI_Finalize and MPI_Comm_free not counted
#   predicted  the replay's finishing time minus the schedule's calc
# both over steps 2..: step 1 carries Open MPI's connection set-up (the
# first message to each peer, 10-30 ms here), which the model has not.
# Prints per rank and the mean; writes OUTDIR/halo3d-compare.tsv.
set -eu
mode=${1:?usage: halo3d.sh trace|compare ...}
if [ "$mode" = trace ]; then
    name=$2 out=$3 steps=${4:-500}
    bin=$(cd "${5:-bin}" && pwd)
    mkdir -p "$out"
    rm -rf "$out/trace"
    "$bin/scitrace" run -d "$out/trace" -- "$bin/scitestbed" --name "$name" run --timeout 300 -- \
        "$bin/halo3d" --steps "$steps" >"$out/run.log" 2>&1 || { cat "$out/run.log" >&2; exit 1; }
    exit 0
fi
if [ "$mode" = duplex ]; then
    [ $# -ge 5 ] || { echo "usage: halo3d.sh duplex NAME SHAPE PARAMS OUTDIR [BINDIR]" >&2; exit 2; }
    name=$2 shape=$3 params=$4 out=$5
    [ -r "$params" ] || { echo "halo3d.sh duplex: PARAMS '$params': not readable" >&2; exit 2; }
    bin=$(cd "${6:-bin}" && pwd)
    mkdir -p "$out"
    "$bin/scitestbed" --name "$name" run --nodes 0,1 --timeout 300 -- "$bin/mpibench" --op alltoall \
        --sync window --sizes 8,1024 --min-samples 1000 --max-samples 2000 --node-times -q \
        -o "$out/exchange.tsv" >"$out/exchange.log" 2>&1 ||
        { cat "$out/exchange.log" >&2; exit 1; }
    for m in 8 1024; do
        printf 'num_ranks 2\nrank 0 {\nl1: send %sb to 1 tag 1\nl2: recv %sb from 1 tag 1\n}\n' $m $m >"$out/x.goal"
        printf 'rank 1 {\nl1: send %sb to 0 tag 1\nl2: recv %sb from 0 tag 1\n}\n' $m $m >>"$out/x.goal"
        replayed=$("$bin/scisim" "$out/x.goal" --params "$params" --shape "$shape" --format tsv -q |
            awk 'NR == 2 {print $5}')
        measured=$(awk -v m=$m '/^# columns:/ {for (i = 3; i <= NF; i++) c[$i] = i - 2}
            !/^#/ && $c["size"] == m {n = split($c["node_ns"], t, ","); s = 0
                for (i = 1; i <= n; i++) s += t[i]; print s / n}' "$out/exchange.tsv")
        echo "$m $measured $replayed"
    done | awk '{m[NR] = $1; d[NR] = $2 - $3; printf "# %d B: exchange %s ns, one message replayed %s ns\n", $1, $2, $3}
        END {b = (d[2] - d[1]) / (m[2] - m[1]); if (b < 0) b = 0; a = d[1] - b * m[1]; if (a < 0) a = 0
             printf "%.0f,%.4f\n", a, b}' >"$out/duplex.txt"
    cat "$out/duplex.txt"
    exit 0
fi
[ "$mode" = compare ] || { echo "halo3d.sh: trace, duplex or compare, not '$mode'" >&2; exit 2; }
shape=$2 params=$3 out=$4 self=${6:-} duplex=${7:-}
bin=$(cd "${5:-bin}" && pwd)
"$bin/scitrace" goal -o "$out/app.goal" "$out/trace"
# the first step: each rank's operations up to its part of the first
# Allreduce (the second collective: tag 1000000001), and their dependencies
awk '/^rank / {keep = 1; last = 0; print; n = 0; delete buf; next}
     /^}/ {for (i = 1; i <= n; i++) { split(buf[i], f, " ");
              if (f[2] == "requires" || f[2] == "irequires") {
                  a = substr(f[1], 2) + 0; b = substr(f[3], 2) + 0
                  if (a <= last && b <= last) print buf[i] }
              else if (substr(f[1], 2, length(f[1]) - 2) + 0 <= last) print buf[i] }
           print; next}
     /^l[0-9]+:/ {buf[++n] = $0; if ($0 ~ /tag 1000000001$/) last = substr($1, 2, length($1) - 2) + 0; next}
     /^l[0-9]+ i?requires/ {buf[++n] = $0; next}
     {print}' "$out/app.goal" >"$out/step1.goal"
for g in app step1; do
    "$bin/scisim" "$out/$g.goal" --params "$params" ${self:+--self-params "$self"} \
        ${duplex:+--duplex "$duplex"} --shape "$shape" \
        --ranks --format tsv -q -o "$out/$g-sim.tsv"
done
# calc per rank after step 1, and measured time in calls after each rank's
# first Allreduce (its second collective call)
awk '/^rank / {r = $2; last = -1} /^l[0-9]+:/ {l = substr($1, 2, length($1) - 2) + 0}
     /tag 1000000001$/ {last = l} / calc / {c[r, l] = $3} /^}/ {for (k in c) {split(k, p, SUBSEP);
         if (p[1] == r && p[2] > last) s[r] += c[k]}} END {for (r in s) print r, s[r]}' \
    "$out/app.goal" | sort -n >"$out/calc-after1.txt"
for f in "$out"/trace/rank-*.trace; do   # (binary records: read their text form)
    "$bin/scitrace" dump "$f" |
    awk '/^rank / {r = $2} /^> / {t = $2; coll = ($4 == "bcast" || $4 == "allreduce")}
         /^> / && coll {ncoll++} /^< / && ncoll >= 2 && !first {first = 1; next}
         /^< / && first && c != "finalize" && c != "comm_free" {s += $2 - t}
         /^> / {c = $4} END {print r, s}'
done | sort -n >"$out/measured.txt"
# scisim --ranks --format tsv: the per-rank block's rows "rank finish_ns"
join <(awk 'NF == 2 && $1 ~ /^[0-9]+$/' "$out/app-sim.tsv") \
     <(awk 'NF == 2 && $1 ~ /^[0-9]+$/' "$out/step1-sim.tsv") |
    join - "$out/calc-after1.txt" | join - "$out/measured.txt" |
    awk 'BEGIN {OFS = "\t"; print "rank", "measured_ns", "predicted_ns", "error_pct"}
         {p = $2 - $3 - $4; e = 100 * (p - $5) / $5; print $1, $5, p, sprintf("%.1f", e); sm += $5; sp += p}
         END {print "mean", sm / NR, sp / NR, sprintf("%.1f", 100 * (sp - sm) / sm)}' |
    tee "$out/halo3d-compare.tsv"
