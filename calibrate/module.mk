# calibrate/: the GSL fitter and the calibrate command.
# layer fit: the GSL fits of the latency parameters
LAYERS += fit
fit_LAYER_SRCS := calibrate/fit.c
fit_LAYER_LIBS := $(GSL_LIBS)
TESTS    += tests/test_fit.c
PROGRAMS += calibrate
calibrate_SRCS = calibrate/calibrate_main.c calibrate/logp_fit.c calibrate/full.c
calibrate_LAYERS := fit model benchdata topo util
calibrate_LDLIBS := $(GSL_LIBS)
TESTS    += tests/test_calibrate.c
TESTS    += tests/test_full.c

# make bench: calibrate's bounded-time figures (issue 14: 10^4 sizes, 10^6 rows)
BENCH_TARGETS += bench-calibrate
.PHONY: bench-calibrate
bench-calibrate: bin/calibrate
	calibrate/bench.sh bin
