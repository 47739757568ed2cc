#!/bin/bash
# Writes the schedule of examples/halo3d.c on a periodic 4x4x4 process grid
# (64 ranks, rank = (x*4+y)*4+z) as GOAL, and its traffic matrix: per step
# six Irecv and six Isend of the faces (768, 1024, 1536 B in x, y, z), a
# Waitall, the relaxation (calc), and an 8-byte recursive-doubling
# Allreduce; the stand-in for `scitrace goal` of a traced run.
# Usage: scisim/halo3d_goal.sh STEPS CALC_NS OUT.goal OUT.tsv
set -eu
steps=$1 calc=$2 goal=$3 tsv=$4
awk -v steps="$steps" -v calc="$calc" -v tsv="$tsv" 'function bxor(a, b,   r, bit) {   # mawk has no xor()
  r = 0; bit = 1
  while (a > 0 || b > 0) { if ((a % 2) != (b % 2)) r += bit; a = int(a / 2); b = int(b / 2); bit *= 2 }
  return r
}
BEGIN {
  n = 4; P = 64; split("768 1024 1536", size, " ")
  print "num_ranks " P
  printf "# scitorus-traffic 1\n# ranks: %d\n# source: scisim/halo3d_goal.sh %d steps\n# collectives: allreduce recursive doubling\n# columns: src dst size_bytes messages\n", P, steps > tsv
  for (r = 0; r < P; r++) {
    x = int(r / 16); y = int(r / 4) % 4; z = r % 4
    print "rank " r " {"
    prev = ""
    for (s = 0; s < steps; s++) {
      for (d = 0; d < 3; d++) for (w = 0; w < 2; w++) {
        f = 2 * d + w; dir = w ? 1 : -1
        if (d == 0) { tx = (x + dir + n) % n; fx = (x - dir + n) % n; to = (tx * 4 + y) * 4 + z; from = (fx * 4 + y) * 4 + z }
        if (d == 1) { ty = (y + dir + n) % n; fy = (y - dir + n) % n; to = (x * 4 + ty) * 4 + z; from = (x * 4 + fy) * 4 + z }
        if (d == 2) { tz = (z + dir + n) % n; fz = (z - dir + n) % n; to = (x * 4 + y) * 4 + tz; from = (x * 4 + y) * 4 + fz }
        printf "r%d_%d: recv %db from %d tag %d\n", s, f, size[d + 1], from, f
        printf "s%d_%d: send %db to %d tag %d\n", s, f, size[d + 1], to, f
        if (prev != "") { printf "r%d_%d requires %s\ns%d_%d requires %s\n", s, f, prev, s, f, prev }
        if (s == 0) cnt[r "," to "," size[d + 1]]++
      }
      printf "c%d: calc %d\n", s, calc
      for (f = 0; f < 6; f++) printf "c%d requires r%d_%d\nc%d requires s%d_%d\n", s, s, f, s, s, f
      last = "c" s
      for (k = 1; k < P; k *= 2) {
        p = bxor(r, k)
        printf "a%d_%d: send 8b to %d tag %d\nb%d_%d: recv 8b from %d tag %d\n", s, k, p, 100 + k, s, k, p, 100 + k
        printf "a%d_%d requires %s\nb%d_%d requires %s\n", s, k, last, s, k, last
        if (s == 0) cnt[r "," p ",8"]++
        # the next round needs this round received and sent
        printf "e%d_%d: calc 0\ne%d_%d requires a%d_%d\ne%d_%d requires b%d_%d\n", s, k, s, k, s, k, s, k, s, k
        last = "e" s "_" k
      }
      prev = last
    }
    print "}"
  }
  for (key in cnt) { split(key, v, ","); printf "%d\t%d\t%d\t%d\n", v[1], v[2], v[3], cnt[key] * steps >> tsv }
}' > "$goal"
