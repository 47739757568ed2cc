/* atomicfile: nameless temporary + link into place, so outputs are all or
 * nothing and nothing is left behind; regular-file-only inputs. */
#include "util/atomicfile.h"
#include "util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* Tries for a free "<path>.tmp.XXXXXX" name when linking a finished
 * O_TMPFILE in; each try is a fresh pseudo-random name. */
#define LINK_TRIES 64

/* A journaled output (atomic_file_open_journal): fp is a stream of ours
 * whose every write lands at off with the marker after it. */
struct atomic_journal {
    int fd;
    off_t off;          /* end of the data written; the marker follows */
    char *path;         /* the target, whose name the temporary names take */
    char *name;         /* "<path>.incomplete": the journal's name once named */
    char *tmp;          /* its temporary name where there is no O_TMPFILE */
    char *marker;
    size_t mlen;
    int named;
};

static void journal_free(struct atomic_journal *j)
{
    if (!j)
        return;
    if (j->fd >= 0)
        close(j->fd);
    free(j->path);
    free(j->name);
    free(j->tmp);
    free(j->marker);
    free(j);
}

static void release(atomic_file *af)
{
    journal_free(af->jr);
    af->jr = NULL;
    free(af->path);
    free(af->tmp_path);
    af->path = af->tmp_path = NULL;
    af->fp = NULL;
    af->unnamed = 0;
}

/* Opens fd as af->fp; on failure closes fd.  Returns 0 or -1 (errno). */
static int attach(atomic_file *af, int fd)
{
    af->fp = fdopen(fd, "w");
    if (af->fp)
        return 0;
    int e = errno;
    close(fd);
    errno = e;
    return -1;
}

/* Non-regular targets are written in place (see the header).  O_NONBLOCK:
 * opening a FIFO with no reader fails with ENXIO instead of waiting
 * forever; writes block again once it is open. */
static int open_direct(atomic_file *af, const char *path)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return attach(af, fd);
}

/* The directory part of path ("." for a bare name), malloc'ed. */
static char *dir_of(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return NULL;
    char *d = strdup(dirname(copy));
    free(copy);
    return d;
}

/* O_TMPFILE in the target's directory: a file with no name until commit. */
static int open_unnamed(atomic_file *af)
{
    char *dir = dir_of(af->path);
    if (!dir) {
        errno = ENOMEM;
        return -1;
    }
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);   /* umask applies */
    int e = errno;
    free(dir);
    if (fd < 0) {
        errno = e;
        return -1;
    }
    af->unnamed = 1;
    return attach(af, fd);
}

/* Fallback where the file system has no O_TMPFILE: a named temporary. */
static int open_named(atomic_file *af)
{
    static const char suffix[] = ".tmp.XXXXXX";
    size_t len = strlen(af->path);
    if (!(af->tmp_path = malloc(len + sizeof suffix))) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(af->tmp_path, af->path, len);
    memcpy(af->tmp_path + len, suffix, sizeof suffix);
    int fd = mkstemp(af->tmp_path);
    if (fd < 0)
        return -1;
    /* mkstemp creates 0600; data and params files are meant to be shared. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    if (attach(af, fd) == 0)
        return 0;
    int e = errno;
    unlink(af->tmp_path);
    errno = e;
    return -1;
}

int atomic_file_open(atomic_file *af, const char *path)
{
    struct stat st;
    int rc;
    af->fp = NULL;
    af->tmp_path = NULL;
    af->unnamed = 0;
    af->jr = NULL;
    if (!(af->path = strdup(path))) {
        errno = ENOMEM;
        return -1;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EISDIR;   /* now, not after an hour of measuring */
        rc = -1;
    } else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        rc = open_direct(af, path);
    else if ((rc = open_unnamed(af)) != 0 && (errno == EOPNOTSUPP || errno == EISDIR))
        rc = open_named(af);   /* EISDIR: kernels before 3.11 */
    if (rc) {
        int e = errno;
        release(af);
        errno = e;
    }
    return rc;
}

/* Gives the unnamed file fd the name to (which must not exist): linkat
 * through /proc/self/fd, or AT_EMPTY_PATH where /proc is missing (that one
 * needs CAP_DAC_READ_SEARCH). */
static int link_unnamed(int fd, const char *to)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (linkat(AT_FDCWD, proc, AT_FDCWD, to, AT_SYMLINK_FOLLOW) == 0)
        return 0;
    if (errno == EEXIST)
        return -1;
    return linkat(fd, "", AT_FDCWD, to, AT_EMPTY_PATH);
}

/* Links the unnamed file fd in at a fresh "<path>.tmp.XXXXXX" and renames
 * that onto to (replacing it): rename is the only atomic replace. */
