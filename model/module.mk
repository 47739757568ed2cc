# model/: parameters and params files, the closed-form torus model,
# crossovers, and the scimodel command.
# layer model: params files, the torus model, load, traffic matrices, projection
LAYERS += model
model_LAYER_USES := topo util
model_LAYER_SRCS := model/launch.c model/launch_read.c model/params.c model/params_read.c model/params_bounds.c \
                    model/params_write.c model/model.c model/pattern.c model/broadcast.c \
                    model/load.c model/traffic.c model/projection.c model/uncertainty.c model/candidates.c
model_LAYER_LIBS := $(GSL_LIBS)
scimodel_LAYERS := model topo util
bench-model_LAYERS := model topo util
bench-model_LDLIBS := $(GSL_LIBS)
PROGRAMS += scimodel
scimodel_SRCS = model/scimodel_main.c model/scimodel_options.c model/scimodel_output.c \
                model/scimodel_report.c model/scimodel_crossover.c model/scimodel_sweep.c \
                model/scimodel_shape.c model/scimodel_broadcast.c model/scimodel_load.c \
                model/scimodel_traffic.c
TESTS    += tests/test_params.c tests/test_model.c tests/test_scimodel_cli.c tests/test_patterns.c tests/test_load.c tests/test_scimodel_modes.c \
            tests/test_projection.c tests/test_traffic_cli.c tests/test_scimodel_limits.c \
            tests/test_uncertainty.c

# make bench: the model's speed figures
PROGRAMS += bench-model
bench-model_SRCS = model/bench_model_main.c
BENCH_TARGETS += bench-model
.PHONY: bench-model
bench-model: bin/bench-model bin/scimodel
	bin/bench-model bin

# make bench: projecting a 10^5-row traffic matrix onto 4 candidates
BENCH_TARGETS += bench-projection
.PHONY: bench-projection
bench-projection: bin/scimodel
	model/bench_projection.sh bin $(or $(RUNS),5)
# option order never changes a result; the table's bad values are refused
TESTS += tests/test_option_order.c
test_option_order_EXTRA = model/scimodel_options.c model/scimodel_output.c model/scimodel_traffic.c
# launcher placement against Open MPI's own mapper (mpirun --display-map)
TESTS += tests/test_launch.c
