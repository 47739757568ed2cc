# heatmap.gp: bytes each rank sends each rank, from a traffic matrix
# (scitrace/plot.sh aggregates it over sizes into data).
#
# gnuplot -e "data='pairs.tsv'; ranks=8; out='x'; title='...'; term='png'" heatmap.gp
#   data   src dst bytes, one block per src, every pair present
#   ranks  number of ranks (the axes run 0..ranks-1)
set datafile separator "\t"
if (term eq "png") { set terminal pngcairo size 760,640 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 760,640 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }
set title title font ",13"
set xlabel "destination rank"
set ylabel "source rank"
set xrange [-0.5:ranks-0.5]
set yrange [ranks-0.5:-0.5]
set size ratio -1
if (ranks <= 32) { set xtics 1; set ytics 1 }
set cblabel "bytes"
set palette defined (0 "white", 1 "#fde0c5", 2 "#f59e72", 3 "#d7301f", 4 "#7f0000")
set cbrange [0:*]
set format cb "%.2s%c"
# an image needs a 2 x 2 grid: one rank is drawn as one box
if (ranks < 2) { plot data using 1:2:(0.5):(0.5):3 with boxxyerror fs solid fc palette notitle } \
else { plot data using 1:2:3 with image notitle }
