# trace/: reading what libscitrace.so recorded (docs/formats.md, 'Trace rank
# files') and turning it into findings, a traffic matrix or a schedule:
# the rank files and trace directories, send/receive matching, the
# deadlock and race checks, collectives across members and type matching,
# a check's events and timeline, traced collectives expanded through sched/.
# layer trace: no MPI, no options (scitrace/ is the program)
LAYERS += trace
trace_LAYER_USES := sched util
trace_LAYER_SRCS := trace/tracefile.c trace/tracedir.c trace/build_matrix.c trace/expand.c \
                    trace/match.c trace/check_replay.c trace/check_race.c trace/check_coll.c \
                    trace/check_types.c trace/check_events.c trace/check_timeline.c
TESTS += tests/test_expand.c
# in process: the record's datatype fields; check's rules on made-up traces
TESTS += tests/test_trace_types.c tests/test_check_rules.c
