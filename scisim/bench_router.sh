#!/bin/bash
# make bench-router: the router model's speed against BookSim 2's on the
# same run -- uniform traffic at 0.2 flits per node per cycle on an 8x8
# torus, 1-flit packets, VCs of 8 flits, 2 and 8 VCs, BookSim's 3000-cycle
# warm-up and a 3000-cycle measurement -- in simulated flit-hops (flits
# crossing a link) per CPU second, medians of RUNS interleaved runs.
# Then the replay with the router off, before and after the router model
# entered the replay path.  Usage: scisim/bench_router.sh BINDIR RUNS; BookSim from $BOOKSIM:
# a booksim binary built beside the project, never part of it.
set -u
bin=${1:-bin}
runs=${2:-3}
tmp=$(mktemp -d /tmp/bench-router-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
cpu() { awk 'END {print $1 + $2}' "$tmp/time"; }   # the last line: time notes an exit status before it
against_booksim() {
  for v in 2 8; do
    cat >"$tmp/vc$v.cfg" <<EOF
topology = torus;
k = 8;
n = 2;
routing_function = dim_order;
num_vcs = $v;
vc_buf_size = 8;
traffic = uniform;
packet_size = 1;
injection_rate = 0.2;
sim_type = latency;
EOF
    : >"$tmp/bs$v" ; : >"$tmp/ss$v"
  done
  for ((i = 0; i < runs; i++)); do
    for v in 2 8; do
      # BookSim's flit-hops: the flits it accepted over the whole run times
      # its mean links (its hops count the routers, one more than the links)
      /usr/bin/time -f "%U %S" -o "$tmp/time" "$BOOKSIM" "$tmp/vc$v.cfg" >"$tmp/out" 2>&1
      awk -v t="$(cpu)" '/Time taken is/ {c = $4} /^Accepted flit rate average =/ {a = $6}
        /^Hops average =/ {h = $4} END { if (c && a && h) print a * 64 * c * (h - 1) / t }' \
        "$tmp/out" >>"$tmp/bs$v"
      /usr/bin/time -f "%U %S" -o "$tmp/time" "$bin/scisim" --traffic-pattern uniform --shape 8x8 \
        --links bi --router "vc:$v,packet:64" --rate 0.2 --warmup 3000 --measure 3000 \
        --saturation-step 1 -q >"$tmp/out" 2>&1 || { echo "bench-router: scisim failed"; exit 1; }
      awk -v t="$(cpu)" '/^# speed/ {print $3 / t}' "$tmp/out" >>"$tmp/ss$v"
    done
  done
  echo "bench-router: uniform 0.2 on 8x8, 1-flit packets, VCs of 8 flits; flit-hops per CPU s,"
  echo "  medians of $runs interleaved runs (user + system time of each process)"
  for v in 2 8; do
    [ "$(wc -l <"$tmp/bs$v")" -eq "$runs" ] || { echo "bench-router: BookSim's output lacked its figures"; exit 1; }
    b=$(median <"$tmp/bs$v") s=$(median <"$tmp/ss$v")
    awk -v b="$b" -v s="$s" -v v="$v" 'BEGIN {
      printf "  vc:%d  BookSim %.3g  scisim %.3g  ratio scisim / BookSim %.2f (goal >= 1.0)\n", v, b, s, s / b }'
  done
}
if [ -z "${BOOKSIM:-}" ]; then
  echo "bench-router: flit-hops/s against BookSim 2: not measured: BOOKSIM is not set (a booksim"
  echo "  binary built beside the project: docs/router.md 'Speed')"
elif [ ! -x "$BOOKSIM" ]; then
  echo "bench-router: not measured: $BOOKSIM is not an executable (BOOKSIM)"; exit 1
else
  against_booksim
fi

# The replay with the router off, before and after the commit that put
# the router model into the replay path (the first to add depart_ns to
# sim/net.c), both built here from git: halo3d, 1000 steps, 64 ranks on
# 4x4x4, a params file without errors (no interval replays), with and
# without --contention; CPU time, medians of RUNS interleaved runs.
hook=$(git log --format=%H -S depart_ns -- sim/net.c 2>/dev/null | tail -n 1)
if [ -z "$hook" ]; then
  echo "bench-router: the replay with the router off: not measured (no git history)"
  exit 0
fi
for which in old new; do
  c=$hook; [ $which = old ] && c=$hook^
  mkdir -p "$tmp/$which"
  git archive "$c" | tar -x -C "$tmp/$which" && make -C "$tmp/$which" -j2 bin/scisim >/dev/null 2>&1 ||
    { echo "bench-router: building the scisim of $c failed"; exit 1; }
  : >"$tmp/$which-zero"; : >"$tmp/$which-contention"
done
scisim/halo3d_goal.sh 1000 20000 "$tmp/halo.goal" "$tmp/halo.tsv"
for ((i = 0; i < runs; i++)); do
  for mode in zero contention; do
    extra=(); [ $mode = contention ] && extra=(--contention)
    for which in old new; do
      /usr/bin/time -f "%U %S" -o "$tmp/time" "$tmp/$which/bin/scisim" "$tmp/halo.goal" \
        --params tests/fixtures/params/current.params --shape 4x4x4 --links bi --format tsv -q \
        "${extra[@]}" >"$tmp/$which.out" || { echo "bench-router: the $which scisim failed"; exit 1; }
      cpu >>"$tmp/$which-$mode"
    done
    [ "$(cut -f5 "$tmp/old.out")" = "$(cut -f5 "$tmp/new.out")" ] ||
      { echo "bench-router: the replays' makespans differ ($mode)"; exit 1; }
  done
done
echo "bench-router: halo3d (1000 steps, 64 ranks) replayed on 4x4x4 without --router, before and"
echo "  after ${hook:0:7} (the router model in the replay path), same makespans; CPU s, medians"
echo "  (and range) of $runs interleaved runs"
for mode in zero contention; do
  o=$(median <"$tmp/old-$mode") n=$(median <"$tmp/new-$mode")
  so=$(sort -g "$tmp/old-$mode" | sed -n '1p;$p' | paste -sd' ') sn=$(sort -g "$tmp/new-$mode" | sed -n '1p;$p' | paste -sd' ')
  awk -v o="$o" -v n="$n" -v m="$mode" -v so="$so" -v sn="$sn" 'BEGIN { split(so, a, " "); split(sn, b, " ")
    v = n <= o ? "met" : n <= a[2] ? "inside the noise: the median after is within the runs before" : "slower"
    printf "  %-11s before %.3f (%.3f .. %.3f)  after %.3f (%.3f .. %.3f)  ratio after / before %.3f\n", \
      m, o, a[1], a[2], n, b[1], b[2], n / o
    printf "              goal <= 1.0: %s\n", v }'
done
