/* otf2_names: what scitrace's OTF2 writer and reader agree on: the MPI
 * names of the calls (the regions), the attributes that carry a rank file's
 * lines, and the message when scitrace was built without the library. */
#ifndef SCITORUS_OTF2_NAMES_H
#define SCITORUS_OTF2_NAMES_H

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "trace/tracekinds.h"

#define TRACE_OTF2_MISSING                                                                   \
    "scitrace was built without the OTF2 library: install libotf2-trace-dev (make deps) and " \
    "rebuild"

/* Attributes: the lines of the rank file before an event (a string), the
 * number of words of the event's own line after its time, and the words
 * (w0, w1, ...). */
#define TRACE_OTF2_ATTR_LINES 0u
#define TRACE_OTF2_ATTR_WORDS 1u
#define TRACE_OTF2_ATTR_W0 2u
#define TRACE_OTF2_ATTR_LINES_NAME "scitrace::lines"
#define TRACE_OTF2_ATTR_WORDS_NAME "scitrace::words"

/* "MPI_Isend" for isend, "MPI_Comm_split" for comm_split. */
static inline void otf2_mpi_name(int kind, char *out, size_t cap)
{
    snprintf(out, cap, "MPI_%s", trace_kind_name(kind));
    if (out[4])
        out[4] = (char)toupper((unsigned char)out[4]);
}

/* The kind of an MPI region's name, or -1 (not a call scitrace records). */
static inline int otf2_kind_of(const char *name)
{
    static const struct {
        const char *mpi, *kind;
    } alias[] = {{"Sendrecv_replace", "sendrecv"}, {"Startall", "start"},
                 {"Comm_dup_with_info", "comm_dup"}, {"Comm_split_type", "comm_split"}};
    char low[64];
    if (strncmp(name, "MPI_", 4) != 0 || strlen(name + 4) >= sizeof low)
        return -1;
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (strcmp(name + 4, alias[i].mpi) == 0)
            return trace_kind_from_name(alias[i].kind);
    size_t n = 0;
    for (; name[4 + n]; n++)
        low[n] = (char)tolower((unsigned char)name[4 + n]);
    low[n] = '\0';
    int k = trace_kind_from_name(low);
    return k >= 0 && trace_kind_is_call(k) ? k : -1;
}

#endif
