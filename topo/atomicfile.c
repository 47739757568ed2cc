/* atomicfile: temporary name + rename, so outputs are all or nothing. */
#include "topo/atomicfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void release(atomic_file *af)
{
    free(af->path);
    free(af->tmp_path);
    af->path = af->tmp_path = NULL;
    af->fp = NULL;
}

/* Non-regular targets are written in place (see the header). */
static int open_direct(atomic_file *af, const char *path)
{
    af->tmp_path = NULL;
    af->path = strdup(path);
    af->fp = af->path ? fopen(path, "w") : NULL;
    if (!af->fp) {
        int e = af->path ? errno : ENOMEM;
        release(af);
        errno = e;
        return -1;
    }
    return 0;
}

int atomic_file_open(atomic_file *af, const char *path)
{
    static const char suffix[] = ".tmp.XXXXXX";
    size_t len = strlen(path);
    struct stat st;
    int fd;

    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return open_direct(af, path);
    af->fp = NULL;
    af->path = strdup(path);
    af->tmp_path = malloc(len + sizeof suffix);
    if (!af->path || !af->tmp_path) {
        release(af);
        errno = ENOMEM;
        return -1;
    }
    memcpy(af->tmp_path, path, len);
    memcpy(af->tmp_path + len, suffix, sizeof suffix);
    fd = mkstemp(af->tmp_path);
    if (fd < 0)
        goto fail;
    /* mkstemp creates 0600; data and params files are meant to be shared. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        int e = errno;
        close(fd);
        unlink(af->tmp_path);
        errno = e;
        goto fail;
    }
    return 0;
fail:;
    int e = errno;
    release(af);
    errno = e;
    return -1;
}

int atomic_file_commit(atomic_file *af)
{
    int e = 0;
    if (!af->tmp_path) {   /* direct: a device or a FIFO, nothing to rename */
        if (fflush(af->fp) != 0 || ferror(af->fp))
            e = errno ? errno : EIO;
        if (fclose(af->fp) != 0 && !e)
            e = errno ? errno : EIO;
        release(af);
        errno = e;
        return e ? -1 : 0;
    }
    if (fflush(af->fp) != 0 || ferror(af->fp) || fsync(fileno(af->fp)) != 0)
        e = errno ? errno : EIO;
    if (fclose(af->fp) != 0 && !e)
        e = errno ? errno : EIO;
    if (!e && rename(af->tmp_path, af->path) != 0)
        e = errno;
    if (e)
        unlink(af->tmp_path);
    release(af);
    errno = e;
    return e ? -1 : 0;
}

void atomic_file_abort(atomic_file *af)
{
    if (af->fp)
        fclose(af->fp);
    if (af->tmp_path)
        unlink(af->tmp_path);
    release(af);
}

FILE *file_open_input(const char *path)
{
    struct stat st;
    FILE *fp = fopen(path, "r");
    if (fp && fstat(fileno(fp), &st) == 0 && !S_ISDIR(st.st_mode))
        return fp;
    if (fp) {
        fclose(fp);
        errno = EISDIR;
    }
    return NULL;
}
