# calibrate/: the GSL fitter and the calibrate command.
LIB_SRCS += calibrate/fit.c
TESTS    += tests/test_fit.c
PROGRAMS += calibrate
calibrate_SRCS = calibrate/calibrate_main.c calibrate/full.c bench/signals.c
TESTS    += tests/test_calibrate.c
TESTS    += tests/test_full.c
