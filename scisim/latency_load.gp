# Latency against offered load from scisim --traffic-pattern tables, one
# curve each, with the saturation each found as a vertical line.
# gnuplot -e "files='a.tsv b.tsv'; out='x'; term='png'" scisim/latency_load.gp
if (!exists("term")) term = "png"
if (term eq "png") { set terminal pngcairo size 1000,600 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 1000,600 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }
if (!exists("title")) title = "router model: latency against offered load"
set title title
set xlabel "offered load (flits per node per cycle)"
set ylabel "mean packet latency (cycles)"
set logscale y
set key top left
set grid
set datafile separator "\t"
set datafile commentschars "#"
plot for [f in files] f using 1:(strcol(7) eq "yes" ? $3 : 1/0) skip 1 with linespoints lw 2 pt 7 title f
