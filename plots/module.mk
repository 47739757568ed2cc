# plots/: gnuplot figures.
#   make plots                                   both presets
#   make plots PARAMS=data/params/x.params       + a calibrated params file
#   make plots PARAMS=x.params BENCH=x.tsv       + calibration figures
#   make plots LOGP="a.tsv b.tsv"                the LogP figure from these files
#                                                (default data/sample/logp-*.tsv)
#   make plots VALIDATION=x-full-validation.tsv  + calibrate --full's held-out figure
#   make plots FIG5="api.tsv mpi.tsv"            + the thesis's Fig. 5 (2-node ring, scibench
#                                                and mpibench)
#   make plots PARAMS=x.params FULLDATA=x-full   + the thesis's Figs. 12 and 13b from
#                                                calibrate --full's x-full-ring*.tsv, -torus*.tsv
.PHONY: plots
PLOTS_OUT ?= plots/out
plots: bin/scimodel | deps
	LOGP="$(LOGP)" VALIDATION="$(VALIDATION)" FIG5="$(FIG5)" FULLDATA="$(FULLDATA)" plots/plots.sh $(PLOTS_OUT) bin/scimodel $(PARAMS) $(BENCH)
TESTS += tests/test_plots.c
# make report CALIBRATIONS="a.params b.params" [RESULTSETS="dir ..."] [REPORT=x.html]:
# the calibrations side by side in one self-contained HTML file (plots/report.sh)
.PHONY: report
REPORT ?= $(PLOTS_OUT)/report.html
report: bin/scimodel | deps
	@mkdir -p $(PLOTS_OUT)
	SCIMODEL=bin/scimodel plots/report.sh -o $(REPORT) $(CALIBRATIONS) $(RESULTSETS)
TESTS += tests/test_report.c
