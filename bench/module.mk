# bench/: the body scibench and mpibench share -- their command line and
# options table (bench/cli.h), the patterns (pp, ow, logp), the grid of
# runs, resuming, output, and the shared-memory backend behind the one
# backend interface (bench/backend.h).  The MPI backend is mpibench's own
# (mpibench/: compiled with mpicc, which no layer is).
# layer bench: a layer only because two programs share it
LAYERS += bench
bench_LAYER_USES := coll sched benchdata topo util
bench_LAYER_SRCS := bench/pattern.c bench/turns.c bench/options.c bench/resume.c bench/output.c bench/run.c \
                    bench/grid.c bench/logp.c bench/logp_engine.c bench/logp_run.c \
                    bench/backend_shm.c bench/backend_shm_floor.c bench/backend_shm_cli.c bench/timer.c bench/control.c
bench_LAYER_LIBS := $(GSL_LIBS)
TESTS += tests/test_shm.c
# (test_badinput: the bad values scibench's options table declares, linked from this layer)
# an interleaved batch does not time the change from the last point (an injected delay)
TESTS += tests/test_interleave.c tests/test_turns.c
# --pattern logp: the nonlinearity search, injected-delay
# recovery, bad input, resume
TESTS += tests/test_logp.c tests/test_logp_fit.c
# SKaMPI's statistical controls on pp against an injected delay; logp --flood
TESTS += tests/test_bench_controls.c tests/test_logp_flood.c
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
# the clock's measured cost, on a virtual clock that stalls
TESTS += tests/test_timer.c
