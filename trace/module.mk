# trace/: record every MPI call of an application and turn the record into
# findings, a traffic matrix or a schedule (docs/formats.md, 'Trace rank files').
#   bin/libscitrace.so   PMPI interposition library (LD_PRELOAD), built with
#                        mpicc -fPIC; links the util layer (position-independent)
#                        for its files, and refuses undefined names (-z defs)
#   bin/scitrace         run | summary | matrix | check | goal (no MPI needed)
TRACE_LIB      := bin/libscitrace.so
TRACE_LIB_SRCS := trace/lib_log.c trace/lib_record.c trace/lib_p2p.c trace/lib_wait.c \
                  trace/lib_coll.c trace/lib_init.c
TRACE_LIB_OBJS := $(TRACE_LIB_SRCS:%.c=build/pic/%.o)

build/pic/%.o: %.c | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) $(INCLUDES) $(CFLAGS_REL) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@
# The wrappers are the library's only exported names (MPI_*, not PMPI_*).
TRACE_UTIL_PIC = $(util_LAYER_SRCS:%.c=build/pic/%.o)
build/pic/libutil.a: $$(TRACE_UTIL_PIC)   # (second expansion: util/module.mk comes later)
	@mkdir -p $(@D); rm -f $@; ar rcs $@ $^
$(TRACE_LIB): $(TRACE_LIB_OBJS) build/pic/libutil.a | deps
	@mkdir -p $(@D)
	$(MPICC) -shared -Wl,-z,defs -o $@ $(TRACE_LIB_OBJS) build/pic/libutil.a

all: $(TRACE_LIB)

PROGRAMS += scitrace
scitrace_SRCS = trace/scitrace_main.c trace/modes.c trace/mode_run.c trace/mode_summary.c \
                trace/mode_matrix.c trace/tracefile.c trace/tracebin.c trace/tracedir.c trace/build_matrix.c trace/expand.c \
                trace/match.c trace/check_replay.c trace/check_race.c trace/mode_check.c \
                trace/mode_goal.c trace/mode_dump.c trace/mode_otf2.c
scitrace_LAYERS := sched util

# OTF2 (Debian libotf2-trace-dev, otf2-tools): `scitrace otf2` and OTF2
# archives as input.  Optional: without otf2-config the rest builds, and
# those say what is missing.
DEB_PACKAGES += libotf2-trace-dev otf2-tools
DEPS_PROBE_libotf2-trace-dev := h:otf2/otf2.h
DEPS_PROBE_otf2-tools        := c:otf2-print
OTF2_CONFIG := $(shell command -v otf2-config 2>/dev/null)
ifneq ($(OTF2_CONFIG),)
OTF2_OBJS := $(foreach m,rel san,build/$(m)/trace/mode_otf2.o build/$(m)/trace/otf2_read.o)
$(OTF2_OBJS): INCLUDES += -DSCITORUS_OTF2 $(shell $(OTF2_CONFIG) --cflags)
scitrace_LDLIBS := $(shell $(OTF2_CONFIG) --ldflags) $(shell $(OTF2_CONFIG) --libs)
else
$(info make: no OTF2 library (otf2-config not found): scitrace builds without `scitrace otf2` and OTF2 input; `make deps` installs libotf2-trace-dev)
endif

# The MPI helper programs the trace tests run (plain mpicc: they run with
# the library preloaded, which ASan would refuse).
bin/test/trace_app: tests/trace_app.c | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) $(INCLUDES) $(CFLAGS_REL) -o $@ $<
bin/test/coll_app: tests/coll_app.c trace/scitrace.h | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) $(INCLUDES) $(CFLAGS_REL) -o $@ $<
bin/test/check_app: tests/check_app.c trace/scitrace.h | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) $(INCLUDES) $(CFLAGS_REL) -o $@ $<
TESTS += tests/test_trace.c tests/test_check.c tests/test_goal.c tests/test_expand.c \
         tests/test_trace_records.c tests/test_tracebin.c
test_expand_EXTRA = trace/expand.c
# traced equals generated: scitrace goal in process on committed traces
TESTS += tests/test_sched_trace.c
test_sched_trace_EXTRA = trace/mode_goal.c trace/mode_matrix.c trace/build_matrix.c trace/expand.c \
                         trace/tracefile.c trace/tracebin.c trace/tracedir.c
test_trace_EXTRA = trace/tracefile.c trace/tracebin.c trace/tracedir.c
test_tracebin_EXTRA = trace/tracefile.c trace/tracebin.c trace/tracedir.c
CHECK_PREREQS += $(TRACE_LIB) bin/test/trace_app bin/test/check_app bin/test/coll_app bin/halo3d

# NetPIPE's MPI ping-pong (NPopenmpi): a real program the tests trace.
DEB_PACKAGES += netpipe-openmpi

# make trace-demo: halo3d traced on 8 ranks (part of make demo), its
# summary, traffic matrix and figures.  make bench: bench-trace
# (trace/bench_trace.sh; OSU_ALLTOALL=/path/to/osu_alltoall adds OSU).
MPIRUN_TRACE      := mpirun --oversubscribe $(if $(filter 0,$(shell id -u)),--allow-run-as-root)
TRACE_DEMO_DIR    := build/trace/halo3d-8
TRACE_DEMO_MATRIX := data/traffic/halo3d-8.tsv
.PHONY: trace-demo bench-trace
trace-demo: bin/scitrace bin/halo3d $(TRACE_LIB)
	@rm -rf $(TRACE_DEMO_DIR); mkdir -p $(dir $(TRACE_DEMO_DIR)) $(dir $(TRACE_DEMO_MATRIX))
	bin/scitrace run -d $(TRACE_DEMO_DIR) -- $(MPIRUN_TRACE) -np 8 bin/halo3d
	bin/scitrace summary --top 4 $(TRACE_DEMO_DIR)
	bin/scitrace matrix -o $(TRACE_DEMO_MATRIX) $(TRACE_DEMO_DIR)
	@trace/plot.sh $(TRACE_DEMO_MATRIX) $(PLOTS_OUT) halo3d-8 > build/trace-plots.txt
BENCH_TARGETS += bench-trace
bench-trace: bin/scitrace bin/mpibench bin/scibench bin/test/trace_app $(TRACE_LIB)
	trace/bench_trace.sh bin

# make fuzz (targets listed in tests/module.mk): trace, the rank file reader
# and the replay behind scitrace check; tracebin, the same behind the binary
# records' decoder; tracegoal, trace directories through `scitrace goal`
# into scisim's reader
build/fuzz/fuzz_trace: FUZZ_LIB += trace/tracefile.c trace/tracebin.c trace/tracedir.c trace/check_replay.c \
                                   trace/check_race.c
build/fuzz/fuzz_tracebin: FUZZ_LIB += trace/tracefile.c trace/tracebin.c trace/tracedir.c \
                                      trace/check_replay.c trace/check_race.c
build/fuzz/fuzz_tracegoal: FUZZ_LIB += trace/tracefile.c trace/tracebin.c trace/tracedir.c trace/mode_goal.c \
                                       trace/expand.c
