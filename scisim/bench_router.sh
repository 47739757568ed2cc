#!/bin/bash
# make bench-router: the router model's speed against BookSim 2's on the
# same run -- uniform traffic at 0.2 flits per node per cycle on an 8x8
# torus, 1-flit packets, VCs of 8 flits, 2 and 8 VCs, BookSim's 3000-cycle
# warm-up and a 3000-cycle measurement -- in simulated flit-hops (flits
# crossing a link) per CPU second, medians of RUNS interleaved runs.
# Usage: scisim/bench_router.sh BINDIR RUNS; BookSim from $BOOKSIM: a
# booksim binary built beside the project, never part of it.
set -u
bin=${1:-bin}
runs=${2:-3}
if [ -z "${BOOKSIM:-}" ]; then
  echo "bench-router: flit-hops/s against BookSim 2: not measured: BOOKSIM is not set (a booksim"
  echo "  binary built beside the project: docs/router.md 'Speed')"
  exit 0
fi
[ -x "$BOOKSIM" ] || { echo "bench-router: not measured: $BOOKSIM is not an executable (BOOKSIM)"; exit 1; }
tmp=$(mktemp -d /tmp/bench-router-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
cpu() { awk 'END {print $1 + $2}' "$tmp/time"; }   # the last line: time notes an exit status before it
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
