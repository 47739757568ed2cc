# sim/: the replay engine of GOAL schedules: LogGOPSim's LogGP rules
# exactly, and candidate tori with and without link contention.
# layer sim: no options, no output
LAYERS += sim
sim_LAYER_USES := sched model topo util
sim_LAYER_SRCS := sim/stlsort.c sim/engine.c sim/net.c sim/stuck.c sim/wait.c sim/match.c
