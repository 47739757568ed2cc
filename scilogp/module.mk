# scilogp/: libscilogp.a, scilogp.h and scilogp.pc, a small installed C
# library that evaluates a params file's or a LogP file's parameters at any
# size.  It is the model, benchdata, topo and util layers' objects with
# scilogp.c over them, not a copy of them.
SCILOGP_LAYERS := model benchdata topo util
SCILOGP_LIB := build/scilogp/libscilogp.a
SCILOGP_ARCHIVES := $(SCILOGP_LAYERS:%=build/rel/lib%.a)
# ar's MRI script: scilogp.o and every member of the layers' archives
$(SCILOGP_LIB): build/rel/scilogp/scilogp.o $(SCILOGP_ARCHIVES) $(BUILD_LISTS)
	@mkdir -p $(@D); rm -f $@
	{ echo "create $@"; echo "addmod $<"; for a in $(SCILOGP_ARCHIVES); do echo "addlib $$a"; done; \
	  echo save; echo end; } | ar -M
.PHONY: scilogp install-scilogp uninstall-scilogp
scilogp: $(SCILOGP_LIB)
all: $(SCILOGP_LIB)
# make install installs it too; install-scilogp alone for the library's users
install: install-scilogp
uninstall: uninstall-scilogp
# the .pc file names this install's PREFIX (pkg-config's sysroot handles a DESTDIR)
install-scilogp: $(SCILOGP_LIB) scilogp/scilogp.pc.in
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 644 $(SCILOGP_LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 scilogp/scilogp.h $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' scilogp/scilogp.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/scilogp.pc
uninstall-scilogp:
	rm -f $(DESTDIR)$(PREFIX)/lib/libscilogp.a $(DESTDIR)$(PREFIX)/include/scilogp.h \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig/scilogp.pc
	-rmdir $(DESTDIR)$(PREFIX)/lib/pkgconfig 2>/dev/null
TESTS += tests/test_scilogp.c
# its test builds a program with pkg-config, as the library's users do
DEB_PACKAGES += pkg-config
DEPS_PROBE_pkg-config := c:pkg-config
