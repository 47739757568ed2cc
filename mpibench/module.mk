# mpibench/: the MPI latency benchmark -- its main, the MPI backend, and
# --op's collectives (collective*.c); the shared body is the bench layer.
PROGRAMS += mpibench
mpibench_MPI = 1
mpibench_SRCS = mpibench/mpibench_main.c mpibench/backend_mpi.c mpibench/backend_mpi_cli.c \
                mpibench/collective.c mpibench/collective_time.c mpibench/mpistop.c \
                mpibench/p2p.c mpibench/watchdog.c
mpibench_LAYERS := bench coll sched benchdata topo util
mpibench_LDLIBS := $(GSL_LIBS)
TESTS += tests/test_mpibench.c tests/test_p2p.c

# make bench-p2p OSU_PT2PT=<dir> [SKAMPI=<skampi> SKAMPI_SKI=<file>]: every mpibench --p2p mode against its reference
BENCH_TARGETS += bench-p2p
.PHONY: bench-p2p
bench-p2p: bin/mpibench bin/scibench
	mpibench/p2p_bench.sh bin $(OSU_PT2PT)
