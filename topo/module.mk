# topo/: shapes, coordinates, hop vectors, routing; plus the low-level
# parsing, atomic-output and message helpers every stage links.
LIB_SRCS += topo/topo.c topo/pattern.c topo/load.c topo/parse.c topo/atomicfile.c topo/cli.c
TESTS    += tests/test_topo.c tests/test_parse.c
