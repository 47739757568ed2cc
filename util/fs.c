/* fs: same-file refusal and the checked close of standard output. */
#include "util/fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "util/exit.h"

int fs_same_file(const char *a, const char *b)
{
    return file_same(a, b);
}

static int named(const fs_file *f)
{
    return f->path && *f->path && strcmp(f->path, "-") != 0;
}

static int refuse(const char *prog, const fs_file *o, const fs_file *other)
{
    fprintf(stderr, "%s: %s '%s' is the same file as %s '%s'; refusing to overwrite it"
                    " (try --help)\n", prog, o->opt, o->path, other->opt, other->path);
    return EXIT_USAGE;
}

int fs_refuse_same(const char *prog, const fs_file *in, int nin, const fs_file *out, int nout)
{
    for (int i = 0; i < nout; i++) {
        if (!named(&out[i]))
            continue;
        for (int j = 0; j < nin; j++)
            if (named(&in[j]) && fs_same_file(out[i].path, in[j].path))
                return refuse(prog, &out[i], &in[j]);
        for (int j = 0; j < i; j++)
            if (named(&out[j]) && fs_same_file(out[i].path, out[j].path))
                return refuse(prog, &out[i], &out[j]);
    }
    return 0;
}

int fs_refuse_missing_dir(const char *prog, const fs_file *out, int nout)
{
    for (int i = 0; i < nout; i++) {
        char copy[PATH_MAX];
        struct stat st;
        if (!named(&out[i]) || strlen(out[i].path) >= sizeof copy)
            continue;
        strcpy(copy, out[i].path);
        const char *dir = dirname(copy);
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            continue;
        fprintf(stderr, "%s: %s '%s': no directory '%s' (directories are not created)\n", prog,
                out[i].opt, out[i].path, dir);
        return EXIT_FAILURE;
    }
    return 0;
}

static const char *stdout_prog;
static int stdout_closed;
static char stdout_label[PATH_MAX + 16] = "standard output";

void fs_stdout_name(const char *name)
{
    snprintf(stdout_label, sizeof stdout_label, "%s", name);
}

int fs_close_stdout(const char *prog)
{
    if (stdout_closed)
        return 0;
    stdout_closed = 1;
    int e = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        e = errno ? errno : EIO;
    if (fclose(stdout) != 0 && !e)
        e = errno ? errno : EIO;
    if (!e)
        return 0;
    fprintf(stderr, "%s: %s: %s\n", prog, stdout_label, file_strerror(e));
    return 1;
}

static void close_at_exit(void)
{
    if (fs_close_stdout(stdout_prog))
        _exit(EXIT_FAILURE);   /* exit() may not be called again from an exit hook */
}

void fs_check_stdout_at_exit(const char *prog)
{
    if (!stdout_prog)
        atexit(close_at_exit);
    stdout_prog = prog;
}
