# resultset.gp: a result set's bench files (ping-pong or one-way), latency
# (the batches' median) against message size, one colour per file.
#
# gnuplot -e "files='a.tsv b.tsv'; names='a b'; title='...'; out='o'; term='svg'" resultset.gp

set datafile separator "\t"
set datafile commentschars "#"
if (term eq "png") { set terminal pngcairo size 1000,600 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 1000,600 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }
set logscale xy
set format x "%g"
set grid
set key top left noenhanced
set xlabel "message size (bytes)"
set ylabel "latency, median of the batches (ns)"
set title title noenhanced
plot for [i=1:words(files)] word(files, i) using 10:14 with points pt 7 ps 0.7 title word(names, i)
