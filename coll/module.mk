# coll/: collectives -- their schedules (named algorithms as GOAL and a
# LogGP replay on per-size LogP parameters), the collectives data file,
# the size refinement, and mpibench --op (bench/collective*.c).
COLL_LIB := coll/collgen.c coll/colldata.c coll/refine.c
mpibench_SRCS += bench/collective.c bench/collective_time.c $(COLL_LIB)
