# topo/: shapes, coordinates, hop vectors, routing; plus the low-level
# parsing and atomic-output helpers every stage links.
LIB_SRCS += topo/topo.c topo/pattern.c topo/load.c topo/parse.c topo/atomicfile.c
TESTS    += tests/test_topo.c tests/test_parse.c
