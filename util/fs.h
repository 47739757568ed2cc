/* fs: file-system rules every program applies the same way -- an output
 * never names the same file as an input or as another output (compared by
 * device and inode, so ./a.tsv, a link and a.tsv are one file), and
 * standard output is closed with its errors checked on every exit path. */
#ifndef SCITORUS_FS_H
#define SCITORUS_FS_H

/* One file a program reads or writes, for fs_refuse_same: the option that
 * names it ("--data", "-o") and its path (NULL or "-": none, or a
 * standard stream; skipped). */
typedef struct fs_file {
    const char *opt;
    const char *path;
} fs_file;

/* 1 when paths a and b name the same file: the same device and inode when
 * both exist, else the same resolved directory and last component. */
int fs_same_file(const char *a, const char *b);

/* Refuses an output that is also an input, or that two outputs share:
 * prints "<prog>: <opt> '<path>' is the same file as <opt> '<path>'; ...
 * (try --help)" and returns 2 (a usage error), else returns 0. */
int fs_refuse_same(const char *prog, const fs_file *in, int nin, const fs_file *out, int nout);

/* Refuses an output whose directory does not exist (directories are never
 * created: nothing goes where the user did not name), before any work is
 * done: prints "<prog>: <opt> '<path>': no directory '<dir>'..." and
 * returns 1, else 0. */
int fs_refuse_missing_dir(const char *prog, const fs_file *out, int nout);

/* Registers the checked close of standard output at exit (call first in
 * main): when what was printed could not all be written (a full disk,
 * /dev/full, a closed pipe) the program says so and exits 1, whatever
 * path it left by.  Idempotent. */
void fs_check_stdout_at_exit(const char *prog);

/* Names standard output in those messages (e.g. "-o 'out.txt'") once an
 * output file has been put in its place, so an error blames that file. */
void fs_stdout_name(const char *name);

/* Flushes and closes standard output now (once; later calls and the exit
 * hook then do nothing); on a write error prints "<prog>: standard output:
 * <why>" and returns 1, else 0. */
int fs_close_stdout(const char *prog);

#endif
