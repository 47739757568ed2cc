# calibrate/: the calibrate command (its fits are the fit layer).
PROGRAMS += calibrate
calibrate_SRCS = calibrate/calibrate_main.c calibrate/options.c calibrate/options_check.c \
                 calibrate/measure.c calibrate/points.c calibrate/report.c \
                 calibrate/validate.c calibrate/output.c calibrate/run.c calibrate/full.c \
                 calibrate/full_run.c calibrate/logp_fit.c calibrate/collectives.c \
                 calibrate/launches.c calibrate/linkrate.c
calibrate_LAYERS := fit sim model coll sched benchdata topo util
calibrate_LDLIBS := $(GSL_LIBS)
TESTS    += tests/test_calibrate.c
TESTS    += tests/test_full.c
TESTS    += tests/test_verdict.c
TESTS    += tests/test_full_launches.c

# make bench: calibrate's bounded-time figures (10^4 sizes, 10^6 rows)
BENCH_TARGETS += bench-calibrate
.PHONY: bench-calibrate
bench-calibrate: bin/calibrate
	calibrate/bench.sh bin
