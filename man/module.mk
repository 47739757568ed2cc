# man/: the man pages' extra sections (help2man --include) and the scripts
# the Makefile's `make man` rule runs; tests/test_man.c reads the pages.
TESTS += tests/test_man.c
