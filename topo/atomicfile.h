/* atomicfile: write an output file under a temporary name in the same
 * directory and rename it into place on success, so an interrupted or
 * failed run never leaves a half-written file at the target path; and open
 * an input file, refusing directories, for the readers. */
#ifndef SCITORUS_ATOMICFILE_H
#define SCITORUS_ATOMICFILE_H

#include <stdio.h>

typedef struct atomic_file {
    FILE *fp;          /* write here */
    char *path;        /* final name (owned copy) */
    char *tmp_path;    /* "<path>.tmp.XXXXXX" (owned); NULL when direct */
} atomic_file;

/* Creates the temporary file.  A target that exists and is not a regular
 * file (/dev/null, /dev/stdout, a FIFO, a terminal) is opened and written
 * directly instead: renaming over it would replace the device node with a
 * regular file.  Returns 0, or -1 with errno set (nothing is left behind). */
int atomic_file_open(atomic_file *af, const char *path);

/* Flushes, fsyncs, closes and renames onto the final path.  Returns 0, or -1
 * with errno set; on failure the temporary file is removed and any previous
 * file at the final path is untouched.  Frees af's strings either way. */
int atomic_file_commit(atomic_file *af);

/* Closes and removes the temporary file; frees af's strings. */
void atomic_file_abort(atomic_file *af);

/* Opens path for reading.  Returns the stream, or NULL with errno set
 * (EISDIR for a directory, which fopen would accept). */
FILE *file_open_input(const char *path);

#endif
