#!/bin/bash
# make router-figure: latency against offered load through the router model,
# uniform traffic on an 8x8 torus with 2 and 8 VCs of 8 flits, 1-flit packets.
# Usage: scisim/latency_load.sh BINDIR OUTDIR
set -eu
bin=$1 out=$2
mkdir -p "$out"
for v in 2 8; do
  "$bin/scisim" --traffic-pattern uniform --shape 8x8 --links bi --router "vc:$v,packet:64" -q \
    -o "$out/router-uniform-8x8-vc$v.tsv"
done
gnuplot -e "files='$out/router-uniform-8x8-vc2.tsv $out/router-uniform-8x8-vc8.tsv'; out='$out/router-latency-load'; term='png'" \
  scisim/latency_load.gp
echo "router-figure: $out/router-latency-load.png (data $out/router-uniform-8x8-vc*.tsv)"
