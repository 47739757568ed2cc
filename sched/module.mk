# sched/: schedules -- MPI matching (sched/match.h), the GOAL reader, and the point-to-point messages of MPI collectives: named
# algorithm families, the choices of Open MPI 4.1's tuned component and of
# MPICH, a schedule as GOAL text or as the reader's schedule in memory.  No options, no MPI,
# no terminal output: scitrace (no MPI), sim, bench link it.
# layer sched: above util, below sim, trace and bench
LAYERS += sched
sched_LAYER_USES := util
sched_LAYER_SRCS := sched/collgen.c sched/decide.c sched/flows.c sched/goal.c sched/goal_write.c sched/match.c
# the one matcher of messages and receives against a scan of its queues (unit tier)
TESTS += tests/test_sched_match.c
# the layer graph: archives' symbols against the _LAYER_USES declarations
TESTS += tests/test_layers.c
# traced equals generated on a live MPI run (timing tier)
TESTS += tests/test_sched_mpi.c
# generate, write GOAL, parse, replay: the direct prediction, and LogGOPSim (unit tier)
TESTS += tests/test_sched_roundtrip.c
# the schedules against Open MPI's own PML monitoring (timing tier)
TESTS += tests/test_sched_ompi.c
