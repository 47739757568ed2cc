# sizes.gp: message-size histogram of a traffic matrix, messages (a) and
# bytes (b) per power-of-two size class (scitrace/plot.sh computes data).
#
# gnuplot -e "data='sizes.tsv'; out='x'; title='...'; term='png'" sizes.gp
#   data   class label messages bytes (header line first)
set datafile separator "\t"
if (term eq "png") { set terminal pngcairo size 1200,520 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 1200,520 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }
set multiplot layout 1,2 title title font ",13"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.8
set grid y
set yrange [0:*]   # bars stand on zero; one size class alone is not an empty range
set xtics rotate by -45
set xlabel "message size (bytes)"
set ylabel "messages"
set title "(a) messages per size class"
plot data using 3:xtic(2) skip 1 lc rgb "#3b75af" notitle
set ylabel "bytes"
set format y "%.1s%c"
set title "(b) bytes per size class"
plot data using 4:xtic(2) skip 1 lc rgb "#d7301f" notitle
unset multiplot
