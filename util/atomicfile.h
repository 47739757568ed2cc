/* atomicfile: the one mechanism for the programs' files.  Outputs are
 * written to an unnamed temporary file in the target's directory and given
 * their name only when complete, so an interrupted or killed run (SIGKILL
 * included) never leaves a half-written file or a temporary behind; an
 * interrupted run never replaces an existing file.  A journaled output
 * (atomic_file_open_journal) keeps what it has written even through a
 * SIGKILL, beside the target, until it is complete.  Inputs are opened only
 * when they are regular files, so a FIFO or a device cannot block a reader.
 * And standard output is closed with its errors checked. */
#ifndef SCITORUS_ATOMICFILE_H
#define SCITORUS_ATOMICFILE_H

#include <errno.h>
#include <stdio.h>

typedef struct atomic_file {
    FILE *fp;          /* write here */
    char *path;        /* final name (owned copy) */
    char *tmp_path;    /* "<path>.tmp.XXXXXX" (owned) when the file system
                          has no O_TMPFILE; NULL otherwise */
    int unnamed;       /* 1: fp is an O_TMPFILE with no name yet */
    struct atomic_journal *jr;   /* a journaled output's state, else NULL */
} atomic_file;

/* Suffix of the file an interrupted run writes beside an existing one. */
#define ATOMIC_FILE_PARTIAL_SUFFIX ".incomplete"

/* Creates the temporary file: an O_TMPFILE (nameless: nothing is left
 * behind whatever kills the process), or "<path>.tmp.XXXXXX" where the
 * file system has none (removed on failure, but left by a SIGKILL).  A
 * target that exists and is not a regular file (/dev/null, /dev/stdout, a
 * FIFO, a terminal) is opened and written directly instead: renaming over
 * it would replace the device node with a regular file.  It is opened
 * without blocking, so a FIFO nobody reads fails at once with ENXIO.
 * Returns 0, or -1 with errno set (nothing is left behind). */
int atomic_file_open(atomic_file *af, const char *path);

/* A journaled output, for a run whose finished results must survive
 * whatever ends it: as atomic_file_open, except that the first write
 * names the file "<path>.incomplete" (replacing an older one; one more
 * ".incomplete" when that name is the file `keep`, which a run resumes),
 * and every write goes out with marker after it, in one system call, so
 * the file on disk always ends with the marker (a format's "incomplete"
 * line).  The commits drop the marker and move the file to path as they
 * would an unnamed one; abort removes it. */
int atomic_file_open_journal(atomic_file *af, const char *path, const char *marker,
                             const char *keep);

/* Flushes, fsyncs, closes and gives the file its final name, replacing
 * what was there.  Returns 0, or -1 with errno set; on failure the
 * temporary file is removed and any previous file at the final path is
 * untouched.  Frees af's strings either way. */
int atomic_file_commit(atomic_file *af);

/* Commits the output of an interrupted run without destroying a previous
 * file: to the final path when nothing is there, else beside it to
 * "<path>.incomplete" (replacing an older partial file).  The name used is
 * copied to where (len bytes).  Returns 0, or -1 with errno set. */
int atomic_file_commit_partial(atomic_file *af, char *where, size_t len);

/* Closes and removes the temporary file; frees af's strings. */
void atomic_file_abort(atomic_file *af);

/* 1 when paths a and b name the same file (same device and inode when b
 * exists, else the same resolved directory and last component), 0 if not. */
int file_same(const char *a, const char *b);

/* Opens path for reading, only if it is a regular file (a FIFO, a
 * directory or a device is refused at once, never waited on).  Returns the
 * stream, or NULL with errno set: EISDIR for a directory,
 * FILE_ERR_NOT_REGULAR for other non-regular files. */
#define FILE_ERR_NOT_REGULAR EMEDIUMTYPE
FILE *file_open_input(const char *path);

/* strerror() with this module's errors in words ("not a regular file (a
 * FIFO, socket or device)", "no process is reading this FIFO"). */
const char *file_strerror(int err);

/* Flushes and closes standard output; on a write error (a full disk,
 * /dev/full, a closed pipe) prints "<prog>: standard output: <why>" and
 * returns 1, else 0.  Every program calls it last, so what it printed is
 * either all there or the exit status says it is not. */
int file_close_stdout(const char *prog);

#endif
