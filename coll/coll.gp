# Measured collectives (points) against their LogGP prediction from a LogP
# file (lines), per operation, against size; one panel per process count.
# Called by coll/figure.sh with data (op size procs measured_ns predicted_ns),
# out, procs and ops (space-separated words).
set terminal pngcairo size 1400,500 font ",10"
set output out
n = words(procs)
set multiplot layout 1, n title "collectives: measured (points) and predicted from the LogP parameters (lines)"
set logscale xy
set xlabel "message size (bytes)"
set ylabel "time, slowest rank (ns)"
set key top left
do for [i = 1:n] {
    p = word(procs, i)
    set title sprintf("P = %s", p)
    plot for [j = 1:words(ops)] data using (strcol(1) eq word(ops, j) && strcol(3) eq p ? $2 : 1/0):4 \
             with points pt 7 lc j title word(ops, j).' measured', \
         for [j = 1:words(ops)] data using (strcol(1) eq word(ops, j) && strcol(3) eq p ? $2 : 1/0):5 \
             with lines lc j dt 2 title word(ops, j).' predicted'
}
unset multiplot
