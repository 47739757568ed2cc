# coll/: collectives -- their schedules (named algorithms as GOAL and a
# LogGP replay on per-size LogP parameters), the collectives data file,
# the size refinement, and mpibench --op (bench/collective*.c).
COLL_LIB := coll/collgen.c coll/colldata.c coll/refine.c
mpibench_SRCS += bench/collective.c bench/collective_time.c $(COLL_LIB)
PROGRAMS += scicoll
scicoll_SRCS = coll/scicoll_main.c coll/predict.c $(COLL_LIB)
scicoll_LAYERS := benchdata topo util
scicoll_LDLIBS := $(GSL_LIBS)
TESTS += tests/test_coll.c tests/test_coll_mpi.c
test_coll_EXTRA = coll/collgen.c coll/refine.c
test_coll_mpi_EXTRA = coll/colldata.c
calibrate_SRCS += calibrate/collectives.c coll/predict.c $(COLL_LIB)

# make bench-coll OSU_COLL=<dir>: mpibench --op against osu_bcast & co.
BENCH_TARGETS += bench-coll
.PHONY: bench-coll
bench-coll: bin/mpibench
	coll/bench.sh bin $(OSU_COLL)
