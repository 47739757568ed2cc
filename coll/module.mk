# coll/: collectives -- the collectives data file and the size refinement
# (the schedules are sched/'s, their prediction from a LogP file sim/'s).
# mpibench --op (mpibench/collective*.c), scisim --collective and calibrate
# --collectives link it.
# layer coll: no options, no MPI
LAYERS += coll
coll_LAYER_USES := util
coll_LAYER_SRCS := coll/colldata.c coll/refine.c
TESTS += tests/test_coll.c tests/test_coll_mpi.c tests/test_coll_ops.c tests/test_coll_osu.c

# make bench-coll OSU_COLL=<dir>: mpibench --op against osu_bcast & co.
BENCH_TARGETS += bench-coll
.PHONY: bench-coll
bench-coll: bin/mpibench bin/scibench
	coll/bench.sh bin $(OSU_COLL)

# make bench-coll-predict: calibrate --collectives against mpibench --op,
# the LogP file taken in the same hold as the collectives
BENCH_TARGETS += bench-coll-predict
.PHONY: bench-coll-predict
bench-coll-predict: bin/mpibench bin/scibench bin/calibrate
	coll/predict_bench.sh bin
