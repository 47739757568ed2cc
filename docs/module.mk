# docs/: the documentation's own test -- README.md and docs/*.md examples
# run as pasted, the README's length, and no citation of documents the user
# does not have (tests/docs/*.sh do the work).
TESTS += tests/test_docs.c
