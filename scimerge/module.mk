# scimerge/: merges runs' bench files into one (SKaMPI's merge); the merge
# itself is the benchdata layer's (benchdata/benchmerge.c).
PROGRAMS += scimerge
scimerge_SRCS = scimerge/scimerge_main.c
scimerge_LAYERS := benchdata topo util
scimerge_LDLIBS := $(GSL_LIBS)
TESTS += tests/test_merge.c
