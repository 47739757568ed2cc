# tests/: hardening targets.
#
# make fuzz [FUZZ_SECONDS=60]   each libFuzzer target for FUZZ_SECONDS
# make fuzz-regressions         each target over its past findings
#                               (tests/fuzz/regressions/<target>-*), once
# make memcheck                 valgrind over scimodel's modes, calibrate --data,
#                               scibench and mpibench (under mpirun)
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= params benchdata parsers traffic goal trace tracegoal
# the launcher's hostfile and rankfile readers, once model/launch.c is here
FUZZ_TARGETS += $(if $(wildcard model/launch.c),launch)
FUZZ_CC      := clang
FUZZ_FLAGS   := -std=c11 -D_GNU_SOURCE -I. -g -O1 -fsanitize=fuzzer,address,undefined
# the fuzz targets link the readers' layers, from the same lists as the programs
FUZZ_LAYERS  := sim sched model benchdata topo util
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

# New inputs go to build/fuzz/corpus-<target> (the committed seeds stay
# small); crashes to tests/fuzz/artifacts/ (ignored by git until a crash
# becomes a regression input under tests/fuzz/regressions/).
fuzz: $(FUZZ_BINS)
	@mkdir -p tests/fuzz/artifacts
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p build/fuzz/corpus-$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	    -artifact_prefix=tests/fuzz/artifacts/$$t- -print_final_stats=1 \
	    build/fuzz/corpus-$$t tests/fuzz/corpus/$$t 2>&1 | \
	    grep -E '^(stat::number_of_executed_units|stat::peak_rss|==.*ERROR|SUMMARY)|Done' || true; \
	  if ls tests/fuzz/artifacts/$$t-crash-* tests/fuzz/artifacts/$$t-leak-* tests/fuzz/artifacts/$$t-timeout-* \
	        tests/fuzz/artifacts/$$t-oom-* 2>/dev/null | grep -q .; then \
	    echo "fuzz: $$t: CRASH, see tests/fuzz/artifacts"; exit 1; fi; \
	done

# A finding stays fixed: its input runs through its target (libFuzzer runs
# the files it is given once each and fails on a crash, leak or timeout).
fuzz-regressions: $(FUZZ_BINS)
	@set -e; for t in $(FUZZ_TARGETS); do \
	  files=$$(ls tests/fuzz/regressions/$$t-* 2>/dev/null || true); \
	  [ -z "$$files" ] && continue; \
	  build/fuzz/fuzz_$$t -timeout=10 $$files > build/fuzz/regressions-$$t.log 2>&1 || \
	    { cat build/fuzz/regressions-$$t.log; echo "fuzz-regressions: $$t: FAILED"; exit 1; }; \
	  echo "fuzz-regressions: $$t: $$(echo $$files | wc -w) inputs pass"; \
	done

MEMCHECK := valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
# The benchmarks' runs measure (they spin two CPUs for a few seconds);
# mpibench runs under mpirun, each rank under valgrind, with Open MPI's own
# suppressions and tests/valgrind-openmpi.supp (what MPI_Init keeps).
MEMCHECK_MPI := $(MEMCHECK) --num-callers=40 \
                $(addprefix --suppressions=,$(wildcard /usr/share/openmpi/openmpi-valgrind.supp)) \
                --suppressions=tests/valgrind-openmpi.supp
memcheck: bin/scimodel bin/calibrate bin/scibench bin/mpibench | deps
	@set -e; for args in "--dims 1..4 --nodes 1000" "--preset enhanced --crossover --format tsv" \
	    "--sweep --nodes 2000 --dims 1..4" "--sweep --sweep-points 50 --nodes 1000000" \
	    "--shape 4x4x4 --format tsv" "--shape 4x4x4 --hops 1,0,3" \
	    "--fill interpolate --metric multicast --crossover" \
	    "--params tests/fixtures/plots/ring2.params --dims 1..4" "--nodes 1" \
	    "--links bi --pattern complement --nodes 4096" "--pattern transpose --shape 16x16 --links bi" \
	    "--bcast binomial --nodes 4096" "--load --nodes 1000 --links bi" \
	    "--load --shape 6x6x6 --pattern tornado --rates 0.001" "--nodes 3" \
	    "--traffic tests/fixtures/traffic/halo3d-64.tsv --dims 1..4 --links bi" \
	    "--traffic tests/fixtures/traffic/halo3d-64-scrambled.tsv --dims 3 --placement optimize --anneal-steps 2000" \
	    "--pattern tornado --nodes 1e15 --dims 1..16" "--bcast binomial --dims 1..16 --links bi"; do \
	  rc=0; $(MEMCHECK) bin/scimodel $$args > /dev/null 2>build/memcheck.err || rc=$$?; \
	  if [ $$rc = 99 ]; then cat build/memcheck.err; echo "memcheck: scimodel $$args: errors"; exit 1; fi; \
	  echo "memcheck: scimodel $$args: clean (exit $$rc)"; \
	done; \
	$(MEMCHECK) bin/calibrate --data tests/fixtures/plots/ring2.tsv -o build/memcheck.params > /dev/null 2>build/memcheck.err || \
	  { cat build/memcheck.err; echo "memcheck: calibrate --data: errors"; exit 1; }; \
	echo "memcheck: calibrate --data tests/fixtures/plots/ring2.tsv: clean"; \
	rc=0; $(MEMCHECK) bin/calibrate --data tests/fuzz/corpus/benchdata/short.tsv -o build/memcheck.params > /dev/null 2>build/memcheck.err || rc=$$?; \
	  [ $$rc != 99 ] || { cat build/memcheck.err; exit 1; }; \
	echo "memcheck: calibrate on an incomplete file: clean"; \
	$(MEMCHECK) bin/calibrate --logp data/sample/logp-shm.tsv -o build/memcheck.params > /dev/null 2>build/memcheck.err || \
	  { cat build/memcheck.err; echo "memcheck: calibrate --logp: errors"; exit 1; }; \
	echo "memcheck: calibrate --logp data/sample/logp-shm.tsv: clean"; \
	grep -v '^# L_ns' data/sample/logp-shm.tsv > build/memcheck-no-L.tsv; \
	rc=0; $(MEMCHECK) bin/calibrate --logp build/memcheck-no-L.tsv -o build/memcheck.params > /dev/null 2>build/memcheck.err || rc=$$?; \
	  [ $$rc != 99 ] || { cat build/memcheck.err; echo "memcheck: calibrate --logp without L_ns: errors"; exit 1; }; \
	echo "memcheck: calibrate --logp on a file without '# L_ns': clean (exit $$rc)"; \
	for args in "--sizes 8,1024 --max-time 0.05 -q -o build/memcheck.tsv" "--floor --sizes 8" \
	    "--resume build/memcheck.tsv" "--cpus 0,0" \
	    "--ring 2 --interleave 8=build/memcheck-r8.tsv --interleave 4x4=build/memcheck-t44.tsv --sizes 8,1024 --max-time 0.05 -q -o build/memcheck-r2.tsv" \
	    "--pattern logp --max-size 64 --max-rtt 5 --os-fence -q -o build/memcheck-logp.tsv"; do \
	  rc=0; $(MEMCHECK) bin/scibench $$args > /dev/null 2>build/memcheck.err || rc=$$?; \
	  if [ $$rc = 99 ]; then cat build/memcheck.err; echo "memcheck: scibench $$args: errors"; exit 1; fi; \
	  echo "memcheck: scibench $$args: clean (exit $$rc)"; \
	done; \
	rc=0; $(MEMCHECK) bin/calibrate --data build/memcheck-r2.tsv build/memcheck-r8.tsv build/memcheck-t44.tsv \
	  -o build/memcheck.params > /dev/null 2>build/memcheck.err || rc=$$?; \
	  [ $$rc != 99 ] || { cat build/memcheck.err; echo "memcheck: calibrate, joint fit: errors"; exit 1; }; \
	echo "memcheck: calibrate --data (2-, 8-node rings, 4x4 torus): clean (exit $$rc)"; \
	rc=0; $(MEMCHECK) bin/calibrate --logp build/memcheck-logp.tsv -o build/memcheck.params > /dev/null 2>build/memcheck.err || rc=$$?; \
	  [ $$rc != 99 ] || { cat build/memcheck.err; echo "memcheck: calibrate --logp, fenced: errors"; exit 1; }; \
	echo "memcheck: calibrate --logp (an --os-fence file): clean (exit $$rc)"; \
	rc=0; timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 $(MEMCHECK_MPI) bin/mpibench \
	  --sizes 8,1024 --max-time 0.05 -q -o build/memcheck-mpi.tsv > build/memcheck.err 2>&1 || rc=$$?; \
	if [ $$rc != 0 ]; then cat build/memcheck.err; echo "memcheck: mpibench: errors (exit $$rc)"; exit 1; fi; \
	echo "memcheck: mpirun -np 2 mpibench --sizes 8,1024: clean"; \
	for args in "--ring 2 --interleave 6=build/memcheck-mpi-r6.tsv --echo --sizes 8,1024 --max-time 0.05 -q -o build/memcheck-mpi-r2.tsv" \
	    "--pattern logp --max-size 64 --max-rtt 5 --os-fence -q -o build/memcheck-mpi-logp.tsv"; do \
	  rc=0; timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 $(MEMCHECK_MPI) bin/mpibench \
	    $$args > build/memcheck.err 2>&1 || rc=$$?; \
	  if [ $$rc != 0 ]; then cat build/memcheck.err; echo "memcheck: mpibench $$args: errors (exit $$rc)"; exit 1; fi; \
	  echo "memcheck: mpirun -np 2 mpibench $$args: clean"; \
	done
# Test tiers (make check-unit, check-cli, check-timing; make check runs all
# three).  Unit: deterministic and in process, no program run (under 60 s
# together).  Timing: MPI runs and timed measurements, each with the reason
# it is timing-sensitive.  Every other test is in the cli tier: it runs the
# programs (bin/san, sanitized) and checks their outputs and messages.
CHECK_UNIT := test_stats test_benchdata test_expand test_fit test_load test_model test_opt \
              test_params test_parse test_patterns test_projection test_shm test_topo test_coll \
              test_sim_work test_sched_trace test_layers test_sched_roundtrip test_regime
CHECK_TIMING :=
CHECK_TIMING += test_scibench     # measures core-to-core latency and injected delays
CHECK_TIMING += test_interleave   # times ping-pongs against an injected cost of a size change
CHECK_TIMING += test_mpibench     # MPI ping-pong under mpirun, timed
CHECK_TIMING += test_logp         # recovers 80-160 us injected delays from timed runs
CHECK_TIMING += test_calibrate    # calibrate runs scibench and fits what it measured
CHECK_TIMING += test_full         # calibrate --full measures an emulated network under mpirun
CHECK_TIMING += test_faults       # MPI runs killed and timed out on purpose
CHECK_TIMING += test_reliability  # interrupts measuring runs 1.5 s after they start (a run
                                  # that has written no row by then cannot be resumed)
CHECK_TIMING += test_trace        # traces MPI programs under mpirun
CHECK_TIMING += test_coll_mpi    # collectives timed under mpirun, injected send delays measured
CHECK_TIMING += test_sched_mpi   # traces collectives under mpirun and replays their schedules
CHECK_TIMING += test_sched_ompi  # runs each collective under mpirun with Open MPI's monitoring
CHECK_TIMING += test_spawn        # kills scitrace run while its MPI ranks sleep, waits past them
CHECK_TIMING += test_testbed      # measures MPI latency across kernel-routed namespaces (one campaign round)
CHECK_TIMING += test_campaign_resume  # runs scibench, interrupted mid-measurement and resumed

TESTS += tests/test_badinput.c tests/test_faults.c tests/test_install.c tests/test_reliability.c
# validation and bounded-time tests
TESTS += tests/test_validation.c
