/* tracegoal: a trace directory as a GOAL schedule (docs/formats.md, 'GOAL
 * schedule'), every rank's calls in program order, its collectives
 * expanded through sched/ (trace/expand.h); `scitrace goal` writes it. */
#ifndef SCITORUS_TRACEGOAL_H
#define SCITORUS_TRACEGOAL_H

#include <stddef.h>
#include <stdio.h>

#include "trace/expand.h"
#include "trace/tracefile.h"

/* Writes d (every rank loaded) as GOAL text to fp: the header comments,
 * the collectives' algorithms (expand_report), then rank by rank; phase
 * NULL: every phase.  Returns 0, -1 out of memory, -2 a collective without
 * its schedule (why says which, and where). */
int trace_goal_write(FILE *fp, const trace_dir *d, const char *phase, const expand_choice *choice,
                     char *why, size_t len);

#endif
