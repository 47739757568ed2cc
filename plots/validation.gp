# validation.gp: calibrate --full's held-out check -- the held-out network's
# measured latency and the model's prediction against message size, and the
# prediction's error in percent (docs/model.md, 'Point-to-point latency').
#
# gnuplot -e "data='x-full-validation.tsv'; out='plots/out/validation'; term='png'" validation.gp
#
# data: calibrate --validation-out (columns size_bytes hm fm sm measured_ns
# predicted_ns error_pct; "# held-out:" and "# fitted on:" header lines).

set datafile separator "\t"
set datafile commentschars "#"
if (term eq "png") { set terminal pngcairo size 1000,800 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 1000,800 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }

# the target band (5%) and the stricter aim (2%) of the held-out check
band = 5
moon = 2
stats data using 7 nooutput
worst = (abs(STATS_min) > abs(STATS_max)) ? abs(STATS_min) : abs(STATS_max)
npts = STATS_records
heldout = system(sprintf("sed -n 's/^# held-out: //p' '%s' | head -n 1", data))

set multiplot
set lmargin 12
set rmargin 4
set logscale x 2
set grid
set origin 0,0.35
set size 1,0.65
set bmargin 0
set format x ""
set logscale y
set ylabel "ping-pong latency / 2 (ns)"
set key top left
set title sprintf("held-out validation: %s (%d sizes, worst error %.1f%%)", heldout, npts, worst) noenhanced
plot data using 1:5 with linespoints pt 7 ps 0.9 lc "royalblue" title "measured (held out, not fitted)", \
     data using 1:6 with linespoints pt 6 ps 1.3 dt 2 lw 2 lc "red" title "predicted from the other networks' fit"
unset title
set origin 0,0.04
set size 1,0.28
set tmargin 0
set bmargin 3
set format x "%g"
unset logscale y
set xlabel "message size (bytes)"
set ylabel "error (%)"
set key off
set yrange [*:*]
plot data using 1:7 with impulses lw 3 lc "black", \
     band with lines dt 2 lc "red", -band with lines dt 2 lc "red", \
     moon with lines dt 3 lc "gray50", -moon with lines dt 3 lc "gray50", 0 with lines lc "gray50"
unset multiplot
