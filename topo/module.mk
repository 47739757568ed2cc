# topo/: shapes, coordinates, hop vectors, routing.
LIB_SRCS += topo/topo.c topo/pattern.c topo/load.c
TESTS    += tests/test_topo.c
