# tests/: hardening targets.
#
# make fuzz [FUZZ_SECONDS=60]   each libFuzzer target for FUZZ_SECONDS
# make fuzz-regressions         each target over its past findings
#                               (tests/fuzz/regressions/<target>-*), once
# make memcheck                 valgrind over scimodel's modes, calibrate --data,
#                               scibench and mpibench (under mpirun)
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= params benchdata parsers traffic goal trace tracegoal tracebin
# the launcher's hostfile and rankfile readers, once model/launch.c is here
FUZZ_TARGETS += $(if $(wildcard model/launch.c),launch)
FUZZ_CC      := clang
FUZZ_FLAGS   := -std=c11 -D_GNU_SOURCE -I. -g -O1 -fsanitize=fuzzer,address,undefined
# the fuzz targets link the readers' layers, from the same lists as the programs
FUZZ_LAYERS  := sim coll sched model benchdata topo util
FUZZ_LIB      = $(foreach l,$(FUZZ_LAYERS),$($(l)_LAYER_SRCS))
FUZZ_BINS    := $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)

.PHONY: fuzz fuzz-build fuzz-regressions memcheck
fuzz fuzz-build fuzz-regressions memcheck: EXTRA_DEB_PACKAGES := clang libclang-rt-14-dev valgrind

# (second expansion, which the Makefile turns on: the layers' module.mk
# files come after this one)
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_input.h $$(FUZZ_LIB) | deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_LIB) $(GSL_LIBS) $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

# make fuzz, make fuzz-regressions: tests/fuzz.sh (where inputs and
# crashes go, and how a finding stays fixed).
fuzz: $(FUZZ_BINS)
	@tests/fuzz.sh run $(FUZZ_SECONDS) $(FUZZ_TARGETS)
fuzz-regressions: $(FUZZ_BINS)
	@tests/fuzz.sh regressions 0 $(FUZZ_TARGETS)

# make memcheck: valgrind over the programs (tests/memcheck.sh says which runs).
memcheck: bin/scimodel bin/calibrate bin/scibench bin/mpibench | deps
	@tests/memcheck.sh
# Test tiers (make check-unit, check-cli, check-timing; make check runs all
# three).  Unit: deterministic and in process, no program run.  Timing: timed measurements, and runs whose outcome depends on
# when a clock fires (a signal a fixed time into a run), each with the reason
# it is timing-sensitive.  Every other test is in the cli tier: it runs the
# programs (bin/san, sanitized) and checks their outputs and messages; a run
# there may be bounded by a timeout, or signalled once it is seen to have
# reached what the test polls for (test_faults, test_spawn, test_trace,
# test_check_faults).  The
# unit and cli tiers time nothing, so tests/check.sh runs their binaries on
# every core at once; the unit tier's slowest come first in CHECK_UNIT (the
# sums of check-unit's "== test_X: T s" lines say which).  An MPI run whose
# outcome no clock decides (messages counted, traces read back:
# test_sched_ompi, test_sched_mpi, test_tracebin, test_otf2) is a cli test.
CHECK_UNIT := test_load test_coll test_sched_roundtrip test_projection test_router test_sched_trace \
              test_stats test_benchdata test_expand test_fit test_model test_opt \
              test_params test_parse test_patterns test_shm test_topo \
              test_sim_work test_layers test_sched_match \
              test_trace_types test_check_rules test_uncertainty test_linkrate test_regime test_turns test_timer
# The unit and cli tiers' longest binaries (or parts, as build/check/ names
# them), longest first: make check starts them first when it has no times
# of a last run (a fresh clone), so that none of them is left to run alone
# at the end.  The sorted "== BIN: T s" lines of a make check say which.
CHECK_FIRST := test_verdict test_check test_sched_ompi test_otf2 test_plots test_load \
               test_sched_roundtrip test_faults test_docs.only test_spawn test_check_faults \
               test_trace test_launch test_router_cli test_testbed.only test_coll \
               test_validation test_coll_mpi.only test_sim test_p2p.only test_option_order \
               test_badinput