static int link_replace(int fd, const char *path, const char *to)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    size_t len = strlen(path);
    char *tmp = malloc(len + 12);
    if (!tmp) {
        errno = ENOMEM;
        return -1;
    }
    uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uintptr_t)tmp;
    int rc = -1;
    for (int t = 0; t < LINK_TRIES && rc; t++) {
        memcpy(tmp, path, len);
        memcpy(tmp + len, ".tmp.", 5);
        for (int i = 0; i < 6; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;   /* Knuth's MMIX LCG */
            tmp[len + 5 + i] = digits[(x >> 33) % (sizeof digits - 1)];
        }
        tmp[len + 11] = '\0';
        rc = link_unnamed(fd, tmp);
        if (rc && errno != EEXIST)
            break;
    }
    if (rc == 0 && rename(tmp, to) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        rc = -1;
    }
    free(tmp);
    return rc;
}

/* Flushes and (for files) fsyncs; returns 0 or an errno value. */
static int finish_writing(atomic_file *af)
{
    int e = 0;
    if (fflush(af->fp) != 0 || ferror(af->fp))
        e = errno ? errno : EIO;
    else if ((af->tmp_path || af->unnamed) && fsync(fileno(af->fp)) != 0)
        e = errno;
    return e;
}

/* Commit: replace = 1 renames over the target; replace = 0 only creates
 * the target and otherwise writes beside it (partial). */
static int commit(atomic_file *af, int replace, char *where, size_t wlen)
{
    int e = finish_writing(af);
    char *beside = NULL;
    const char *to = af->path;
    if (where && wlen)
        snprintf(where, wlen, "%s", af->path);
    if (!e && af->unnamed) {
        int fd = fileno(af->fp);
        if (replace ? link_replace(fd, af->path, af->path) : link_unnamed(fd, af->path)) {
            e = errno;
            if (!replace && e == EEXIST) {
                size_t n = strlen(af->path) + sizeof ATOMIC_FILE_PARTIAL_SUFFIX;
                if ((beside = malloc(n))) {
                    snprintf(beside, n, "%s%s", af->path, ATOMIC_FILE_PARTIAL_SUFFIX);
                    to = beside;
                    e = link_replace(fd, af->path, beside) ? errno : 0;
                } else {
                    e = ENOMEM;
                }
            }
        }
    }
    if (fclose(af->fp) != 0 && !e)
        e = errno ? errno : EIO;
    if (!e && af->tmp_path) {   /* named fallback */
        if (replace) {
            e = rename(af->tmp_path, af->path) ? errno : 0;
        } else if (link(af->tmp_path, af->path) == 0) {
            unlink(af->tmp_path);
        } else if (errno != EEXIST) {
            e = errno;
        } else {
            size_t n = strlen(af->path) + sizeof ATOMIC_FILE_PARTIAL_SUFFIX;
            if ((beside = malloc(n))) {
                snprintf(beside, n, "%s%s", af->path, ATOMIC_FILE_PARTIAL_SUFFIX);
                to = beside;
                e = rename(af->tmp_path, beside) ? errno : 0;
            } else {
                e = ENOMEM;
            }
        }
    }
    if (e && af->tmp_path)
        unlink(af->tmp_path);
    if (!e && where && wlen)
        snprintf(where, wlen, "%s", to);
    free(beside);
    release(af);
    errno = e;
    return e ? -1 : 0;
}

/* Gives the journal its name (once). */
static int journal_name(struct atomic_journal *j)
{
    if (j->named)
        return 0;
    if (j->tmp ? rename(j->tmp, j->name) : link_replace(j->fd, j->path, j->name))
        return -1;
    j->named = 1;
    free(j->tmp);
    j->tmp = NULL;
    return 0;
}

/* The data and the marker after it in one pwritev: at any moment the file
 * ends with the marker, so a killed run's file reads as incomplete. */
static ssize_t journal_write(void *cookie, const char *buf, size_t size)
{
    struct atomic_journal *j = cookie;
    struct iovec iov[2] = {{(void *)buf, size}, {j->marker, j->mlen}};
    off_t at = j->off;
    int k = 0;
    while (k < 2) {
        ssize_t n = pwritev(j->fd, iov + k, 2 - k, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            errno = n ? errno : EIO;
            return -1;
        }
        at += n;
        for (; k < 2 && (size_t)n >= iov[k].iov_len; k++)
            n -= (ssize_t)iov[k].iov_len;
        if (k < 2) {
            iov[k].iov_base = (char *)iov[k].iov_base + n;
            iov[k].iov_len -= (size_t)n;
        }
    }
    j->off += (off_t)size;
    return journal_name(j) ? -1 : (ssize_t)size;
}

/* Only where the stream is (ftell): the data is written in order. */
static int journal_seek(void *cookie, off64_t *pos, int whence)
{
    struct atomic_journal *j = cookie;
    off64_t to = whence == SEEK_SET ? *pos : j->off + *pos;
    if (to != j->off) {
        errno = EINVAL;
        return -1;
    }
    *pos = to;
    return 0;
}

static int journal_close(void *cookie)
{
    (void)cookie;   /* the descriptor is the commit's */
    return 0;
}

