# model/: parameters and params files, the closed-form torus model,
# crossovers, and the scimodel command.
LIB_SRCS += model/params.c model/model.c
PROGRAMS += scimodel
scimodel_SRCS = model/scimodel_main.c
TESTS    += tests/test_params.c tests/test_model.c tests/test_scimodel_cli.c
