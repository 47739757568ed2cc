# util/: the bottom layer every stage links -- strict parsing, atomic
# output files, one-line messages, signal flags, spawning a child.
LIB_SRCS += util/parse.c util/atomicfile.c util/cli.c util/signals.c
TESTS    += tests/test_parse.c
