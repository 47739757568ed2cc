# crossover.gp: thesis Figs. 14/15 -- average latency (a) and one-to-all
# multicast total (b) against system size for each D, crossovers
# marked.  Every number comes from scimodel's TSV output.
#
# gnuplot -e "sweep='s.tsv'; xo='x.tsv'; out='plots/out/x'; title='...'; logx=0; term='png'" crossover.gp
#   sweep  scimodel --sweep --format tsv output (nodes, avg_<D>d_ns..., multicast_<D>d_ns...)
#   xo     scimodel --crossover --format tsv output
#   out    output file name without extension
#   logx   1: log-scale system size (the variant that reaches 1e6 nodes)
#   term   png | svg

set datafile separator "\t"
set datafile missing "-"
if (term eq "png") { set terminal pngcairo size 1400,620 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 1400,620 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }

# how many curves of each metric: the columns after "nodes", half each
stats sweep skip 1 using 1 nooutput
ncols = STATS_columns
nd = (ncols - 1) / 2
dimlabel(i) = system(sprintf("head -1 '%s' | cut -f%d | sed 's/^[a-z]*_\\([0-9]*\\)d_ns$/\\1D/'", sweep, i))

set multiplot layout 1,2 title title font ",14"
set grid
set key outside right top
set xlabel "total number of nodes N"
# log y in both variants: 1D grows linearly, and the differences between
# 2D, 3D and 4D that decide the crossovers are a few percent
set logscale y
set format y "%g"
if (logx) { set logscale x; set format x "10^{%L}" }
stats sweep skip 1 using 1 nooutput
xmin = STATS_min
xmax = STATS_max
set xrange [xmin:xmax]
set mxtics

# vertical marks: the crossover TSV rows of one metric inside the plotted
# range ("none" rows have nodes "-" and drop out).  Only real crossovers get
# a dashed line; a lower bound (the higher D already wins at its smallest
# torus) is labelled as such.
is(m) = strcol(1) eq m
iscross(m) = is(m) && strcol(5) eq "crossover"
isbound(m) = is(m) && strcol(5) eq "lower_bound"
inrange(x) = (x >= xmin && x <= xmax) ? x : NaN
# the labels go in a band above every curve (the curves' maximum is ytop),
# one row per crossover of the panel's metric, so no curve runs through them
nxo = nd > 1 ? nd - 1 : 1
band = 0.3
labely(k) = ytop * (ytop/ybot)**(0.06 + 0.08*(int(k) % nxo))
xlabel_text = "%dD -> %dD crossover: %.1f nodes"
bound_text = "%dD -> %dD: %dD wins from its smallest torus (%.0f nodes)"

do for [panel in "avg multicast"] {
    first = (panel eq "avg") ? 2 : 2 + nd
    scale = (panel eq "avg") ? 1e-3 : 1e-6
    set ylabel (panel eq "avg") ? "average request latency (µs)" : "multicast: total of the N - 1 unicasts (ms)"
    set title (panel eq "avg") ? "(a) average latency, uniform traffic" : "(b) multicast (N - 1 unicasts, one to all)"
    ytop = -1e300
    ybot = 1e300
    set yrange [*:*]   # stats only counts points inside the current range
    do for [i=first:first+nd-1] {
        stats sweep skip 1 using (column(i)*scale) nooutput
        ytop = STATS_max > ytop ? STATS_max : ytop
        ybot = STATS_min < ybot ? STATS_min : ybot
    }
    set yrange [ybot/1.1:ytop*(ytop/ybot)**band]
    set ytics autofreq
    set format y (ytop/ybot >= 1000 ? "10^{%L}" : "%g")
    if (ytop/ybot < 1000) { do for [k=-4:8] { set ytics add (2*10**k, 5*10**k) } }
    plot for [i=first:first+nd-1] sweep skip 1 using 1:(column(i)*scale) with lines lw 2 title dimlabel(i), \
         xo skip 1 using (iscross(panel) ? inrange($4) : NaN):(ybot/1.1):(0):(ytop*(ytop/ybot)**band-ybot/1.1) with vectors nohead dt 2 lc "gray40" notitle, \
         xo skip 1 using (iscross(panel) ? inrange($4) : NaN):(labely($0)):(sprintf(xlabel_text, $2, $3, $4)) \
            with labels left offset 0.5,0 font ",10" notitle, \
         xo skip 1 using (isbound(panel) ? inrange($4) : NaN):(labely($0)):(sprintf(bound_text, $2, $3, $3, $4)) \
            with labels left offset 0.5,0 font ",10" notitle
}
unset multiplot
