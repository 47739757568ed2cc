/* file_error: why an input file was rejected, and the one way it is shown
 * to people ("path:line: msg").  Every reader (bench data, LogP data,
 * params files, traffic matrices) fills one of these. */
#ifndef SCITORUS_FILE_ERROR_H
#define SCITORUS_FILE_ERROR_H

#include <stddef.h>

typedef struct file_error {
    long line;          /* 1-based; 0 when not about a line (open/read) */
    int sys_errno;      /* errno for open/read failures, else 0 */
    char msg[200];      /* e.g. "unknown key 'lq_ns'" */
} file_error;

/* Sets a content error at line (0: the file as a whole); returns -2, the
 * readers' "malformed" status. */
int file_error_set(file_error *e, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets an open/read failure (errno err; 0 means EIO) in file_strerror's
 * words, so a FIFO or a device is named as such; returns -1. */
int file_error_sys(file_error *e, int err);

/* Writes "path:line: msg" (or "path: msg" when e->line is 0) to buf and
 * returns buf. */
const char *file_error_text(const file_error *e, const char *path, char *buf, size_t len);

/* Prints "prog: path:line: msg" on stderr; returns status. */
int file_error_report(int status, const char *prog, const char *path, const file_error *e);

#endif
