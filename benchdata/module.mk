# benchdata/: the bench and LogP data files (docs/formats.md) and their
# statistics.
# layer benchdata: read, write and merge the data files, no measuring
LAYERS += benchdata
benchdata_LAYER_USES := topo util
benchdata_LAYER_SRCS := benchdata/benchdata.c benchdata/stats.c benchdata/logpdata.c \
                        benchdata/benchmerge.c
benchdata_LAYER_LIBS := $(GSL_LIBS)
TESTS += tests/test_stats.c tests/test_benchdata.c
