# thesis-fig12.gp: the thesis's Fig. 12 (Gonzalez 2000), the latency
# components extracted size by size (components.awk) beside the fitted
# params file's: o(m), lf + g(m), ls + g(m) and lp.
#
# gnuplot -e "data='fig12.tsv'; params='x.params'; out='o'; term='png'" thesis-fig12.gp
# data: size_bytes o_ns lf_g_ns ls_g_ns lp_ns ('-' where not measurable)

set datafile separator "\t"
set datafile missing "-"
load params
gpdir = system("dirname '".ARG0."'")
load gpdir."/params.gp"
if (term eq "png") { set terminal pngcairo size 1000,700 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 1000,700 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }

pos(x) = x > 0 ? x : NaN      # a component at or below 0 (noise) has no place on a log axis
set logscale x 2
set logscale y
set format x "%g"
set grid
set key top left
set xlabel "message size (bytes)"
set ylabel "latency component (ns)"
set title "thesis Fig. 12: latency components extracted size by size (points) and fitted (lines)"
plot data using 1:(pos($2)) skip 1 with points pt 7 ps 0.9 lc "royalblue" title "o(m), overhead", \
     data using 1:(pos($3)) skip 1 with points pt 5 ps 0.9 lc "dark-green" title "lf + g(m), forwarding", \
     data using 1:(pos($4)) skip 1 with points pt 9 ps 1.0 lc "red" title "ls + g(m), switching", \
     data using 1:(pos($5)) skip 1 with points pt 13 ps 0.9 lc "black" title "lp, propagation (fixed)", \
     data using 1:(o($1)) skip 1 smooth unique with lines lw 2 lc "royalblue" notitle, \
     data using 1:(lf_ns + relay($1)) skip 1 smooth unique with lines lw 2 lc "dark-green" notitle, \
     data using 1:(ls_ns + relay($1)) skip 1 smooth unique with lines lw 2 lc "red" notitle, \
     data using 1:(lp_ns) skip 1 smooth unique with lines lw 2 lc "black" notitle