# The pool's binaries that mostly sleep: tests/check.sh runs them beside
# its CHECK_JOBS, so that a job slot never idles on a timeout.
CHECK_WAITING :=
CHECK_WAITING += test_verdict      # a stand-in run sleeps out --full's budget
CHECK_WAITING += test_faults test_check_faults test_spawn  # hung runs, signalled or timed out
CHECK_WAITING += test_trace test_otf2  # traced runs killed or left to hang to their timeout
CHECK_WAITING += test_coll_mpi.only    # mpirun refusing bad input, waited for
CHECK_TIMING :=
CHECK_TIMING += test_scibench     # measures core-to-core latency and injected delays
CHECK_TIMING += test_scibench_stop   # stops and resumes long shared-memory runs
CHECK_TIMING += test_interleave   # times ping-pongs against an injected cost of a size change
CHECK_TIMING += test_mpibench     # MPI ping-pong under mpirun, timed
CHECK_TIMING += test_p2p          # mpibench --p2p's modes under mpirun, timed
CHECK_TIMING += test_bench_controls # cut quantile, batches, stop rule, refinement on an injected delay
CHECK_TIMING += test_logp         # recovers 80-160 us injected delays from timed runs
CHECK_TIMING += test_logp_flood   # --flood's streams recover an injected 160 us gap
CHECK_TIMING += test_calibrate    # calibrate runs scibench and fits what it measured
CHECK_TIMING += test_full         # calibrate --full measures an emulated network under mpirun
CHECK_TIMING += test_reliability  # interrupts measuring runs 1.5 s after they start (a run
                                  # that has written no row by then cannot be resumed)
CHECK_TIMING += test_coll_mpi    # collectives timed under mpirun, injected send delays measured
CHECK_TIMING += test_coll_ops    # the collectives beside the eight under mpirun, timed
CHECK_TIMING += test_testbed      # MPI runs across kernel-routed namespaces
CHECK_TIMING += test_campaign_resume  # runs scibench, interrupted mid-measurement and resumed
CHECK_TIMING += test_docs         # the documents' examples: calibrate --full and mpibench measure

# Tests of timing binaries that time nothing: usage errors and output errors,
# whose runs are refused or fail before anything is measured.  They run in
# the cli tier, beside other binaries (BIN:SUITE/TEST).
CHECK_UNTIMED :=
CHECK_UNTIMED += test_p2p:p2p/usage_errors test_coll_ops:coll_ops/usage_errors
CHECK_UNTIMED += test_p2p:p2p/bench_reads_each_reference_in_ns_a_message
CHECK_UNTIMED += test_coll_mpi:coll_mpi/bad_input_is_one_clear_line
CHECK_UNTIMED += test_coll_mpi:coll_mpi/algorithm_that_does_not_fit_a_count_is_a_usage_error
CHECK_UNTIMED += test_mpibench:mpibench/full_standard_output_is_an_error
CHECK_UNTIMED += test_mpibench:mpibench/rank_count_must_match_topology
CHECK_UNTIMED += test_logp:logp/three_ranks_is_a_usage_error test_logp:logp/usage_errors_name_the_argument \
                 test_logp:logp/sizes_below_eight_bytes_are_measured
CHECK_UNTIMED += test_reliability:reliability/full_standard_output_is_an_error
CHECK_UNTIMED += test_calibrate:calibrate/usage_errors test_full:full/usage_errors
# the documents' own checks (lengths, citations, printed figures) and their
# examples that measure nothing (tests/docs/examples.sh --part other)
CHECK_UNTIMED += test_docs:docs/every_other_example_runs_as_pasted
CHECK_UNTIMED += test_docs:docs/readme_shows_what_scimodel_prints test_docs:docs/readme_is_at_most_400_lines
CHECK_UNTIMED += test_docs:docs/nothing_cites_documents_the_user_does_not_have
CHECK_UNTIMED += test_docs:docs/no_file_is_over_700_lines test_docs:docs/demo_crossovers_are_scimodels
# the testbed's routes read from the kernel, relabel.sh over its fixtures,
# and its usage errors: no MPI run, no clock
CHECK_UNTIMED += test_testbed:testbed/relabel_gives_mpibench_routes test_testbed:testbed/bad_input_named
CHECK_UNTIMED += test_testbed:testbed/ring_routes_one_way test_testbed:testbed/ring_routes_shortest_way
CHECK_UNTIMED += test_testbed:testbed/torus_routes_dimension_ordered
CHECK_UNTIMED += test_testbed:testbed/torus_3d_routes_shortest_way

TESTS += tests/test_badinput.c tests/test_faults.c tests/test_install.c tests/test_reliability.c
# validation and bounded-time tests
TESTS += tests/test_validation.c
# the candidates, intervals and best-or-tie of scimodel --traffic and scisim
TESTS += tests/test_answer_cli.c
