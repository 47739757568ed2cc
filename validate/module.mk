# validate/: `make validate` -- the accuracy claims the documents make,
# measured now with their regimes, and the generated table of
# docs/VALIDATION.md rewritten.  They need a quiet machine, so `make check`
# (deterministic and noise-proof) leaves them here.  OSU_LATENCY=<osu_latency>,
# OSU_COLL=<OSU 5.x collective directory> and OSU_P2P=<OSU 5.x pt2pt
# directory> add the comparisons with OSU; CLAIMS="floor noisy logp full osu
# coll p2p testbed", ROUNDS=5 and FULL_RUNS=10 choose.
.PHONY: validate
validate: bin/scibench bin/mpibench bin/calibrate bin/scimodel bin/scitestbed bin/halo3d bin/scitrace \
          bin/scisim $(TRACE_LIB) $(BSEND_ATTACH)
	validate/validate.sh bin docs/VALIDATION.md
# the table's rewriting: a run of some claims keeps the others' rows
TESTS += tests/test_validate.c
