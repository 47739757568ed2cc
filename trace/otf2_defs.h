/* otf2_defs: what both OTF2 readers (otf2_read.c, otf2_mpi.c) take alike
 * from an archive's global definitions: its strings, its locations (in the
 * order defined: the ranks) and its clock.  A reader's user data starts
 * with an otf2_defs, which the callbacks fill (implemented in otf2_read.c). */
#ifndef SCITORUS_OTF2_DEFS_H
#define SCITORUS_OTF2_DEFS_H

#include <otf2/otf2.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/tracefile.h"

typedef struct otf2_defs {
    char **str;                  /* by string ref (NULL: not defined) */
    size_t nstr;
    OTF2_LocationRef *locs;      /* in the order defined */
    size_t nlocs;
    uint64_t resolution;         /* clock ticks per second (0: not given) */
    int oom;
} otf2_defs;

/* Opens the archive and reads its global definitions into d, with the
 * shared callbacks and those `more` sets (their user data is d, the start
 * of the reader's own); NULL (err set, d still to free) when it cannot. */
OTF2_Reader *otf2_read_defs(const char *anchor, void (*more)(OTF2_GlobalDefReaderCallbacks *),
                            otf2_defs *d, trace_error *err);
/* Reads the events of the locations selected, opened, through gec (user
 * data d), then closes the event files; -1 (err set) when it cannot. */
int otf2_read_events(OTF2_Reader *rdr, OTF2_GlobalEvtReaderCallbacks *gec, otf2_defs *d,
                     const char *anchor, trace_error *err);
const char *otf2_str(const otf2_defs *d, OTF2_StringRef s);   /* "" when not defined */
long otf2_loc_index(const otf2_defs *d, OTF2_LocationRef ref);   /* -1: not defined */
/* ns of `ticks` ticks of the archive's clock (ns when it gives none). */
uint64_t otf2_ns(const otf2_defs *d, uint64_t ticks);
void otf2_defs_free(otf2_defs *d);

#endif
