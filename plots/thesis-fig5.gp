# thesis-fig5.gp: the thesis's Fig. 5 (Gonzalez 2000), the MPI against the
# low-level interface on a two-node ring by message size: latency (the
# median) and throughput (size / latency, as the thesis's benchmarks print).
#
# gnuplot -e "data='fig5.tsv'; what='one-way'; out='o'; term='png'" thesis-fig5.gp
# data: size_bytes api_ns api_MBps mpi_ns mpi_MBps (the medians)

set datafile separator "\t"
set datafile missing "-"
if (term eq "png") { set terminal pngcairo size 1000,800 enhanced font "DejaVu Sans,11"; set output out.".png" }
if (term eq "svg") { set terminal svg size 1000,800 enhanced font "DejaVu Sans,11" background "white"; set output out.".svg" }

set multiplot
set lmargin 12
set rmargin 4
set logscale x 2
set grid
set origin 0,0.42
set size 1,0.58
set bmargin 0
set format x ""
set logscale y
set ylabel sprintf("%s latency (ns)", what)
set key top left
set title sprintf("thesis Fig. 5: MPI against the low-level interface, 2-node ring, %s (median)", what)
plot data using 1:2 skip 1 with linespoints pt 7 ps 0.7 lc "royalblue" title "low-level interface (scibench, shared memory)", \
     data using 1:4 skip 1 with linespoints pt 5 ps 0.7 lc "red" title "MPI (mpibench)"
unset title
set origin 0,0.05
set size 1,0.34
set tmargin 0
set bmargin 3
set format x "%g"
set xlabel "message size (bytes)"
set ylabel "throughput (MB/s)"
set key top left
plot data using 1:3 skip 1 with linespoints pt 7 ps 0.7 lc "royalblue" title "low-level interface", \
     data using 1:5 skip 1 with linespoints pt 5 ps 0.7 lc "red" title "MPI"
unset multiplot
