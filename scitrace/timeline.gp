# timeline.gp: a trace's timeline, from `scitrace check --timeline`: ranks
# by time, each call a bar (red: blocked in a deadlock; orange: a send that
# completed only because MPI buffered it), each message the
# replay matched an arrow from its send to its receive, and the deadlock's
# cycle of waits as red arrows at the end (scitrace/timeline.sh runs it).
#
# gnuplot -e "data='t.tsv'; out='t.png'; title='...'; ranks=4" timeline.gp
set datafile separator "\t"
set terminal pngcairo size 1400,200+60*ranks noenhanced font "DejaVu Sans,10"
set output out
set title title
set xlabel "time since the first MPI_Init (s)"
set ylabel "rank"
set yrange [-0.7:ranks-0.3] reverse
set ytics 1
set grid x
set key outside top center horizontal
set linetype 1 lc rgb "#7f7f7f"
set linetype 2 lc rgb "#d7301f"
set linetype 3 lc rgb "#f28e2b"
plot data index 0 using 2:1:($3-$2):(0):(int($5) + 1) with vectors nohead lw 8 lc variable \
         title "calls (red: blocked; orange: completed only because MPI buffered it)", \
     data index 1 using 2:1:($4-$2):($3-$1) with vectors head size screen 0.006,20 filled \
         lc rgb "#3b75af" title "messages", \
     data index 2 using 2:1:(0):($3-$1) with vectors head size screen 0.01,25 filled lw 2 \
         lc rgb "#d7301f" title "cycle of waits"
