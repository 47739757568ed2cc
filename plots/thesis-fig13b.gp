# thesis-fig13b.gp: the thesis's Fig. 13b (Gonzalez 2000), ping-pong latency
# by ring size at one message size, measured beside the model, and the
# measured deviation from it extrapolated linearly to 1000 nodes.
#
# gnuplot -e "model='m.tsv'; measured='x.tsv'; size=64; out='o'; term='png'" thesis-fig13b.gp
# model: nodes model_ns; measured: nodes measured_ns model_ns (one row a ring)

set datafile separator "\t"
if (term eq "png") { set terminal pngcairo size 1000,700 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 1000,700 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }

# the deviation (measured - model) against N, fitted by a line through the
# measured rings (as the thesis extrapolates it), needs two rings
stats measured using 1:($2 - $3) skip 1 nooutput
nrings = STATS_records
slope = nrings >= 2 ? STATS_slope : 0
icept = nrings >= 2 ? STATS_intercept : 0
stats model using 1:2 skip 1 nooutput
nmax = STATS_max_x
model_at_max = STATS_max_y
dev_pct = 100 * (icept + slope * nmax) / model_at_max
set logscale x 2
set logscale y
set format x "%g"
set grid
set key top left
set xlabel "nodes on the ring, N (destination N/2 hops away)"
set ylabel sprintf("ping-pong latency / 2 at %d B (ns)", size)
set title sprintf("thesis Fig. 13b: latency by ring size, %d-byte messages", size)
if (nrings >= 2) {
    set label 1 sprintf("measured - model, extrapolated linearly from %d rings: %+.1f%% at N = %d", \
                        nrings, dev_pct, nmax) at graph 0.98, graph 0.06 right front
    plot model using 1:2 skip 1 with lines lw 2 lc "red" title "model (params file)", \
         model using 1:($2 + icept + slope * $1) skip 1 with lines lw 1 dt 2 lc "royalblue" title "model + measured deviation, extrapolated", \
         measured using 1:2 skip 1 with points pt 7 ps 1.3 lc "royalblue" title "measured"
} else {
    set label 1 "one ring measured: no deviation to extrapolate" at graph 0.98, graph 0.06 right front
    plot model using 1:2 skip 1 with lines lw 2 lc "red" title "model (params file)", \
         measured using 1:2 skip 1 with points pt 7 ps 1.3 lc "royalblue" title "measured"
}
