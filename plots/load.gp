# load.gp: latency under load (docs/model.md, 'Load').  (a) mean latency against
# offered load (bytes/ns/node) at N nodes, one curve per D at the nearest
# torus (its shape in the key), each D's saturation marked; (b) saturation
# throughput against N per D (log axes).  Every number comes from scimodel
# --load --format tsv.
#
# gnuplot -e "curves='c.tsv'; sat='s.tsv'; nodes=4096; out='o'; title='...'; term='png'" load.gp
#   nodes   the N of curves (scimodel --load --nodes N)
#   curves  scimodel --load --format tsv (dims shape pattern links rate_per_ns
#           utilisation latency_ns bytes_per_ns_per_node independent_ns)
#   sat     dims nodes saturation_bytes_per_ns_per_node, one block per D
#           (blocks apart by two blank lines; plots.sh derives it)

set datafile separator "\t"
if (term eq "png") { set terminal pngcairo size 1400,620 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 1400,620 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }
set multiplot layout 1,2 title title font ",14"
set grid
set key outside right top

set title sprintf("(a) latency against offered load at N = %d (nearest torus per D)", nodes)
set key inside right top box opaque   # the saturated region above the knees is empty
set xlabel "offered load (bytes/ns/node)"
set ylabel "mean latency (µs)"
set logscale xy
set format x "10^{%L}"
set format y "%g"
stats curves skip 1 using ($7*1e-3) nooutput
ylo = STATS_min / 1.2
yhi = STATS_max * 1.5
set yrange [ylo:yhi]
d(D) = (column(1) == D) ? 1 : NaN
shape(D) = system(sprintf("awk -F'\\t' '$1 == %d { print $2; exit }' '%s'", D, curves))
# saturation: rate / utilisation of any row, marked once per D (first row)
satx(D) = (column(1) == D && column(6) < 0.051) ? column(8) / column(6) : NaN
plot for [D=1:4] curves skip 1 using ($8*d(D)):($7*1e-3) with linespoints lw 2 pt 7 ps 0.6 lc D title sprintf("%dD: %s", D, shape(D)), \
     for [D=1:4] curves skip 1 using (satx(D)):(ylo):(0):(yhi-ylo) with vectors nohead dt 2 lc D notitle

set title "(b) saturation throughput per node"
set key outside right top nobox noopaque
set yrange [*:*]
set xlabel "total number of nodes N"
set ylabel "saturation (bytes/ns/node)"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
plot for [D=1:4] sat index D-1 using 2:3 with linespoints lw 2 pt 7 ps 0.6 lc D title sprintf("%dD", D)
unset multiplot
