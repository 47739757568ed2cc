# patterns.gp: the Fig. 14-style crossover plot for traffic patterns and
# kinds of links (docs/model.md, 'Links' and 'Patterns'): mean request latency of 1D..4D tori
# against N, one panel per pattern, crossovers marked.  Every number comes
# from scimodel's TSV output (--pattern P --links L --sweep / --crossover).
#
# gnuplot -e "dir='d'; tag='current-bi'; out='o'; title='...'; term='png'" patterns.gp
#   dir/TAG-PATTERN-sweep.tsv and dir/TAG-PATTERN-xo.tsv for the four patterns;
#   withxo: " pat1 pat2 " the patterns with a crossover inside 2..1e6 nodes

set datafile separator "\t"
set datafile missing "-"
if (term eq "png") { set terminal pngcairo size 1400,1000 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 1400,1000 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }

set multiplot layout 2,2 title title font ",14"
set grid
set key inside left top
set logscale x
set logscale y
set format x "10^{%L}"
set format y "%g"
set xlabel "total number of nodes N"
set ylabel "mean request latency (µs)"
xlabel_text = "%dD->%dD: %.0f"
# A lower bound (the higher D wins from its smallest torus) is no crossover:
# no dashed line, and its label says so.
bound_text = "%dD->%dD: %dD from %.0f on"
iscross(x) = strcol(7) eq "crossover" ? x : NaN
isbound(x) = strcol(7) eq "lower_bound" ? x : NaN

do for [pat in "uniform neighbor tornado complement"] {
    sweep = sprintf("%s/%s-%s-sweep.tsv", dir, tag, pat)
    xo = sprintf("%s/%s-%s-xo.tsv", dir, tag, pat)
    set title pat
    set xrange [*:*]   # stats only counts points inside the current ranges
    set yrange [*:*]
    stats sweep skip 1 using 1 nooutput
    xmin = STATS_min
    xmax = STATS_max
    set xrange [xmin:xmax]
    set yrange [*:*]
    ytop = -1e300
    ybot = 1e300
    do for [i=2:5] {
        stats sweep skip 1 using (column(i)*1e-3) nooutput
        ytop = STATS_max > ytop ? STATS_max : ytop
        ybot = STATS_min < ybot ? STATS_min : ybot
    }
    set yrange [ybot/1.1:ytop*1.5]
    set ytics autofreq
    if (ytop/ybot < 10) { do for [k=0:8] { set ytics add (2*10**k, 5*10**k) } }
    inrange(x) = (x >= xmin && x <= xmax) ? x : NaN
    if (strstrt(withxo, " ".pat." ") == 0) {
        plot for [i=2:5] sweep skip 1 using 1:(column(i)*1e-3) with lines lw 2 title sprintf("%dD", i-1)
    } else {
    plot for [i=2:5] sweep skip 1 using 1:(column(i)*1e-3) with lines lw 2 title sprintf("%dD", i-1), \
         xo skip 1 using (iscross(inrange($6))):(ybot/1.1):(0):(ytop*1.5-ybot/1.1) with vectors nohead dt 2 lc "gray40" notitle, \
         xo skip 1 using (iscross(inrange($6))):(ybot*(ytop/ybot)**(0.5+0.12*$0)):(sprintf(xlabel_text, $4, $5, $6)) \
            with labels left offset 0.5,0 font ",10" notitle, \
         xo skip 1 using (isbound(inrange($6))):(ybot*(ytop/ybot)**(0.5+0.12*$0)):(sprintf(bound_text, $4, $5, $5, $6)) \
            with labels left offset 0.5,0 font ",10" notitle
    }
}
unset multiplot
