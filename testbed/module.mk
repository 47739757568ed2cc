# testbed/: scitestbed, a ring or torus of network namespaces with the kernel
# as relay, and Open MPI across it (docs/testbed.md).  A bash script: every
# step is an iproute2 command.  bin/san/ gets the same script, since the
# tests run the programs from there.
all: bin/scitestbed
CHECK_PREREQS += bin/scitestbed bin/san/scitestbed
scitestbed_MAN_NAME := build a ring or torus of network namespaces and run MPI across it

bin/scitestbed bin/san/scitestbed: testbed/scitestbed.sh
	@mkdir -p $(@D)
	sed "s/@VERSION@/$(VERSION)/" $< > $@.tmp && chmod 755 $@.tmp && mv $@.tmp $@

man: build/man/scitestbed.1
.PHONY: install-scitestbed uninstall-scitestbed
install: install-scitestbed
install-scitestbed: bin/scitestbed build/man/scitestbed.1
	install -d $(I_BIN) $(I_MAN)
	install -m 755 bin/scitestbed $(I_BIN)/
	install -m 644 build/man/scitestbed.1 $(I_MAN)/
uninstall: uninstall-scitestbed
uninstall-scitestbed:
	rm -f $(I_BIN)/scitestbed $(I_MAN)/scitestbed.1

TESTS += tests/test_testbed.c

# make testbed-figures [TESTBED_OUT=build/testbed] [ROUNDS=5]: the campaign of
# docs/testbed.md (root; takes the measurement lock per two rounds) and its figures
TESTBED_OUT ?= build/testbed
ROUNDS      ?= 5
.PHONY: testbed-figures
testbed-figures: bin/scitestbed bin/mpibench bin/calibrate
	testbed/campaign.sh $(TESTBED_OUT) $(ROUNDS) bin
	testbed/figures.sh $(TESTBED_OUT) $(ROUNDS) bin
