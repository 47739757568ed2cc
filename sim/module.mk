# sim/: the replay engine of GOAL schedules: LogGOPSim's LogGP rules
# exactly, on constants, on a LogP file's per-size parameters (a
# collective's prediction: collpredict.c) and on candidate tori with and
# without link contention, and the cycle-level router model.
# layer sim: no options, no output
LAYERS += sim
sim_LAYER_USES := coll sched model benchdata topo util
sim_LAYER_SRCS := sim/stlsort.c sim/engine.c sim/net.c sim/stuck.c sim/wait.c \
                  sim/router.c sim/router_replay.c sim/collpredict.c
TESTS    += tests/test_router.c
