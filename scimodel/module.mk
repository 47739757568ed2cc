# scimodel/: the scimodel command -- the model's modes (report, crossover,
# sweep, shape, broadcast, load, traffic) over the model layer.
PROGRAMS += scimodel
scimodel_SRCS = scimodel/scimodel_main.c scimodel/scimodel_logp.c scimodel/scimodel_options.c scimodel/scimodel_output.c \
                scimodel/scimodel_report.c scimodel/scimodel_crossover.c scimodel/scimodel_sweep.c \
                scimodel/scimodel_shape.c scimodel/scimodel_broadcast.c scimodel/scimodel_load.c \
                scimodel/scimodel_traffic.c scimodel/scimodel_routes.c
scimodel_LAYERS := model topo util
TESTS    += tests/test_scimodel_cli.c tests/test_scimodel_modes.c tests/test_traffic_cli.c \
            tests/test_scimodel_limits.c
# option order never changes a result; the table's bad values are refused
TESTS += tests/test_option_order.c

# make bench: projecting a 10^5-row traffic matrix onto 4 candidates
BENCH_TARGETS += bench-projection
.PHONY: bench-projection
bench-projection: bin/scimodel
	scimodel/bench_projection.sh bin $(or $(RUNS),5)
