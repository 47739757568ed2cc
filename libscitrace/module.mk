# libscitrace/: the PMPI interposition library (LD_PRELOAD) that records
# every MPI call of an application (docs/traces.md, 'Trace rank files').
#   bin/libscitrace.so   built with mpicc -fPIC; links the util layer
#                        (position-independent) for its files, and refuses
#                        undefined names (-z defs)
TRACE_LIB      := bin/libscitrace.so
TRACE_LIB_SRCS := libscitrace/lib_log.c libscitrace/lib_clock.c libscitrace/lib_record.c libscitrace/lib_dtype.c \
                  libscitrace/lib_p2p.c libscitrace/lib_wait.c libscitrace/lib_coll.c \
                  libscitrace/lib_init.c
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
