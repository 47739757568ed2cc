# scitorus top-level Makefile (GNU Make, no autotools).
#
# Each stage of the pipeline keeps its own fragment, <dir>/module.mk, which
# appends to the variables below; this file holds only the generic rules.
#
#   LAYERS            the library layers (util, topo, benchdata, model, fit);
#                     <l>_LAYER_SRCS its sources, archived as build/*/lib<l>.a,
#                     <l>_LAYER_LIBS the system libraries it needs (GSL)
#   PROGRAMS          names of programs; bin/<name> from <name>_SRCS
#   <name>_SRCS       the program's own sources (its main)
#   <name>_LAYERS     the layers it links, and no other (default: all): a
#                     call into an undeclared layer fails at link time
#   <name>_MPI = 1    compile and link the program's own sources with mpicc
#   LIB_SRCS          sources not yet in a layer (linked where no list is given)
#   TESTS             Criterion test sources, each one binary bin/test/<stem>;
#                     its tier in tests/module.mk (unit, cli, timing)
#   <stem>_EXTRA      extra sources a test needs (e.g. a program's non-main
#                     sources); <stem>_LDLIBS extra libraries for it
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

include $(sort $(wildcard */module.mk))

# --- layers -----------------------------------------------------------------
# One static archive per layer; LIB_SRCS (sources no module has put in a
# layer yet) is the layer "lib".  A program links the archives of the layers
# it declares, in a group, so their order does not matter.
LAYERS += lib
lib_LAYER_SRCS := $(LIB_SRCS)
lib_LAYER_LIBS := $(GSL_LIBS)
define layer_template
build/rel/lib$(1).a: $$($(1)_LAYER_SRCS:%.c=build/rel/%.o)
	@mkdir -p $$(@D); rm -f $$@; ar rcs $$@ $$^
build/san/lib$(1).a: $$($(1)_LAYER_SRCS:%.c=build/san/%.o)
	@mkdir -p $$(@D); rm -f $$@; ar rcs $$@ $$^
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
bin/$(1): $$($(1)_OBJS_REL) $$(call layer_archives,rel,$$($(1)_LAYERS)) | deps
	@mkdir -p $$(@D)
	$$(CC) $(CFLAGS_REL) -o $$@ $$($(1)_OBJS_REL) $$(call layer_link,rel,$$($(1)_LAYERS)) \
	  $$($(1)_LDLIBS) $(LDLIBS)
bin/san/$(1): $$($(1)_OBJS_SAN) $$(call layer_archives,san,$$($(1)_LAYERS)) | deps
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
bin/test/$(2): build/san/$(1:%.c=%.o) $$($(2)_EXTRA:%.c=build/san/%.o) $$(call layer_archives,san,$$($(2)_LAYERS)) | deps
	@mkdir -p $$(@D)
	$$(CC) $(CFLAGS_SAN) -o $$@ build/san/$(1:%.c=%.o) $$($(2)_EXTRA:%.c=build/san/%.o) \
	  $$(call layer_link,san,$$($(2)_LAYERS)) $(TEST_LDLIBS) $$($(2)_LDLIBS) $(LDLIBS)
endef
$(foreach t,$(TESTS),$(eval $(call test_template,$(t),$(basename $(notdir $(t))))))

# make check runs three tiers one after another (tests/module.mk says which
# test is in which, and why a timing test is one); check-unit, check-cli and
# check-timing run one each.  tests/check.sh runs each binary with --jobs 1
# (several time real message passing on a 2-core machine), prints its wall
# time, and the tier's sums; `check` ends with the one line CI reads.
CHECK_ENV = SCITORUS_BIN=$(CURDIR)/bin/san SCITORUS_BIN_REL=$(CURDIR)/bin SCITORUS_ROOT=$(CURDIR) \
            ASAN_OPTIONS=abort_on_error=0 \
            LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
CHECK_UNIT_BINS   := $(filter $(CHECK_UNIT:%=bin/test/%),$(TEST_BINS))
CHECK_TIMING_BINS := $(filter $(CHECK_TIMING:%=bin/test/%),$(TEST_BINS))
CHECK_CLI_BINS    := $(filter-out $(CHECK_UNIT_BINS) $(CHECK_TIMING_BINS),$(TEST_BINS))
.PHONY: check-unit check-cli check-timing
check-unit: $(CHECK_UNIT_BINS)
	@$(CHECK_ENV) tests/check.sh check-unit $^
check-cli: $(CHECK_CLI_BINS) $(BINS_SAN) $(BINS_REL) $(CHECK_PREREQS)
	@$(CHECK_ENV) tests/check.sh check-cli $(CHECK_CLI_BINS)
