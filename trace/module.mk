# trace/: record an MPI application's messages and turn them into a traffic
# matrix (SPEC.md section 10).
#   bin/libscitrace.so   PMPI interposition library (LD_PRELOAD), built with
#                        mpicc -fPIC; links topo/atomicfile.c for its files
#   bin/scitrace         run | summary | matrix | plot (no MPI needed)
TRACE_LIB      := bin/libscitrace.so
TRACE_LIB_SRCS := trace/lib_record.c trace/lib_p2p.c trace/lib_coll.c trace/lib_init.c \
                  topo/atomicfile.c
TRACE_LIB_OBJS := $(TRACE_LIB_SRCS:%.c=build/pic/%.o)

build/pic/%.o: %.c | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) $(INCLUDES) $(CFLAGS_REL) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@
# The wrappers are the library's only exported names (MPI_*, not PMPI_*).
$(TRACE_LIB): $(TRACE_LIB_OBJS) | deps
	@mkdir -p $(@D)
	$(MPICC) -shared -o $@ $^

all: $(TRACE_LIB)

PROGRAMS += scitrace
scitrace_SRCS = trace/scitrace_main.c trace/mode_run.c trace/mode_summary.c \
                trace/mode_matrix.c trace/tracefile.c trace/build_matrix.c trace/expand.c \
                trace/match.c

# The MPI helper programs the trace tests run (plain mpicc: they run with
# the library preloaded, which ASan would refuse).
bin/test/trace_app: tests/trace_app.c | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) $(INCLUDES) $(CFLAGS_REL) -o $@ $<
TESTS += tests/test_trace.c tests/test_expand.c
test_expand_EXTRA = trace/expand.c
test_trace_EXTRA = trace/tracefile.c
CHECK_PREREQS += $(TRACE_LIB) bin/test/trace_app bin/halo3d
