# fit/: the GSL least-squares fits of the latency parameters (calibrate's).
# layer fit: no options, no output
LAYERS += fit
fit_LAYER_USES := model
fit_LAYER_SRCS := fit/fit.c fit/fit_network.c fit/fit_design.c fit/fit_relay.c fit/fit_segments.c \
                  fit/fit_search.c fit/fit_result.c fit/fit_bounds.c fit/fit_linkrate.c
fit_LAYER_LIBS := $(GSL_LIBS)
TESTS    += tests/test_fit.c tests/test_linkrate.c
