/* scitrace.h: what a traced program may call in libscitrace.so.
 *
 * scitrace_phase(NAME) starts a phase: every call recorded after it carries
 * NAME (no whitespace; 63 characters kept) until the next phase starts;
 * `scitrace summary`, `matrix` and `goal` select phases by name.  The first
 * phase is "main".  MPI_Pcontrol(N), the MPI standard's hook for profiling
 * tools, starts phase "pcontrol-N".
 *
 * scitrace_phase_begin(NAME) starts phase NAME inside the current one, and
 * scitrace_phase_end() returns to the phase it began in.  They nest: inside
 * a begun phase "solve", begin("halo") starts "solve/halo" (63 characters
 * kept); an end without a begin does nothing, and scitrace_phase(NAME)
 * inside a begun phase replaces it until its end.
 *
 * A program need not link with the library to call it: declare it weak, and
 * it is NULL unless libscitrace.so was preloaded (this header does that):
 *
 *     #include "scitrace.h"
 *     if (scitrace_phase) scitrace_phase("solve");
 *     if (scitrace_phase_begin) scitrace_phase_begin("halo");
 *     ...
 *     if (scitrace_phase_end) scitrace_phase_end();
 *
 * or look it up at run time: dlsym(RTLD_DEFAULT, "scitrace_phase"). */
#ifndef SCITRACE_H
#define SCITRACE_H

__attribute__((weak, visibility("default"))) void scitrace_phase(const char *name);
__attribute__((weak, visibility("default"))) void scitrace_phase_begin(const char *name);
__attribute__((weak, visibility("default"))) void scitrace_phase_end(void);

#endif
