/* cli: the one-line messages for people that every command prints
 * ("scimodel: --nodes '0': out of range ... (try --help)").  Lives in
 * util/, the bottom layer every stage links, so each program words its
 * messages the same way and only names its prefix, suffix and status. */
#ifndef SCITORUS_CLI_H
#define SCITORUS_CLI_H

#include <stdarg.h>

/* Prints "<prog>: <fmt, ...><suffix>\n" on stderr and returns status.
 * prog - the program's name ("calibrate"); suffix - appended to the
 * message, e.g. " (try --help)" for usage errors, "" for runtime failures;
 * status - the exit status to return (2 usage error, 1 runtime failure). */
int cli_message(int status, const char *prog, const char *suffix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The same with a va_list, for a program's own printf-like wrappers. */
int cli_vmessage(int status, const char *prog, const char *suffix, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif
