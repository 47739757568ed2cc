# scitorus top-level Makefile (GNU Make, no autotools).
#
# Each stage of the pipeline keeps its own fragment, <dir>/module.mk, which
# appends to the variables below; this file holds only the generic rules.
#
#   LAYERS            the library layers (docs/ARCHITECTURE.md);
#                     <l>_LAYER_SRCS its sources, archived as build/*/lib<l>.a,
#                     <l>_LAYER_LIBS the system libraries it needs (GSL),
#                     <l>_LAYER_USES the layers below it that it may call
#                     (tests/test_layers.c checks the archives' symbols)
#   PROGRAMS          names of programs; bin/<name> from <name>_SRCS
#   <name>_SRCS       the program's own sources (its main)
#   <name>_LAYERS     the layers it links, and no other (default: all): a
#                     call into an undeclared layer fails at link time
#   <name>_MPI = 1    compile and link the program's own sources with mpicc
#   LIB_SRCS          sources not yet in a layer (linked where no list is given)
#   TESTS             Criterion test sources, each one binary bin/test/<stem>;
#                     its tier in tests/module.mk (unit, cli, timing)
#                     (a test links layers only, never a program's sources);
#                     <stem>_LDLIBS extra libraries
#   BENCH_TARGETS     phony targets `make bench` runs, in order
#   CHECK_PREREQS     extra files `make check` needs built first
#
# Two flavours of every object: build/rel (optimised, for bin/) and
# build/san (AddressSanitizer + UBSan, for bin/san/ and every test).

SHELL       := /bin/bash
CC          := gcc
MPICC       := mpicc
CSTD        := -std=c11 -D_GNU_SOURCE
WARN        := -Wall -Wextra -Werror
INCLUDES    := -I.
CFLAGS_REL  := -O2 -g
CFLAGS_SAN  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
               -fno-sanitize-recover=all
GSL_LIBS    := -lgsl -lgslcblas
LDLIBS      := -lm
TEST_LDLIBS := -lcriterion

# Debian packages the project needs; `make deps` installs the missing ones.
DEB_PACKAGES := libgsl-dev libcriterion-dev libopenmpi-dev openmpi-bin gnuplot-nox help2man

LIB_SRCS      :=
LAYERS        :=
PROGRAMS      :=
TESTS         :=
BENCH_TARGETS :=
CHECK_PREREQS :=

.PHONY: all check demo bench clean deps install uninstall
all:

# `make check` builds on every core unless told -j (the command line wins):
# the tests' build is most of a fresh clone's check.  The tests themselves
# run after it, tier by tier (tests/check.sh).
ifneq ($(filter check check-unit check-cli check-timing,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

# Second expansion ($$ in a prerequisite list) lets a module.mk name the
# variables of one included after it.
.SECONDEXPANSION:
include $(sort $(wildcard */module.mk))
# Archives and links also depend on the lists: a source moved out of a layer,
# or a layer dropped from a program, relinks instead of keeping stale symbols.
BUILD_LISTS := Makefile $(sort $(wildcard */module.mk))

# --- layers -----------------------------------------------------------------
# One static archive per layer; LIB_SRCS (sources no module has put in a
# layer yet) is the layer "lib".  A program links the archives of the layers
# it declares, in a group, so their order does not matter.
LAYERS += lib
lib_LAYER_SRCS := $(LIB_SRCS)
lib_LAYER_LIBS := $(GSL_LIBS)
define layer_template
build/rel/lib$(1).a: $$($(1)_LAYER_SRCS:%.c=build/rel/%.o) $(BUILD_LISTS)
	@mkdir -p $$(@D); rm -f $$@; ar rcs $$@ $$(filter %.o,$$^)
build/san/lib$(1).a: $$($(1)_LAYER_SRCS:%.c=build/san/%.o) $(BUILD_LISTS)
	@mkdir -p $$(@D); rm -f $$@; ar rcs $$@ $$(filter %.o,$$^)
endef
$(foreach l,$(LAYERS),$(eval $(call layer_template,$(l))))
# $(call layer_archives,rel|san,layers) and $(call layer_libs,layers)
layer_archives = $(foreach l,$(2),build/$(1)/lib$(l).a)
layer_link     = -Wl,--start-group $(call layer_archives,$(1),$(2)) -Wl,--end-group \
                 $(sort $(foreach l,$(2),$($(l)_LAYER_LIBS)))
ALL_LAYERS := $(LAYERS)

# --- programs ---------------------------------------------------------------
define program_template
$(1)_LAYERS ?= $(ALL_LAYERS)
$(1)_OBJS_REL := $$($(1)_SRCS:%.c=build/rel/%.o)
$(1)_OBJS_SAN := $$($(1)_SRCS:%.c=build/san/%.o)
ifeq ($$($(1)_MPI),1)
$$($(1)_OBJS_REL) $$($(1)_OBJS_SAN) bin/$(1) bin/san/$(1): CC := $(MPICC)
endif
bin/$(1): $$($(1)_OBJS_REL) $$(call layer_archives,rel,$$($(1)_LAYERS)) $(BUILD_LISTS) | deps
	@mkdir -p $$(@D)
	$$(CC) $(CFLAGS_REL) -o $$@ $$($(1)_OBJS_REL) $$(call layer_link,rel,$$($(1)_LAYERS)) \
	  $$($(1)_LDLIBS) $(LDLIBS)
bin/san/$(1): $$($(1)_OBJS_SAN) $$(call layer_archives,san,$$($(1)_LAYERS)) $(BUILD_LISTS) | deps
	@mkdir -p $$(@D)
	$$(CC) $(CFLAGS_SAN) -o $$@ $$($(1)_OBJS_SAN) $$(call layer_link,san,$$($(1)_LAYERS)) \
	  $$($(1)_LDLIBS) $(LDLIBS)
endef
$(foreach p,$(PROGRAMS),$(eval $(call program_template,$(p))))

BINS_REL := $(PROGRAMS:%=bin/%)
BINS_SAN := $(PROGRAMS:%=bin/san/%)
all: $(BINS_REL)

# --- objects ----------------------------------------------------------------
build/rel/%.o: %.c | deps
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(INCLUDES) $(CFLAGS_REL) -MMD -MP -c $< -o $@
build/san/%.o: %.c | deps
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(INCLUDES) $(CFLAGS_SAN) -MMD -MP -c $< -o $@

-include $(shell find build -name '*.d' 2>/dev/null)

# --- tests ------------------------------------------------------------------
TEST_BINS := $(foreach t,$(TESTS),bin/test/$(basename $(notdir $(t))))
define test_template
$(2)_LAYERS ?= $(ALL_LAYERS)
bin/test/$(2): build/san/$(1:%.c=%.o) $$(call layer_archives,san,$$($(2)_LAYERS)) $(BUILD_LISTS) | deps
	@mkdir -p $$(@D)
	$$(CC) $(CFLAGS_SAN) -o $$@ build/san/$(1:%.c=%.o) \
	  $$(call layer_link,san,$$($(2)_LAYERS)) $(TEST_LDLIBS) $$($(2)_LDLIBS) $(LDLIBS)
endef
$(foreach t,$(TESTS),$(eval $(call test_template,$(t),$(basename $(notdir $(t))))))

# make check runs three tiers (tests/module.mk says which test is in which,
# and why a timing test is one): the unit and cli tiers as one pool, then
# the timing tier; check-unit, check-cli and check-timing run one each.  tests/check.sh runs each binary with --jobs 1
# (several time real message passing on a 2-core machine), the unit and cli
# tiers' binaries CHECK_JOBS at once (default: the cores, one more in the
# cli tier), the timing tier's one at a time; it prints each one's wall time, and the tier's sums; `check`
# ends with the one line CI reads.
CHECK_ENV = SCITORUS_BIN=$(CURDIR)/bin/san SCITORUS_BIN_REL=$(CURDIR)/bin SCITORUS_ROOT=$(CURDIR) \
            ASAN_OPTIONS=abort_on_error=0 \
            LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 CHECK_FIRST="$(CHECK_FIRST)" \
            CHECK_WAITING="$(CHECK_WAITING)" OMPI_MCA_pml=$(CHECK_PML)
# The tests' MPI runs share one node, where Open MPI selects its ob1 PML
# anyway; naming it spares every mpirun the probe of the others' networks.
CHECK_PML := $(or $(OMPI_MCA_pml),ob1)
# (the unit tier in CHECK_UNIT's order: its slowest first, so that on a
# fresh clone the binaries running beside it fill the other cores)
CHECK_UNIT_BINS   := $(filter $(TEST_BINS),$(CHECK_UNIT:%=bin/test/%))
CHECK_TIMING_BINS := $(filter $(CHECK_TIMING:%=bin/test/%),$(TEST_BINS))
CHECK_CLI_BINS    := $(filter-out $(CHECK_UNIT_BINS) $(CHECK_TIMING_BINS),$(TEST_BINS))
# The tests of a timing binary that CHECK_UNTIMED names (BIN:SUITE/TEST) run
# in the cli tier, the binary's others in the timing tier (tests/check.sh's
# BIN:only= and BIN:except=).
comma := ,
untimed_of  = $(subst $(eval) ,$(comma),$(strip $(patsubst $(1):%,%,$(filter $(1):%,$(CHECK_UNTIMED)))))
check_part  = $(if $(call untimed_of,$(2)),bin/test/$(2):$(1)=$(call untimed_of,$(2)),$(if $(filter except,$(1)),bin/test/$(2)))
CHECK_TIMING_RUN := $(foreach b,$(CHECK_TIMING_BINS:bin/test/%=%),$(call check_part,except,$(b)))
CHECK_CLI_RUN    := $(CHECK_CLI_BINS) $(foreach b,$(CHECK_TIMING_BINS:bin/test/%=%),$(call check_part,only,$(b)))
.PHONY: check-unit check-cli check-timing
check-unit: $(CHECK_UNIT_BINS)
	@$(CHECK_ENV) tests/check.sh check-unit $^
check-cli: $(CHECK_CLI_BINS) $(CHECK_TIMING_BINS) $(BINS_SAN) $(BINS_REL) $(CHECK_PREREQS)
	@$(CHECK_ENV) tests/check.sh check-cli $(CHECK_CLI_RUN)
check-timing: $(CHECK_TIMING_BINS) $(BINS_SAN) $(BINS_REL) $(CHECK_PREREQS)
	@sync; $(CHECK_ENV) tests/check.sh check-timing $(CHECK_TIMING_RUN)
# The `sync` first writes back what the build left dirty, so the kernel's
# writeback does not steal CPU from the first timed runs.
# The unit and cli tiers, neither timed, run as one pool (++): no core idles
# while one tier's last binaries end.
check: $(TEST_BINS) $(BINS_SAN) $(BINS_REL) $(CHECK_PREREQS)
	@sync; $(CHECK_ENV) tests/check.sh --all check-unit $(CHECK_UNIT_BINS) ++ \
	  check-cli $(CHECK_CLI_RUN) -- check-timing $(CHECK_TIMING_RUN)

# --- packages ---------------------------------------------------------------
# Every build rule runs `deps` first.  It checks only what the goals on the
# command line need, by looking for the header or the command (so an MPI
# or a GSL from environment modules or Spack counts), and names the Debian
# package of each missing one.  It installs them (apt-get, as root) only
# for the goals that promise the whole set-up: deps, check and demo.
#   make MPICC=/path/mpicc MPIRUN=/path/mpirun ...   an MPI not on PATH
#   make DEPS_PRETEND_MISSING="libcriterion-dev" ... treat a package as absent
#                                                    (to test these messages)
MPIRUN ?= mpirun
export MPIRUN
DEPS_PRETEND_MISSING ?=
# package -> how to tell it is there: h:<header> (compiled with $(CC)) or
# c:<command>; packages without an entry are asked of dpkg.
DEB_PACKAGES += gcc
DEPS_PROBE_gcc              := c:$(CC)
DEPS_PROBE_libgsl-dev       := h:gsl/gsl_math.h
DEPS_PROBE_libcriterion-dev := h:criterion/criterion.h
DEPS_PROBE_libopenmpi-dev   := c:$(MPICC)
DEPS_PROBE_openmpi-bin      := c:$(MPIRUN)
DEPS_PROBE_gnuplot-nox      := c:gnuplot
DEPS_PROBE_help2man         := c:help2man
DEPS_PROBE_netpipe-openmpi  := c:NPopenmpi
# The C compiler of the checks (the MPI programs set CC to MPICC for their
# own objects, and deps inherits that).
DEPS_CC         := $(CC)
DEPS_FULL_GOALS := deps check demo
DEPS_GOALS      := $(or $(MAKECMDGOALS),all)
DEPS_MPI_BINS   := $(foreach p,$(PROGRAMS),$(if $(filter 1,$($(p)_MPI)),bin/$(p) bin/san/$(p))) \
                   $(TRACE_LIB) bin/test/trace_app
# What the goals need: the whole list for the set-up goals, else a compiler
# and GSL, plus an MPI compiler, Criterion, gnuplot or help2man where asked.
DEPS_NEEDED := $(if $(filter $(DEPS_FULL_GOALS),$(DEPS_GOALS)),$(DEB_PACKAGES) $(EXTRA_DEB_PACKAGES),\
  gcc libgsl-dev \
  $(if $(filter all install bench man trace-demo $(DEPS_MPI_BINS),$(DEPS_GOALS)),libopenmpi-dev) \
  $(if $(filter bin/test/%,$(DEPS_GOALS)),libcriterion-dev) \
  $(if $(filter plots report,$(DEPS_GOALS)),gnuplot-nox) \
  $(if $(filter man install,$(DEPS_GOALS)),help2man) \
  $(EXTRA_DEB_PACKAGES))
DEPS_INSTALL := $(if $(filter $(DEPS_FULL_GOALS),$(DEPS_GOALS)),yes)

deps:
	@DEPS_CC='$(DEPS_CC)' DEPS_GOALS='$(DEPS_GOALS)' DEPS_INSTALL='$(DEPS_INSTALL)' \
	  DEPS_PRETEND_MISSING='$(DEPS_PRETEND_MISSING)' \
	  scripts/deps.sh $(foreach p,$(sort $(DEPS_NEEDED)),$(p)=$(DEPS_PROBE_$(p)))

# --- the main job and the speed figures -------------------------------------
# make demo: calibrate on a 2-node shared-memory ring (o(m) measured, lf
# and ls taken from the thesis's preset), then calibrate --full (every
# parameter of the emulated network measured, checked on a held-out 6-node
# ring), projections with both, their crossovers side by side with which
# to trust, every figure, and the traced example application.  QUICK=1:
# fewer sizes and a looser error target (well under a minute; CI).
HOST        := $(shell uname -n)
DEMO_PARAMS := data/params/$(HOST)-shm.params
DEMO_BENCH  := data/bench/$(HOST)-shm-ring2.tsv
FULL_PARAMS := data/params/$(HOST)-shm-full.params
FULL_VALID  := data/params/$(HOST)-shm-full-validation.tsv
FIG5_API    := data/bench/$(HOST)-shm-ow-ring2.tsv
FIG5_MPI    := data/bench/$(HOST)-mpi-ow-ring2.tsv
demo: all
	@mkdir -p $(dir $(DEMO_PARAMS) $(DEMO_BENCH) $(FULL_PARAMS))   # the demo names them; calibrate creates no directory
	bin/calibrate $(if $(QUICK),--quick) -o $(DEMO_PARAMS) --bench-out $(DEMO_BENCH)
	@echo
	bin/scimodel --params $(DEMO_PARAMS) --dims 1..4 --nodes 1000
	@echo
	@rm -f build/demo-full.ok   # this run's verdict only: a failed check leaves an older params file
	bin/calibrate --full $(if $(QUICK),--quick) -q -o $(FULL_PARAMS) && touch build/demo-full.ok || [ $$? -eq 3 -o $$? -eq 4 ]
	@echo
	@if [ -e build/demo-full.ok ]; then $(MAKE) --no-print-directory demo-full; else \
	  echo "calibrate --full missed its held-out check (above, exit status 3 or 4): no full params file,"; \
	  echo "so its projection, crossovers and figures are left out of this demo (its held-out"; \
	  echo "table is still drawn).  Run 'make demo' again on a quieter machine, or read"; \
	  echo "docs/model.md, 'Calibration'."; fi
	@echo
	bin/scibench --pattern ow --ring 2 --sizes 1..65536 $(if $(QUICK),--max-time 0.2 --rel-error 0.01) -q -o $(FIG5_API)
	timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 bin/mpibench --pattern ow --ring 2 \
	  --sizes 1..65536 $(if $(QUICK),--max-time 0.2 --rel-error 0.01) -q -o $(FIG5_MPI)
	@echo
	@full=$(FULL_PARAMS:.params=); if [ -e build/demo-full.ok ]; then full=; fi; \
	  VALIDATION=$(FULL_VALID) $(MAKE) --no-print-directory plots PARAMS=$(DEMO_PARAMS) BENCH=$(DEMO_BENCH) \
	  FIG5="$(FIG5_API) $(FIG5_MPI)" FULLDATA=$$full > build/demo-plots.txt
	@if [ -e build/demo-full.ok ]; then \
	  VALIDATION= $(MAKE) --no-print-directory plots PARAMS=$(FULL_PARAMS) FULLDATA=$(FULL_PARAMS:.params=) >> build/demo-plots.txt; fi
	@full=; if [ -e build/demo-full.ok ]; then full="full calibration=$(FULL_PARAMS)"; fi; \
	  SCIMODEL=bin/scimodel plots/report.sh -o $(PLOTS_OUT)/report.html "2-node ring=$(DEMO_PARAMS)" \
	  $${full:+"$$full"} >> build/demo-plots.txt
	@echo
	@$(MAKE) --no-print-directory trace-demo
	@echo
	@p=$(FULL_PARAMS); [ -e build/demo-full.ok ] || p=$(DEMO_PARAMS); \
	  echo "bin/scimodel --params $$p --traffic $(TRACE_DEMO_MATRIX) --dims 1..4"; \
	  bin/scimodel --params $$p --traffic $(TRACE_DEMO_MATRIX) --dims 1..4
	@echo
	@echo "demo: wrote"; \
	  { printf '%s\n' $(DEMO_BENCH) $(DEMO_PARAMS) $(FULL_VALID) $(FIG5_API) $(FIG5_MPI); \
	    [ -e build/demo-full.ok ] && echo $(FULL_PARAMS); \
	    grep -hv ' ' build/demo-plots.txt build/trace-plots.txt | sort -u; \
	    echo $(TRACE_DEMO_MATRIX); } | while read -r f; do [ -f "$$f" ] && echo "  $$f"; done; true

# The full calibration's part of the demo, once it passed its check.
.PHONY: demo-full
demo-full:
	bin/scimodel --params $(FULL_PARAMS) --dims 1..4 --nodes 1000
	@echo
	@echo "crossovers (average request latency, continuous n), the two calibrations side by side:"
	@printf '  %-10s %24s %24s\n' crossover "2-node ring" "full calibration"
	@paste <(bin/scimodel --params $(DEMO_PARAMS) --crossover --metric avg --format tsv) \
	       <(bin/scimodel --params $(FULL_PARAMS) --crossover --metric avg --format tsv) | \
	  awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($$i in a) b[$$i] = i; else a[$$i] = i; next } \
	    { printf "  %dD -> %dD   %18.2f nodes %s %18.2f nodes %s\n", $$a["from_dims"], $$a["to_dims"], \
	      $$a["nodes"], ($$a["status"] == "crossover" ? " " : "*"), $$b["nodes"], \
	      ($$b["status"] == "crossover" ? " " : "*") } \
	    END { print "  (* a lower bound, not a crossover: the higher D already wins at its smallest torus)" }'
	@echo "  The full calibration measures every parameter (o(m), lf, ls, lb) and predicted a"
	@echo "  6-node ring it was not fitted on; its lf and ls are the benchmark's own software"
	@echo "  relay on this one machine, so its crossovers answer for a network of such relays."
	@echo "  The 2-node ring measures only o(m): its crossovers are the thesis's SCI preset's"
	@echo "  (lf and ls assumed), whatever o this machine has."

bench: $(BENCH_TARGETS)

clean:
	rm -rf build bin plots/out

# --- man pages and install ---------------------------------------------------
# make man: one page per program in build/man, help2man from its --help
# (the concise option list and the examples) plus man/<program>.h2m (name,
# synopsis, the longer description, exit status, files, see also).
# make install [PREFIX=/usr/local] [DESTDIR=]: the programs into
# $(PREFIX)/bin, libscitrace.so into $(PREFIX)/lib (where `scitrace run`
# looks for it), the man pages into $(PREFIX)/share/man/man1, and under
# $(PREFIX)/share/scitorus: plots/ (gnuplot scripts, plots.sh), data/sample/
# (the LogP samples plots.sh draws), trace/ (the trace figures' scripts) and
# examples/ (halo3d, an application to trace); README.md, docs/model.md and
# docs/formats.md (what help texts and man pages cite) into
# $(PREFIX)/share/doc/scitorus, and scitrace.h (scitrace_phase, for traced
# programs) into $(PREFIX)/include.  make uninstall removes
# exactly those files.  bench-* programs are `make bench` helpers.
PREFIX           ?= /usr/local
VERSION          := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
INSTALL_EXAMPLES := $(filter halo3d,$(PROGRAMS))
INSTALL_PROGRAMS := $(filter-out bench-% $(INSTALL_EXAMPLES),$(PROGRAMS))
INSTALL_LIBS     := $(TRACE_LIB)
INSTALL_PLOTS    := $(wildcard plots/*.gp) plots/components.awk plots/plots.sh plots/gp.sh plots/report.sh
INSTALL_SAMPLES  := $(wildcard data/sample/logp-*.tsv)
INSTALL_TRACE    := $(wildcard scitrace/*.gp) scitrace/plot.sh scitrace/timeline.sh
INSTALL_HEADERS  := libscitrace/scitrace.h
INSTALL_DOCS     := README.md $(wildcard docs/*.md)
MAN_PAGES        := $(INSTALL_PROGRAMS:%=build/man/%.1)
I_BIN      = $(DESTDIR)$(PREFIX)/bin
I_LIB      = $(DESTDIR)$(PREFIX)/lib
I_MAN      = $(DESTDIR)$(PREFIX)/share/man/man1
I_SHARE    = $(DESTDIR)$(PREFIX)/share/scitorus
I_PLOTS    = $(I_SHARE)/plots
I_SAMPLES  = $(I_SHARE)/data/sample
I_TRACE    = $(I_SHARE)/trace
I_EXAMPLES = $(I_SHARE)/examples
I_DOC      = $(DESTDIR)$(PREFIX)/share/doc/scitorus
I_INC      = $(DESTDIR)$(PREFIX)/include

.PHONY: man
man: $(MAN_PAGES)
# help2man reads a usage's further lines only in the "  or: PROG ..." form;
# man/help2man-usage rewrites lines aligned under "Usage: " into it.  It
# fills --help's examples into one paragraph: man/h2m-examples gives them
# to it one a line, as an [=EXAMPLES] section of the include file.
build/man/%.1: bin/% Makefile man/help2man-usage man/h2m-examples $(wildcard man/%.h2m) | deps
	@mkdir -p $(@D)
	$(if $(wildcard man/$*.h2m),man/h2m-examples bin/$* man/$*.h2m > build/man/$*.h2m)
	help2man -L C.UTF-8 --no-info --no-discard-stderr --version-string='$* (scitorus) $(VERSION)' \
	  $(if $(wildcard man/$*.h2m),--include=build/man/$*.h2m,--name='part of scitorus') --output=$@ \
	  --help-option='$(CURDIR)/bin/$* --help' man/help2man-usage

install: $(INSTALL_PROGRAMS:%=bin/%) $(INSTALL_EXAMPLES:%=bin/%) $(INSTALL_LIBS) $(MAN_PAGES)
	install -d $(I_BIN) $(I_MAN) $(I_PLOTS) $(I_SAMPLES) $(I_TRACE) $(I_EXAMPLES) $(I_DOC) $(I_INC)
	install -m 644 $(INSTALL_DOCS) $(I_DOC)/
	install -m 644 $(INSTALL_HEADERS) $(I_INC)/
	install -m 755 $(INSTALL_PROGRAMS:%=bin/%) $(I_BIN)/
	$(if $(INSTALL_LIBS),install -d $(I_LIB) && install -m 755 $(INSTALL_LIBS) $(I_LIB)/)
	$(if $(INSTALL_EXAMPLES),install -m 755 $(INSTALL_EXAMPLES:%=bin/%) $(I_EXAMPLES)/)
	install -m 644 $(MAN_PAGES) $(I_MAN)/
	install -m 644 $(filter %.gp %.awk,$(INSTALL_PLOTS)) $(I_PLOTS)/
	install -m 755 $(filter %.sh,$(INSTALL_PLOTS)) $(I_PLOTS)/
	$(if $(INSTALL_SAMPLES),install -m 644 $(INSTALL_SAMPLES) $(I_SAMPLES)/)
	install -m 644 $(filter %.gp,$(INSTALL_TRACE)) $(I_TRACE)/
	install -m 755 $(filter %.sh,$(INSTALL_TRACE)) $(I_TRACE)/
	@echo "install: $(words $(INSTALL_PROGRAMS)) programs, $(words $(INSTALL_LIBS)) libraries, $(words $(MAN_PAGES)) man pages, $(words $(INSTALL_EXAMPLES)) examples and $(words $(INSTALL_PLOTS) $(INSTALL_SAMPLES) $(INSTALL_TRACE)) plot files under $(DESTDIR)$(PREFIX)"

uninstall:
	rm -f $(INSTALL_PROGRAMS:%=$(I_BIN)/%) $(addprefix $(I_LIB)/,$(notdir $(INSTALL_LIBS))) \
	  $(INSTALL_PROGRAMS:%=$(I_MAN)/%.1) $(addprefix $(I_PLOTS)/,$(notdir $(INSTALL_PLOTS))) \
	  $(addprefix $(I_SAMPLES)/,$(notdir $(INSTALL_SAMPLES))) \
	  $(addprefix $(I_TRACE)/,$(notdir $(INSTALL_TRACE))) $(INSTALL_EXAMPLES:%=$(I_EXAMPLES)/%) \
	  $(addprefix $(I_DOC)/,$(notdir $(INSTALL_DOCS))) $(addprefix $(I_INC)/,$(notdir $(INSTALL_HEADERS)))
	-rmdir $(I_PLOTS) $(I_SAMPLES) $(I_SHARE)/data $(I_TRACE) $(I_EXAMPLES) $(I_SHARE) $(I_DOC) 2>/dev/null
	@echo "uninstall: removed scitorus from $(DESTDIR)$(PREFIX)"
