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
# preloaded into SKaMPI, whose Bsend ping-pong attaches no buffer (mpibench/bsend_attach.c)
BSEND_ATTACH := bin/test/bsend_attach.so
bench-p2p: bin/mpibench bin/scibench $(BSEND_ATTACH)
	mpibench/p2p_bench.sh bin $(OSU_PT2PT)
CHECK_PREREQS += $(BSEND_ATTACH)
$(BSEND_ATTACH): mpibench/bsend_attach.c | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) $(CFLAGS_REL) -fPIC -shared -Wl,-z,defs -o $@ $<
