# model/: parameters and params files, the closed-form torus model,
# crossovers, load, traffic matrices, projection, the launcher's placement.
# layer model: no options, no output
LAYERS += model
model_LAYER_USES := topo util
model_LAYER_SRCS := model/launch.c model/launch_read.c model/params.c model/params_read.c model/params_bounds.c \
                    model/params_write.c model/model.c model/pattern.c model/broadcast.c \
                    model/load.c model/traffic.c model/projection.c model/uncertainty.c model/candidates.c
model_LAYER_LIBS := $(GSL_LIBS)
TESTS    += tests/test_params.c tests/test_model.c tests/test_patterns.c tests/test_load.c \
            tests/test_projection.c tests/test_uncertainty.c
# launcher placement against Open MPI's own mapper (mpirun --display-map)
TESTS += tests/test_launch.c
