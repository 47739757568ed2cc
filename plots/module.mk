# plots/: gnuplot figures.
#   make plots                                   both presets
#   make plots PARAMS=data/params/x.params       + a calibrated params file
#   make plots PARAMS=x.params BENCH=x.tsv       + calibration figures
#   make plots LOGP="a.tsv b.tsv"                the LogP figure from these files
#                                                (default data/sample/logp-*.tsv)
#   make plots VALIDATION=x-full-validation.tsv  + calibrate --full's held-out figure
.PHONY: plots
PLOTS_OUT ?= plots/out
plots: bin/scimodel | deps
	LOGP="$(LOGP)" VALIDATION="$(VALIDATION)" plots/plots.sh $(PLOTS_OUT) bin/scimodel $(PARAMS) $(BENCH)
TESTS += tests/test_plots.c
