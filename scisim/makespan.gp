# Makespan of a replayed schedule against D (zero-load and with link
# contention) beside scimodel --traffic's sum of request latencies for the
# same messages.  gnuplot -e "data='x.tsv'; out='x'; term='png'" scisim/makespan.gp
# data columns: dims shape zero_ns contention_ns traffic_total_ns
if (!exists("term")) term = "png"
if (term eq "png") { set terminal pngcairo size 1000,600 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 1000,600 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }
if (!exists("title")) title = "replayed schedule"
set title title
set xlabel "torus dimensions D (smallest n^D holding the ranks)"
set ylabel "makespan (us)"
set y2label "--traffic: sum of request latencies (ms)"
set ytics nomirror
set y2tics
set xtics 1
set key top center
set grid ytics
set datafile separator "\t"
plot data skip 1 using 1:($3/1e3):xtic(sprintf("%dD %s", $1, strcol(2))) with linespoints lw 2 pt 7 title "scisim, zero-load", \
     data skip 1 using 1:($4/1e3) with linespoints lw 2 pt 5 title "scisim --contention", \
     data skip 1 using 1:($5/1e6) axes x1y2 with linespoints lw 2 dt 2 pt 9 title "scimodel --traffic sum (right axis)"
