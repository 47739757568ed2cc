# bench-model/: make bench's speed figures of the model (not installed).
PROGRAMS += bench-model
bench-model_SRCS = bench-model/bench_model_main.c
bench-model_LAYERS := model topo util
bench-model_LDLIBS := $(GSL_LIBS)
BENCH_TARGETS += bench-model
.PHONY: bench-model
bench-model: bin/bench-model bin/scimodel
	bin/bench-model bin
