# scibench/: the shared-memory latency benchmark (its body is the bench layer).
PROGRAMS += scibench
scibench_SRCS = scibench/scibench_main.c
scibench_LAYERS := bench coll sched benchdata topo util
scibench_LDLIBS := $(GSL_LIBS)
TESTS += tests/test_scibench.c tests/test_scibench_stop.c
