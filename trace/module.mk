# trace/: reading what libscitrace.so recorded (docs/formats.md, 'Trace rank
# files') and turning it into findings, a traffic matrix or a schedule:
# the rank files and trace directories, send/receive matching, the
# deadlock and race checks, traced collectives expanded through sched/.
# layer trace: no MPI, no options (scitrace/ is the program)
LAYERS += trace
trace_LAYER_USES := sched util
trace_LAYER_SRCS := trace/tracefile.c trace/tracedir.c trace/build_matrix.c trace/expand.c \
                    trace/match.c trace/check_replay.c trace/check_race.c
TESTS += tests/test_expand.c
