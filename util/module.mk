# util/: the bottom layer every stage links -- strict parsing, atomic
# output files, file errors, one-line messages, the options table, signal
# flags, spawning a child, file-system rules.
LAYERS += util
util_LAYER_USES :=
util_LAYER_SRCS := util/parse.c util/atomicfile.c util/cli.c util/signals.c util/file_error.c \
                   util/spawn.c util/fs.c util/opt.c util/grow.c
TESTS    += tests/test_parse.c tests/test_util.c tests/test_opt.c
# test_spawn kills scitrace run under mpirun and waits for the job's ranks
TESTS    += tests/test_spawn.c

# --version prints `git describe` of the build; opt.o is rebuilt when it changes.
SCITORUS_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
build/rel/util/opt.o build/san/util/opt.o: CSTD += -DSCITORUS_VERSION='"$(SCITORUS_VERSION)"'
build/rel/util/opt.o build/san/util/opt.o: build/version.txt
build/version.txt: FORCE
	@mkdir -p $(@D); echo '$(SCITORUS_VERSION)' | cmp -s - $@ || echo '$(SCITORUS_VERSION)' > $@
.PHONY: FORCE
FORCE:
