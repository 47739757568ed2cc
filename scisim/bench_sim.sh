#!/bin/bash
# make bench-sim: scisim's replay speed against LogGOPSim's on the same
# 16384-rank dissemination schedule (written by LogGOPSim's schedgen),
# text parsing included on both sides (LogGOPSim: txt2bin, then the
# simulator), events per second, medians of RUNS interleaved runs.
# Usage: scisim/bench_sim.sh BINDIR RUNS; LogGOPSim from $LOGGOPSIM: the src/
# directory of a LogGOPSim build (LogGOPSim/LogGOPSim, LogGOPSim/txt2bin,
# Schedgen/schedgen), built beside the project, never part of it.
set -u
bin=${1:-bin}
runs=${2:-3}
ranks=16384
if [ -z "${LOGGOPSIM:-}" ]; then
  echo "bench-sim: events/s against LogGOPSim: not measured: LOGGOPSIM is not set (the src/"
  echo "  directory of a LogGOPSim build beside the project, with LogGOPSim/LogGOPSim,"
  echo "  LogGOPSim/txt2bin and Schedgen/schedgen; built beside the project, as OSU is: docs/VALIDATION.md)"
  exec scisim/bench_engine.sh "$bin" "$runs"
fi
lg=$LOGGOPSIM/LogGOPSim/LogGOPSim t2b=$LOGGOPSIM/LogGOPSim/txt2bin sg=$LOGGOPSIM/Schedgen/schedgen
for x in "$lg" "$t2b" "$sg"; do
  [ -x "$x" ] || { echo "bench-sim: not measured: $x is not an executable (LOGGOPSIM=$LOGGOPSIM)"; exit 1; }
done
tmp=$(mktemp -d /tmp/bench-sim-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$sg" -p dissemination -s $ranks -d 8 -o "$tmp/d.goal" >/dev/null || { echo "bench-sim: schedgen failed"; exit 1; }
now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
: >"$tmp/lg" ; : >"$tmp/ss"
for ((i = 0; i < runs; i++)); do
  t0=$(now)
  "$t2b" -i "$tmp/d.goal" -o "$tmp/d.bin" >/dev/null || { echo "bench-sim: txt2bin failed"; exit 1; }
  out=$("$lg" -f "$tmp/d.bin" -b) || { echo "bench-sim: LogGOPSim failed"; exit 1; }
  t1=$(now)
  ev_lg=$(sed -n 's/.*Events: \([0-9]*\).*/\1/p' <<<"$out")
  echo "$t0 $t1" | awk '{print $2 - $1}' >>"$tmp/lg"
  t0=$(now)
  row=$("$bin/scisim" "$tmp/d.goal" --loggp L=2500 --format tsv -q | tail -n 1) || { echo "bench-sim: scisim failed"; exit 1; }
  t1=$(now)
  ev_ss=$(cut -f5 <<<"$row")
  echo "$t0 $t1" | awk '{print $2 - $1}' >>"$tmp/ss"
done
t_lg=$(median <"$tmp/lg") t_ss=$(median <"$tmp/ss")
awk -v el="$ev_lg" -v es="$ev_ss" -v tl="$t_lg" -v ts="$t_ss" -v n="$runs" -v p=$ranks 'BEGIN {
  printf "bench-sim: %d-rank dissemination, 8 B, LogGP defaults; medians of %d interleaved runs\n", p, n
  printf "  LogGOPSim (txt2bin + LogGOPSim): %.3f s, %d events, %.3g events/s\n", tl, el, el / tl
  printf "  scisim --loggp:                  %.3f s, %d events, %.3g events/s\n", ts, es, es / ts
  printf "  ratio scisim / LogGOPSim events/s: %.2f (goal >= 1.0)\n", (es / ts) / (el / tl) }'
scisim/bench_engine.sh "$bin" "$runs"
