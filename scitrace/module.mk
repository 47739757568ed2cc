# scitrace/: the scitrace command -- run | summary | matrix | check | goal |
# map | dump | otf2 (no MPI needed; the reading is the trace layer, map's
# placement the model layer's), its figures, the MPI
# helper programs its tests trace, trace-demo and bench-trace.
PROGRAMS += scitrace
scitrace_SRCS = scitrace/scitrace_main.c scitrace/modes.c scitrace/mode_run.c scitrace/mode_summary.c \
                scitrace/mode_matrix.c scitrace/mode_check.c scitrace/mode_goal.c scitrace/mode_map.c \
                scitrace/mode_dump.c scitrace/mode_otf2.c
scitrace_LAYERS := trace model topo sched util

# The MPI helper programs the trace tests run (plain mpicc: they run with
# the library preloaded, which ASan would refuse).
bin/test/trace_app: tests/trace_app.c | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) $(INCLUDES) $(CFLAGS_REL) -o $@ $<
bin/test/coll_app: tests/coll_app.c libscitrace/scitrace.h | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) $(INCLUDES) $(CFLAGS_REL) -o $@ $<
bin/test/check_app: tests/check_app.c libscitrace/scitrace.h | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) $(INCLUDES) $(CFLAGS_REL) -o $@ $<
bin/test/fault_app: tests/fault_app.c libscitrace/scitrace.h | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) $(INCLUDES) $(CFLAGS_REL) -o $@ $<
TESTS += tests/test_trace.c tests/test_check.c tests/test_goal.c tests/test_trace_records.c \
         tests/test_tracebin.c tests/test_otf2.c
TESTS += tests/test_check_faults.c tests/test_trace_map.c
# traced equals generated: scitrace goal in process on committed traces
TESTS += tests/test_sched_trace.c
CHECK_PREREQS += $(TRACE_LIB) bin/test/trace_app bin/test/check_app bin/test/coll_app bin/halo3d \
                 bin/test/fault_app

# NetPIPE's MPI ping-pong (NPopenmpi): a real program the tests trace.
DEB_PACKAGES += netpipe-openmpi
# LAMMPS (lmp) and its melt example: a real application check must find clean.
DEB_PACKAGES += lammps lammps-examples

# make trace-demo: halo3d traced on 8 ranks (part of make demo), its
# summary, traffic matrix and figures.  make bench: bench-trace
# (scitrace/bench_trace.sh; OSU_ALLTOALL=/path/to/osu_alltoall adds OSU).
MPIRUN_TRACE      := mpirun --oversubscribe $(if $(filter 0,$(shell id -u)),--allow-run-as-root)
TRACE_DEMO_DIR    := build/trace/halo3d-8
TRACE_DEMO_MATRIX := data/traffic/halo3d-8.tsv
.PHONY: trace-demo bench-trace
trace-demo: bin/scitrace bin/halo3d $(TRACE_LIB)
	@rm -rf $(TRACE_DEMO_DIR); mkdir -p $(dir $(TRACE_DEMO_DIR)) $(dir $(TRACE_DEMO_MATRIX))
	bin/scitrace run -d $(TRACE_DEMO_DIR) -- $(MPIRUN_TRACE) -np 8 bin/halo3d
	bin/scitrace summary --top 4 $(TRACE_DEMO_DIR)
	bin/scitrace matrix -o $(TRACE_DEMO_MATRIX) $(TRACE_DEMO_DIR)
	@scitrace/plot.sh $(TRACE_DEMO_MATRIX) $(PLOTS_OUT) halo3d-8 > build/trace-plots.txt
BENCH_TARGETS += bench-trace
bench-trace: bin/scitrace bin/mpibench bin/scibench bin/test/trace_app bin/halo3d $(TRACE_LIB)
	scitrace/bench_trace.sh bin

# make fuzz (targets listed in tests/module.mk): trace, the rank file reader
# and the replay behind scitrace check; tracebin, the same behind the binary
# records' decoder; tracegoal, trace directories through `scitrace goal`'s writer (trace/tracegoal.c)
# into scisim's reader
build/fuzz/fuzz_trace: FUZZ_LIB += $(trace_LAYER_SRCS)
build/fuzz/fuzz_tracebin: FUZZ_LIB += $(trace_LAYER_SRCS)
build/fuzz/fuzz_tracegoal: FUZZ_LIB += $(trace_LAYER_SRCS)
