# trace/: reading what libscitrace.so recorded (docs/traces.md, 'Trace rank
# files') and turning it into findings, a traffic matrix or a schedule:
# the rank files and trace directories, send/receive matching, the
# deadlock and race checks, collectives across members and type matching,
# a check's events and timeline, traced collectives expanded through sched/.
# layer trace: no MPI, no options (scitrace/ is the program)
LAYERS += trace
trace_LAYER_USES := sched util
trace_LAYER_SRCS := trace/tracefile.c trace/tracebin.c trace/tracedir.c trace/build_matrix.c \
                    trace/expand.c trace/match.c trace/check_replay.c trace/check_race.c \
                    trace/check_coll.c trace/check_types.c trace/check_events.c trace/check_timeline.c \
                    trace/otf2_read.c trace/otf2_mpi.c trace/tracegoal.c

# OTF2 (Debian libotf2-trace-dev, otf2-tools): `scitrace otf2` and OTF2
# archives as input.  Optional: without otf2-config the rest builds, and
# both say what is missing.
DEB_PACKAGES += libotf2-trace-dev otf2-tools python3-otf2   # python3-otf2: test_otf2 writes an archive as another tool would
DEPS_PROBE_libotf2-trace-dev := h:otf2/otf2.h
DEPS_PROBE_otf2-tools        := c:otf2-print
OTF2_CONFIG := $(shell command -v otf2-config 2>/dev/null)
ifneq ($(OTF2_CONFIG),)
OTF2_CFLAGS := -DSCITORUS_OTF2 $(shell $(OTF2_CONFIG) --cflags)
OTF2_LIBS   := $(shell $(OTF2_CONFIG) --ldflags) $(shell $(OTF2_CONFIG) --libs)
$(foreach m,rel san,build/$(m)/trace/otf2_read.o build/$(m)/trace/otf2_mpi.o \
                      build/$(m)/scitrace/mode_otf2.o): \
  INCLUDES += $(OTF2_CFLAGS)
trace_LAYER_LIBS := $(OTF2_LIBS)
else
$(info make: no OTF2 library (otf2-config not found): scitrace builds without `scitrace otf2` and OTF2 input; `make deps` installs libotf2-trace-dev)
endif
TESTS += tests/test_expand.c
# in process: the record's datatype fields; check's rules on made-up traces
TESTS += tests/test_trace_types.c tests/test_check_rules.c
