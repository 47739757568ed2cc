# bench/: the latency microbenchmarks.  One backend interface
# (bench/backend.h), two backends (shm, mpi), patterns and statistics
# shared by both programs.
# layer benchdata: the bench and LogP data files and their statistics
LAYERS += benchdata
benchdata_LAYER_USES := topo util
benchdata_LAYER_SRCS := bench/benchdata.c bench/stats.c bench/logpdata.c
benchdata_LAYER_LIBS := $(GSL_LIBS)
BENCH_COMMON := bench/pattern.c bench/options.c bench/resume.c bench/output.c bench/run.c \
                bench/grid.c bench/logp.c bench/logp_engine.c bench/logp_run.c
PROGRAMS += scibench
scibench_SRCS = bench/scibench_main.c bench/backend_shm.c bench/backend_shm_cli.c $(BENCH_COMMON)
PROGRAMS += mpibench
mpibench_MPI = 1
mpibench_SRCS = bench/mpibench_main.c bench/backend_mpi.c bench/backend_mpi_cli.c $(BENCH_COMMON) \
                bench/collective.c bench/collective_time.c bench/mpistop.c
scibench_LAYERS := coll sched benchdata topo util
mpibench_LAYERS := coll sched benchdata topo util
scibench_LDLIBS := $(GSL_LIBS)
mpibench_LDLIBS := $(GSL_LIBS)
TESTS += tests/test_stats.c tests/test_benchdata.c tests/test_scibench.c tests/test_mpibench.c \
         tests/test_shm.c
test_shm_EXTRA = bench/backend_shm.c bench/backend_shm_cli.c
# the bad values scibench's options table declares
test_badinput_EXTRA = bench/backend_shm.c bench/backend_shm_cli.c $(BENCH_COMMON)
# an interleaved batch does not time the change from the last point (an injected delay)
TESTS += tests/test_interleave.c
test_interleave_EXTRA = bench/backend_shm.c bench/backend_shm_cli.c $(BENCH_COMMON)
# --pattern logp: the nonlinearity search, injected-delay
# recovery, bad input, resume
TESTS += tests/test_logp.c tests/test_logp_fit.c
test_logp_EXTRA = bench/logp.c bench/logp_engine.c bench/pattern.c
CHECK_PREREQS += bin/san/calibrate

# make bench: scibench against its floor, mpibench against OSU osu_latency
BENCH_TARGETS += bench-shm bench-mpi
.PHONY: bench-shm bench-mpi
bench-shm: bin/scibench
	bench/bench.sh shm bin
bench-mpi: bin/mpibench
	bench/bench.sh mpi bin
# the floor beside the batches and its regimes, on a virtual clock
TESTS += tests/test_regime.c
test_regime_EXTRA = bench/pattern.c
