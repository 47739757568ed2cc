# plots/: gnuplot figures (issue 5).
#   make plots                                   both presets
#   make plots PARAMS=data/params/x.params       + a calibrated params file
#   make plots PARAMS=x.params BENCH=x.tsv       + calibration figures
.PHONY: plots
PLOTS_OUT ?= plots/out
plots: bin/scimodel | deps
	plots/plots.sh $(PLOTS_OUT) bin/scimodel $(PARAMS) $(BENCH)
TESTS += tests/test_plots.c