check-timing: $(CHECK_TIMING_BINS) $(BINS_SAN) $(BINS_REL) $(CHECK_PREREQS)
	@sync; $(CHECK_ENV) tests/check.sh check-timing $(CHECK_TIMING_BINS)
# The `sync` first writes back what the build left dirty, so the kernel's
# writeback does not steal CPU from the first timed runs.
check: $(TEST_BINS) $(BINS_SAN) $(BINS_REL) $(CHECK_PREREQS)
	@sync; $(CHECK_ENV) tests/check.sh --all check-unit $(CHECK_UNIT_BINS) -- \
	  check-cli $(CHECK_CLI_BINS) -- check-timing $(CHECK_TIMING_BINS)

# --- packages ---------------------------------------------------------------
# Installs what is missing with apt-get when root; otherwise prints the one
# command to run.  A no-op (one dpkg-query) when everything is present.
deps:
	@missing=""; \
	if command -v dpkg-query >/dev/null 2>&1; then \
	  for p in $(DEB_PACKAGES) $(EXTRA_DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	  done; \
	else \
	  echo "deps: not a Debian system; make sure GSL, Criterion, Open MPI and gnuplot are installed" >&2; \
	fi; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq$$missing >/dev/null || \
	      { echo "deps: apt-get install$$missing failed" >&2; exit 1; }; \
	  else \
	    echo "deps: missing Debian packages:$$missing" >&2; \
	    echo "deps: run: sudo apt-get install -y$$missing" >&2; exit 1; \
	  fi; \
	fi

# --- the main job and the speed figures -------------------------------------
# make demo: the mission's calibrate (2-node shared-memory ring: o(m)
# measured, lf and ls from the thesis's preset), then calibrate --full (every
# parameter of the emulated network measured, checked on a held-out 6-node
# ring), projections with both, their crossovers side by side, and every
# figure.  QUICK=1: fewer sizes and a looser error target (well under a
# minute; CI).
HOST        := $(shell uname -n)
DEMO_PARAMS := data/params/$(HOST)-shm.params
DEMO_BENCH  := data/bench/$(HOST)-shm-ring2.tsv
FULL_PARAMS := data/params/$(HOST)-shm-full.params
FULL_VALID  := data/params/$(HOST)-shm-full-validation.tsv
demo: all
	bin/calibrate $(if $(QUICK),--quick) -o $(DEMO_PARAMS) --bench-out $(DEMO_BENCH)
	@echo
	bin/scimodel --params $(DEMO_PARAMS) --dims 1..4 --nodes 1000
	@echo
	bin/calibrate --full $(if $(QUICK),--quick) -q -o $(FULL_PARAMS)
	@echo
	bin/scimodel --params $(FULL_PARAMS) --dims 1..4 --nodes 1000
	@echo
	@echo "crossovers (average request latency, continuous n), the two projections side by side:"
	@printf '  %-10s %24s %24s\n' crossover "mission (lf, ls preset)" "full (all measured)"
	@paste <(bin/scimodel --params $(DEMO_PARAMS) --crossover --metric avg --format tsv) \
	       <(bin/scimodel --params $(FULL_PARAMS) --crossover --metric avg --format tsv) | \
	  awk -F'\t' 'NR > 1 { printf "  %dD -> %dD   %18.2f nodes %s %18.2f nodes %s\n", $$2, $$3, $$4, \
	    ($$5 == "crossover" ? " " : "*"), $$9, ($$10 == "crossover" ? " " : "*") } \
	    END { print "  (* a bound, not a crossover: see scimodel --crossover)" }'
	@echo
	@VALIDATION=$(FULL_VALID) $(MAKE) --no-print-directory plots PARAMS=$(DEMO_PARAMS) BENCH=$(DEMO_BENCH) > build/demo-plots.txt
	@VALIDATION= $(MAKE) --no-print-directory plots PARAMS=$(FULL_PARAMS) >> build/demo-plots.txt
	@echo
	@$(MAKE) --no-print-directory trace-demo
	@echo
	bin/scimodel --params $(DEMO_PARAMS) --traffic $(TRACE_DEMO_MATRIX) --dims 1..4
	@echo
	@echo "demo: wrote"; echo "  $(DEMO_BENCH)"; echo "  $(DEMO_PARAMS)"; \
	  echo "  $(FULL_PARAMS)"; echo "  $(FULL_VALID)"; \
	  grep -v '^plots/plots.sh\|^VALIDATION=' build/demo-plots.txt | sort -u | sed 's/^/  /'; \
	  echo "  $(TRACE_DEMO_MATRIX)"; sed 's/^/  /' build/trace-plots.txt

bench: $(BENCH_TARGETS)

clean:
	rm -rf build bin plots/out

# --- install ----------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=]: the programs into
# $(PREFIX)/bin, libscitrace.so (when trace/ builds it) into $(PREFIX)/lib,
# where `scitrace run` looks for it, the gnuplot scripts and plots.sh into
# $(PREFIX)/share/scitorus/plots, the trace figures' scripts (heatmap,
# size histogram, plot.sh) into $(PREFIX)/share/scitorus/trace, and a man page per program, made by
# help2man from its --help, into $(PREFIX)/share/man/man1.
# make uninstall removes exactly those files (and the scitorus directory).
# bench-* programs are `make bench` helpers, not installed.
PREFIX           ?= /usr/local
VERSION          := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
INSTALL_PROGRAMS := $(filter-out bench-%,$(PROGRAMS))
INSTALL_LIBS     := $(TRACE_LIB)
INSTALL_PLOTS    := $(wildcard plots/*.gp) plots/plots.sh
INSTALL_TRACE    := $(wildcard trace/*.gp) trace/plot.sh
MAN_PAGES        := $(INSTALL_PROGRAMS:%=build/man/%.1)
I_BIN   = $(DESTDIR)$(PREFIX)/bin
I_LIB   = $(DESTDIR)$(PREFIX)/lib
I_MAN   = $(DESTDIR)$(PREFIX)/share/man/man1
I_PLOTS = $(DESTDIR)$(PREFIX)/share/scitorus/plots
I_TRACE = $(DESTDIR)$(PREFIX)/share/scitorus/trace

# The NAME line of each man page (help2man would guess it from --help).
scibench_MAN_NAME  := shared-memory ping-pong and one-way latency benchmark on rings and tori
mpibench_MAN_NAME  := MPI ping-pong and one-way latency benchmark on rings and tori
calibrate_MAN_NAME := fit the SCI torus latency parameters from benchmark data
scimodel_MAN_NAME  := project latency through the closed-form D-dimensional SCI torus model
scitrace_MAN_NAME  := trace an MPI application and turn the trace into a traffic matrix

build/man/%.1: bin/% Makefile | deps
	@mkdir -p $(@D)
	help2man -L C.UTF-8 --no-info --no-discard-stderr --version-string='$* (scitorus) $(VERSION)' \
	  --name='$(or $($*_MAN_NAME),part of scitorus)' --output=$@ ./bin/$*

install: $(INSTALL_PROGRAMS:%=bin/%) $(INSTALL_LIBS) $(MAN_PAGES)
	install -d $(I_BIN) $(I_MAN) $(I_PLOTS) $(I_TRACE)
	install -m 755 $(INSTALL_PROGRAMS:%=bin/%) $(I_BIN)/
	$(if $(INSTALL_LIBS),install -d $(I_LIB) && install -m 755 $(INSTALL_LIBS) $(I_LIB)/)
	install -m 644 $(MAN_PAGES) $(I_MAN)/
	install -m 644 $(filter %.gp,$(INSTALL_PLOTS)) $(I_PLOTS)/
	install -m 755 $(filter %.sh,$(INSTALL_PLOTS)) $(I_PLOTS)/
	install -m 644 $(filter %.gp,$(INSTALL_TRACE)) $(I_TRACE)/
	install -m 755 $(filter %.sh,$(INSTALL_TRACE)) $(I_TRACE)/
	@echo "install: $(words $(INSTALL_PROGRAMS)) programs, $(words $(INSTALL_LIBS)) libraries, $(words $(MAN_PAGES)) man pages and $(words $(INSTALL_PLOTS) $(INSTALL_TRACE)) plot files under $(DESTDIR)$(PREFIX)"

uninstall:
	rm -f $(INSTALL_PROGRAMS:%=$(I_BIN)/%) $(addprefix $(I_LIB)/,$(notdir $(INSTALL_LIBS))) \
	  $(INSTALL_PROGRAMS:%=$(I_MAN)/%.1) $(addprefix $(I_PLOTS)/,$(notdir $(INSTALL_PLOTS))) \
	  $(addprefix $(I_TRACE)/,$(notdir $(INSTALL_TRACE)))
	-rmdir $(I_PLOTS) $(I_TRACE) $(DESTDIR)$(PREFIX)/share/scitorus 2>/dev/null
	@echo "uninstall: removed scitorus from $(DESTDIR)$(PREFIX)"
