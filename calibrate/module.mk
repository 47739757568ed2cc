# calibrate/: the GSL fitter and the calibrate command.
# layer fit: the GSL fits of the latency parameters
LAYERS += fit
fit_LAYER_USES := model
fit_LAYER_SRCS := calibrate/fit.c calibrate/fit_network.c calibrate/fit_design.c \
                  calibrate/fit_relay.c calibrate/fit_segments.c calibrate/fit_search.c \
                  calibrate/fit_result.c calibrate/fit_bounds.c
fit_LAYER_LIBS := $(GSL_LIBS)
TESTS    += tests/test_fit.c
PROGRAMS += calibrate
calibrate_SRCS = calibrate/calibrate_main.c calibrate/options.c calibrate/options_check.c \
                 calibrate/measure.c calibrate/points.c calibrate/report.c \
                 calibrate/validate.c calibrate/output.c calibrate/run.c calibrate/full.c \
                 calibrate/full_run.c calibrate/logp_fit.c calibrate/collectives.c \
                 calibrate/launches.c
calibrate_LAYERS := fit model coll sched benchdata topo util
calibrate_LDLIBS := $(GSL_LIBS)
TESTS    += tests/test_calibrate.c
TESTS    += tests/test_full.c
TESTS    += tests/test_verdict.c

# make bench: calibrate's bounded-time figures (10^4 sizes, 10^6 rows)
BENCH_TARGETS += bench-calibrate
.PHONY: bench-calibrate
bench-calibrate: bin/calibrate
	calibrate/bench.sh bin
