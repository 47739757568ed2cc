#!/bin/bash
# make bench-sim, second part: the replay engine on wide schedules -- a
# linear alltoall of 8 B predicted on a LogP file (512 and 1024 ranks:
# every rank posts P - 1 receives at once), a 16384-rank dissemination
# (14 rounds of 8 B, written here) on LogGP, halo3d (1000 steps, 64 ranks) on 4x4x4 with contention
# -- before and after the commit that gave each matching queue its own
# table (both built here: the one before from git), same outputs; CPU s
# and peak resident memory, medians (and range) of RUNS interleaved runs.
# Usage: scisim/bench_engine.sh BINDIR RUNS
set -u
bin=${1:-bin}
runs=${2:-3}
hook=$(git log --format=%H -S sched_match_table -- sched/match.h 2>/dev/null | tail -n 1)
if [ -z "$hook" ]; then
  echo "bench-sim: the engine before and after: not measured (no git history)"
  exit 0
fi
tmp=$(mktemp -d /tmp/bench-engine-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/old"
git archive "$hook^" | tar -x -C "$tmp/old" && make -C "$tmp/old" -j2 bin/scisim >/dev/null 2>&1 ||
  { echo "bench-sim: building the scisim of ${hook:0:7}^ failed"; exit 1; }
scisim/halo3d_goal.sh 1000 20000 "$tmp/halo.goal" "$tmp/halo.tsv"
awk -v P=16384 'BEGIN { print "num_ranks " P
  for (r = 0; r < P; r++) {
    print "rank " r " {"
    for (k = 0; 2 ^ k < P; k++) {
      d = 2 ^ k
      printf "s%d: send 8b to %d tag %d\nr%d: recv 8b from %d tag %d\n", k, (r + d) % P, k, k, (r - d + P) % P, k
      if (k) printf "s%d requires r%d\ns%d requires s%d\n", k, k - 1, k, k - 1
    }
    print "}" } }' >"$tmp/dissemination.goal"
lp=data/sample/logp-shm.tsv
cases=(a2a512 a2a1024 dissemination halo3d)
args() {
  case $1 in
    a2a512)  echo --collective alltoall --algorithm linear --procs 512 --size 8 --logp $lp ;;
    a2a1024) echo --collective alltoall --algorithm linear --procs 1024 --size 8 --logp $lp ;;
    dissemination) echo "$tmp/dissemination.goal" --loggp L=2500 --ranks --format tsv ;;
    halo3d)  echo "$tmp/halo.goal" --params tests/fixtures/params/current.params --shape 4x4x4 --links bi \
                  --contention --ranks --format tsv ;;
  esac
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
for ((i = 0; i < runs; i++)); do
  for c in "${cases[@]}"; do
    for which in old new; do
      b=$bin/scisim; [ $which = old ] && b=$tmp/old/bin/scisim
      # shellcheck disable=SC2046
      /usr/bin/time -f "%U %S %M" -o "$tmp/time" $b $(args $c) -q >"$tmp/$which.out" ||
        { echo "bench-sim: the $which scisim failed ($c)"; exit 1; }
      awk 'END {print $1 + $2}' "$tmp/time" >>"$tmp/$which-$c-cpu"
      awk 'END {print $3 / 1024}' "$tmp/time" >>"$tmp/$which-$c-mem"
    done
    cmp -s "$tmp/old.out" "$tmp/new.out" || { echo "bench-sim: the replays' outputs differ ($c)"; exit 1; }
  done
done
echo "bench-sim: the engine before and after ${hook:0:7} (a matching table per queue), same outputs;"
echo "  CPU s and peak resident MB, medians (and range) of $runs interleaved runs"
for c in "${cases[@]}"; do
  for m in cpu mem; do
    o=$(median <"$tmp/old-$c-$m") n=$(median <"$tmp/new-$c-$m")
    ro=$(sort -g "$tmp/old-$c-$m" | sed -n '1p;$p' | paste -sd' ') rn=$(sort -g "$tmp/new-$c-$m" | sed -n '1p;$p' | paste -sd' ')
    awk -v o="$o" -v n="$n" -v c="$c" -v m="$m" -v ro="$ro" -v rn="$rn" 'BEGIN { split(ro, a, " "); split(rn, b, " ")
      v = n <= o ? "met" : n <= a[2] ? "inside the noise: the median after is within the runs before" : "not met"
      printf "  %-13s %-3s before %8.3f (%.3f .. %.3f)  after %8.3f (%.3f .. %.3f)  after / before %.2f (goal <= 1.0: %s)\n", \
        c, m, o, a[1], a[2], n, b[1], b[2], n / o, v }'
  done
done
