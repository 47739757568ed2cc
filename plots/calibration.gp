# calibration.gp: measured ping-pong latency against message size with 95%
# error bars for the nearest destination, the fitted model (o(m) breakpoints
# marked), and the residuals of every point; plus latency against hop count
# when the data's round trips have several.
#
# gnuplot -e "data='bench.tsv'; params='x.params'; out='plots/out/calib'; term='png'" calibration.gp

set datafile separator "\t"
set datafile commentschars "#"
load params
gpdir = system("dirname '".ARG0."'")
if (term eq "png") { set terminal pngcairo size 1000,800 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 1000,800 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }

load gpdir."/params.gp"
# docs/model.md, 'Point-to-point latency': half a round trip = 2 o(m) + Hm lp + Fm lf + Sm ls + (Fm + Sm) g(m)
model(m, h, rh, f, rf, s, rs) = 2*o(m) + (h+rh)/2.0*lp_ns + (f+rf)/2.0*lf_ns + (s+rs)/2.0*ls_ns \
                                + (f+rf+s+rs)/2.0*relay(m)
# columns: 1 pattern 2 src 3 dst 4 hops 5 fwd 6 sw 7 rhops 8 rfwd 9 rsw 10 size
#          11 reps 12 samples 13 min 14 median 15 mean 16 sd 17 ci95 18 max 19 flag
pp(x) = strcol(1) eq "pp" ? x : NaN
# the statistic the fit used (params key fit_statistic, calibrate --stat):
# the points drawn and the residuals are of that column; files written
# before the key existed were fitted on the minimum (calibrate's old default)
statname = exists("fit_statistic") ? fit_statistic : "min"
statcol = statname eq "median" ? 14 : statname eq "mean" ? 15 : 13
stated = exists("fit_statistic") ? "" : ", not stated: min assumed"


# the curve is of one pair, the nearest (fewest hops there and back, then
# the lowest ranks): all-destination data has no pair one hop both ways
stats data using (pp($4 + $7)) nooutput
hsum = STATS_min
hsum_max = STATS_max
stats data using (($4 + $7 == hsum) ? pp($2) : NaN) nooutput
src0 = STATS_min
stats data using (($4 + $7 == hsum && $2 == src0) ? pp($3) : NaN) nooutput
dst0 = STATS_min
stats data using (($2 == src0 && $3 == dst0) ? pp($4) : NaN) nooutput
h0 = STATS_min
stats data using (($2 == src0 && $3 == dst0) ? pp($7) : NaN) nooutput
rh0 = STATS_min
nearest(x) = ($2 == src0 && $3 == dst0) ? pp(x) : NaN
# (measured - model) / measured, as calibrate's residual table
resid(m, h, rh, f, rf, s, rs) = 100 * (column(statcol) - model(m, h, rh, f, rf, s, rs)) \
                                / column(statcol)
# the residuals' RMS over every point, as calibrate prints it
stats data using (pp(resid($10,$4,$7,$5,$8,$6,$9))) nooutput
resid_rms = sqrt(STATS_sumsq / STATS_records)

set multiplot
set lmargin 12
set rmargin 4
set logscale x 2
set format x "%g"
set grid
# the panels stand a line apart, so the upper one's lowest y label and the
# residuals' highest one, both at the join, do not overlap
set origin 0,0.38
set size 1,0.62
set bmargin 0
set format x ""
set ylabel "ping-pong latency / 2 (ns)"
set logscale y
set key top left
set title sprintf("calibration: %s, node %d to its nearest destination %d (%g + %g hops); model from %s", \
                  data, src0, dst0, h0, rh0, params) noenhanced
do for [i=2:nseg] { set arrow from segfrom(i), graph 0 to segfrom(i), graph 1 nohead dt 2 lc "gray50" }
plot data using (nearest($10)):15:17 with yerrorbars pt 7 ps 0.6 lc "royalblue" title "measured mean ± 95% CI", \
     data using (nearest($10)):(column(statcol)) with points pt 6 ps 1.0 lc "black" title sprintf("measured %s (fitted statistic%s)", statname, stated), \
     data using (nearest($10)):(model($10,$4,$7,$5,$8,$6,$9)) smooth unique with lines lw 2 lc "red" title sprintf("model (%d o(m) segment%s)", nseg > 0 ? nseg : 1, nseg > 1 ? "s" : "")
unset arrow
unset title
set origin 0,0.05
set size 1,0.3
set tmargin 0
set bmargin 3
set format x "%g"
unset logscale y
set xlabel "message size (bytes)"
set ylabel sprintf("residual of the %s (%%)", statname)
set key off
set label 1 sprintf("RMS %.2f%%", resid_rms) at graph 0.99, graph 0.88 right front
plot data using (pp($10)):(resid($10,$4,$7,$5,$8,$6,$9)) with impulses lw 2 lc "black", \
     data using (pp($10)):(resid($10,$4,$7,$5,$8,$6,$9)) with points pt 7 ps 0.5 lc "black", \
     0 with lines lc "gray50"
unset label 1
unset multiplot

# latency against hop count (only when the round trips have several)
if (hsum_max > hsum) {
    if (term eq "png") { set output out."-hops.png" }
    if (term eq "svg") { set output out."-hops.svg" }
    reset
    set datafile separator "\t"
    set grid
    set key top left
    set title sprintf("latency against hop count: %s", data) noenhanced
    set xlabel "mean hops of request and response, (H + H')/2"
    set ylabel "ping-pong latency / 2 (ns)"
    set logscale y
    plot data using (pp(($4+$7)/2.0)):(column(statcol)) with points pt 7 ps 1.0 lc "royalblue" title sprintf("measured %s", statname), \
         data using (pp(($4+$7)/2.0)):(model($10,$4,$7,$5,$8,$6,$9)) with points pt 6 ps 1.6 lc "red" title "model"
}