int atomic_file_open_journal(atomic_file *af, const char *path, const char *marker,
                             const char *keep)
{
    static const char suffix[] = ATOMIC_FILE_PARTIAL_SUFFIX;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return atomic_file_open(af, path);   /* a directory refused, a device in place */
    *af = (atomic_file){NULL, strdup(path), NULL, 0, calloc(1, sizeof *af->jr)};
    struct atomic_journal *j = af->jr;
    size_t len = strlen(path);
    char *dir = dir_of(path);
    int e = ENOMEM;
    if (j)
        j->fd = -1;
    if (!af->path || !j || !dir || !(j->path = strdup(path)) || !(j->marker = strdup(marker)) ||
        !(j->name = malloc(len + 2 * sizeof suffix)))
        goto fail;
    j->mlen = strlen(marker);
    snprintf(j->name, len + 2 * sizeof suffix, "%s%s", path, suffix);
    if (keep && file_same(j->name, keep))
        strcat(j->name, suffix);
    if ((j->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666)) < 0) {
        if (errno != EOPNOTSUPP && errno != EISDIR)
            goto fail_errno;
        size_t n = strlen(j->name) + sizeof ".tmp.XXXXXX";
        if (!(j->tmp = malloc(n)))
            goto fail;
        snprintf(j->tmp, n, "%s.tmp.XXXXXX", j->name);
        if ((j->fd = mkstemp(j->tmp)) < 0)
            goto fail_errno;
        mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(j->fd, 0666 & ~mask);
    }
    cookie_io_functions_t io = {NULL, journal_write, journal_seek, journal_close};
    if (!(af->fp = fopencookie(j, "w", io)))
        goto fail_errno;
    free(dir);
    return 0;
fail_errno:
    e = errno;
fail:
    if (j && j->tmp && j->fd >= 0)
        unlink(j->tmp);
    free(dir);
    release(af);
    errno = e;
    return -1;
}

/* A journal's commit: named now if it never was, its marker dropped,
 * then moved as commit() moves an unnamed file. */
static int journal_commit(atomic_file *af, int replace, char *where, size_t wlen)
{
    struct atomic_journal *j = af->jr;
    const char *to = af->path;
    int e = fflush(af->fp) != 0 || ferror(af->fp) ? (errno ? errno : EIO) : 0;
    fclose(af->fp);
    af->fp = NULL;
    if (!e && (journal_name(j) || ftruncate(j->fd, j->off) || fsync(j->fd)))
        e = errno;
    if (!e && replace)
        e = rename(j->name, af->path) ? errno : 0;
    else if (!e && link(j->name, af->path) == 0)
        unlink(j->name);
    else if (!e && errno == EEXIST)
        to = j->name;
    else if (!e)
        e = errno;
    if (e && j->named)
        unlink(j->name);
    else if (e && j->tmp)
        unlink(j->tmp);
    if (!e && where && wlen)
        snprintf(where, wlen, "%s", to);
    release(af);
    errno = e;
    return e ? -1 : 0;
}

int atomic_file_commit(atomic_file *af)
{
    return af->jr ? journal_commit(af, 1, NULL, 0) : commit(af, 1, NULL, 0);
}

int atomic_file_commit_partial(atomic_file *af, char *where, size_t len)
{
    return af->jr ? journal_commit(af, 0, where, len) : commit(af, 0, where, len);
}

void atomic_file_abort(atomic_file *af)
{
    if (af->jr) {
        if (af->fp)
            fclose(af->fp);
        if (af->jr->named)
            unlink(af->jr->name);
        else if (af->jr->tmp)
            unlink(af->jr->tmp);
        release(af);
        return;
    }
    if (af->fp)
        fclose(af->fp);   /* an unnamed file vanishes with its descriptor */
    if (af->tmp_path)
        unlink(af->tmp_path);
    release(af);
}

/* realpath of path's directory + "/" + its last component, malloc'ed. */
static char *resolved_name(const char *path)
{
    char *dir = dir_of(path), *copy = strdup(path), *out = NULL;
    char real[PATH_MAX];
    if (dir && copy && realpath(dir, real)) {
        const char *base = basename(copy);
        size_t n = strlen(real) + strlen(base) + 2;
        if ((out = malloc(n)))
            snprintf(out, n, "%s/%s", real, base);
    }
    free(dir);
    free(copy);
    return out;
}

int file_same(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ra = resolved_name(a), *rb = resolved_name(b);
    int same = ra && rb ? strcmp(ra, rb) == 0 : strcmp(a, b) == 0;
    free(ra);
    free(rb);
    return same;
}

FILE *file_open_input(const char *path)
{
    struct stat st;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    int e = 0;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (S_ISDIR(st.st_mode))
        e = EISDIR;
    else if (!S_ISREG(st.st_mode))
        e = FILE_ERR_NOT_REGULAR;
    else {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
            e = errno;
    }
    FILE *fp = e ? NULL : fdopen(fd, "r");
    if (!fp) {
        e = e ? e : errno;
        close(fd);
        errno = e;
    }
    return fp;
}

const char *file_strerror(int err)
{
    if (err == FILE_ERR_NOT_REGULAR)
        return "not a regular file (a FIFO, socket or device)";
    if (err == ENXIO)
        return "no process is reading this FIFO (or no such device)";
    return strerror(err);
}

int file_close_stdout(const char *prog)
{
    return fs_close_stdout(prog);
}
