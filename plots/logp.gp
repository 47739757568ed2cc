# logp.gp: LogP/MPI's logp_plot for scitorus: os, or and g against message
# size with their confidence intervals (error bars), one panel per LogP
# file (a send/receive variant), L in each panel's title.  Rows are sorted
# by size (scibench/mpibench --pattern logp writes them so).  bars=0: the
# plain averages alone, as the paper's figures (logp_plot -n).
#
# gnuplot -e "files='a.tsv b.tsv'; out='plots/out/logp'; term='png'" logp.gp
# gnuplot -e "files='a.tsv'; out='plots/out/logp-averages'; term='png'; bars=0" logp.gp

set datafile separator "\t"
set datafile commentschars "#"
if (!exists("bars")) bars = 1
n = words(files)
cols = n > 1 ? 2 : 1
rows = (n + cols - 1) / cols
if (term eq "png") { set terminal pngcairo size 600*cols,420*rows enhanced font "DejaVu Sans,10"; set output out.".png" }
if (term eq "svg") { set terminal svg size 600*cols,420*rows enhanced font "DejaVu Sans,10" background "white"; set output out.".svg" }

# header lines "# key: value" of file f
hdr(f, key) = system(sprintf("sed -n 's/^# %s: //p' '%s' | head -n 1", key, f))

set multiplot layout rows, cols title "LogP parameters: send overhead os, receive overhead or, gap g; ". \
    (bars ? "90% confidence intervals" : "plain averages")
set logscale xy 2
set format x "%.0s%cB"
set format y "%.0s%cs"
set xlabel "message size"
set ylabel "time"
set key top left
set grid
set yrange [1e-9:*]   # os and or on shared memory go below the clock's resolution
do for [i = 1:n] {
    f = word(files, i)
    # a negative L (the file's L_flag says why) is no latency: the title says so
    set title sprintf("%s %s (L = %s ns%s)", hdr(f, "backend"), hdr(f, "variant"), hdr(f, "L_ns"), \
                      strlen(hdr(f, "L_flag")) ? ": negative, not a latency; os + or > RTT/2" : "")
    # sizes of 0 B and values of 0 ns have no place on log axes
    if (bars) {
    plot f using ($1 > 0 && $2 > 0 ? $1 : NaN):($2*1e-9):($3*1e-9) with yerrorlines lw 1.5 pt 7 ps 0.5 title "os", \
         f using ($1 > 0 && $4 > 0 ? $1 : NaN):($4*1e-9):($5*1e-9) with yerrorlines lw 1.5 pt 5 ps 0.5 title "or", \
         f using ($1 > 0 && $6 > 0 ? $1 : NaN):($6*1e-9):($7*1e-9) with yerrorlines lw 1.5 pt 9 ps 0.5 title "g", \
         f using ($1 > 0 ? $1 : NaN):($8*0.5e-9) with lines dt 2 lc "gray40" title "RTT/2 (ping-pong)"
    } else {
    plot f using ($1 > 0 && $2 > 0 ? $1 : NaN):($2*1e-9) with linespoints lw 1.5 pt 7 ps 0.5 title "os", \
         f using ($1 > 0 && $4 > 0 ? $1 : NaN):($4*1e-9) with linespoints lw 1.5 pt 5 ps 0.5 title "or", \
         f using ($1 > 0 && $6 > 0 ? $1 : NaN):($6*1e-9) with linespoints lw 1.5 pt 9 ps 0.5 title "g", \
         f using ($1 > 0 ? $1 : NaN):($8*0.5e-9) with lines dt 2 lc "gray40" title "RTT/2 (ping-pong)"
    }
}
unset multiplot
