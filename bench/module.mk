# bench/: the latency microbenchmarks.  One backend interface
# (bench/backend.h), two backends (shm, mpi), patterns and statistics
# shared by both programs.
LIB_SRCS += bench/benchdata.c bench/stats.c bench/logpdata.c
BENCH_COMMON := bench/pattern.c bench/cli.c bench/logp.c bench/logp_cli.c
PROGRAMS += scibench
scibench_SRCS = bench/scibench_main.c bench/backend_shm.c $(BENCH_COMMON)
PROGRAMS += mpibench
mpibench_MPI = 1
mpibench_SRCS = bench/mpibench_main.c bench/backend_mpi.c $(BENCH_COMMON)
TESTS += tests/test_stats.c tests/test_benchdata.c tests/test_scibench.c tests/test_mpibench.c \
         tests/test_shm.c
test_shm_EXTRA = bench/backend_shm.c
# --pattern logp (issue 13): the nonlinearity search, injected-delay
# recovery, bad input, resume
TESTS += tests/test_logp.c
test_logp_EXTRA = bench/logp.c bench/pattern.c
CHECK_PREREQS += bin/san/calibrate

# make bench: scibench against its floor, mpibench against OSU osu_latency
BENCH_TARGETS += bench-shm bench-mpi
.PHONY: bench-shm bench-mpi
bench-shm: bin/scibench
	bench/bench.sh shm bin
bench-mpi: bin/mpibench
	bench/bench.sh mpi bin
