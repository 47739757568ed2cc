# topo/: shapes, coordinates, hop vectors, routing.
LAYERS += topo
topo_LAYER_USES := util
topo_LAYER_SRCS := topo/topo.c topo/pattern.c topo/load.c
TESTS    += tests/test_topo.c
